#pragma once

// Which paths of a view the person's git acts on to decide what to run: its config, its
// hooks, and what redirects it to another git directory. Pure: no I/O.

#include <sys/types.h>

#include <string_view>

namespace ws::fuse {

/// How an object at a path could make git, run by the person in the view, execute code.
enum class GitExposure {
  none,             ///< no `.git` component: git never reads it to decide what to run
  if_symlink,       ///< inside a git directory: a symlink would redirect what git reads there
  unless_directory, ///< `.git` itself: a file (`gitdir: ...`) or symlink redirects git
  always,           ///< config, hooks, attributes, commondir and gitdir links: git obeys them
};

/// Classifies `path`, relative to the view's root ("a/.git/config"), at any depth:
/// - always: `.git/config`, `.git/config.worktree`, `.git/commondir`, `.git/hooks` and
///   everything under it, `.git/info/attributes`, `.git/worktrees/*/config.worktree`,
///   `.git/worktrees/*/commondir`, `.git/worktrees/*/gitdir`, and the same inside every
///   submodule git directory `.git/modules/<name...>/` (names may hold slashes; nested
///   modules too);
/// - unless_directory: `.git` itself;
/// - if_symlink: anything else below a `.git` directory;
/// - none: paths without a `.git` component.
/// Where several `.git` components occur, the strongest class wins.
GitExposure git_exposure(std::string_view path);

/// Whether an object of type `type` (S_IFMT bits) at `path` is one the person's git must not
/// take from the agent.
bool is_git_sensitive(GitExposure exposure, mode_t type);
inline bool is_git_sensitive(std::string_view path, mode_t type) {
  return is_git_sensitive(git_exposure(path), type);
}

} // namespace ws::fuse
