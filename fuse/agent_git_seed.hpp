#pragma once

// The agent's private git state on disk (docs/agent-git.md): `upper/.git`, copied from the
// real repository's git directories when the workspace is made, its objects shared.

#include "fuse/meta_store.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace ws::fuse {

struct StateDirs;

/// The real repository's git directories the private state is made from (resolved by src/
/// through gitbridge, recorded in meta.db).
struct RealGitSource {
  std::filesystem::path git_dir;    ///< HEAD, index, logs/HEAD (a linked worktree's own one)
  std::filesystem::path common_dir; ///< refs, config, hooks, objects
};

/// meta.db info keys of the private state: it exists, and where it was copied from.
inline constexpr std::string_view k_git_state_key = "git.state";
inline constexpr std::string_view k_git_dir_key = "git.dir";
inline constexpr std::string_view k_git_common_key = "git.common_dir";
/// Where the agent's git started (written by src/, docs/agent-git.md). They describe the
/// private state in upper/.git, so a checkpoint's are restored with it.
inline constexpr std::string_view k_git_start_keys[] = {"git.start", "git.start_index",
                                                        "git.start_ref", "git.base", "git.landed"};

/// The directories below the private `.git` that merge the real common directory's of the
/// same name, read-only: objects (and submodules' git directories, git-lfs's store).
/// Returns the name (e.g. "objects") when `path` is one of them (".git/objects").
std::optional<std::string_view> shared_git_dir(std::string_view path);
/// Whether `path` lies below one of those (`.git/objects/ab`, `.git/objects/pack/x.pack`).
bool below_shared_git_dir(std::string_view path);

/// True when `path` is the private `.git` or lies below it.
inline bool in_agent_git(std::string_view path) {
  return path == ".git" || path.rfind(".git/", 0) == 0;
}

/// The workspace has a private git state: where it came from; nullopt for a workspace made
/// before there was one (its view shows the real `.git` merged, as it did).
std::optional<RealGitSource> agent_git_source(const MetaStore& meta);

/// Makes `upper/.git` from `real`: HEAD, index, config, refs (but refs/ws/), packed-refs,
/// logs, hooks, info... copied (what the person is in the middle of, a merge or a rebase, is
/// not); objects/, modules/, lfs/ made empty, to merge the real ones. Files already in
/// `upper/.git` are kept (a workspace made before private git states). Records `.git` as
/// opaque and each copied file's hash as its base, and the info keys above. `lower` is the
/// real tree's top (its `.git` is the base of the view's).
void seed_agent_git(const StateDirs& dirs, const RealGitSource& real);

/// Records what `path` (below `.git`) holds now in the upper layer as what the agent's git
/// started with: a file ws itself set up right after seed_agent_git (the view's git config),
/// which is then no change of the agent's. No daemon may serve the workspace.
void adopt_agent_git_file(const StateDirs& dirs, const std::string& path);

/// After a restore: the start keys of the checkpoint (`from`) become the workspace's (`to`).
void restore_agent_git_info(const MetaStore& from, MetaStore& to);

} // namespace ws::fuse
