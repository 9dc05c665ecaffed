#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace ws {

/// A path the sandbox must never let the agent write, nor anything above it: the project,
/// its real .git, the workspace state and views, and the programs ws runs outside the
/// sandbox (its own binary, bwrap, slirp4netns).
struct ProtectedPath {
  ProtectedPath(std::filesystem::path p, std::string w, bool inside = false, std::string h = {})
      : path(std::move(p)), what(std::move(w)), inside_too(inside), hint(std::move(h)) {}
  std::filesystem::path path;
  std::string what;        ///< "the project", "the ws binary", ...
  bool inside_too = false; ///< paths below it are refused as well (project, state)
  std::string hint;        ///< what to do instead ("": name a narrower path outside it)
};

/// The absolute directories of the person's PATH (existing or not: an agent could make one),
/// as protected paths for --writable: a program the agent plants there runs unconfined the
/// next time the person types its name. Also the trees those directories run programs from:
/// a version manager's (~/.pyenv for ~/.pyenv/shims, ~/.nvm, ~/.asdf...) and, for rustup's
/// proxies in ~/.cargo/bin, $RUSTUP_HOME (~/.rustup).
std::vector<ProtectedPath> path_directories();

/// Checks one --writable or --read path (`flag` names it in errors) and returns it
/// canonical. Refuses (throws Error, naming the path, what it hits and what to do) a path
/// that is, contains or aliases a protected path or one of its ancestors: through a
/// symlink (resolved), the same device and inode (hard link, bind mount), or a mount point
/// below it that shows one of them. `inside_too` paths also refuse what lies below them.
std::filesystem::path checked_sandbox_path(const std::string& flag, const std::string& raw,
                                           const std::vector<ProtectedPath>& protect);

/// Refuses (throws Error) a --read or --writable path named through a symlink that lies in a
/// writable directory (`writable`: the session's, canonical): the agent of an earlier session
/// could have put it there (`~/work/docs -> ../.ssh` with `[ws] read = ~/work/docs`).
void refuse_links_in_writable(const std::string& flag, const std::string& raw,
                              const std::vector<std::filesystem::path>& writable);

/// `~` and `~/x` expanded with $HOME.
std::filesystem::path expand_home(const std::string& p);

} // namespace ws
