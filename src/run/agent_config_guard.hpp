#pragma once

#include "fuse/unique_fd.hpp"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace ws {

/// Paths inside a --writable directory that run code or instruct an agent the next time the
/// person starts it unconfined (an agent CLI's hooks, MCP servers, settings, helper
/// binaries, memory files; shell rc files; a repository's hooks and config). The agent may
/// write the rest of the directory, not these.
/// Repositories nested in a writable directory (DIR/sub/.git, DIR/.git/modules/NAME) count
/// as DIR/.git does, found to a bounded depth when the session starts.
struct GuardedPaths {
  std::vector<std::filesystem::path> existing; ///< bound read-only inside the sandbox
  std::vector<std::filesystem::path> absent;   ///< must still be absent after the session
  /// The directories between a writable directory and an `existing` path (DIR/.git,
  /// DIR/.claude), each bound onto itself inside: a mount point cannot be renamed, so the
  /// agent cannot move the guarded files away with their directory and make new ones.
  std::vector<std::filesystem::path> pinned;
  /// Guarded paths reached through a symlink below the writable directory (the link, as it
  /// was): never bound (bwrap would follow it on both sides, where the agent chose); what it
  /// leads to is guarded at its real path when a writable directory holds it, and the link
  /// must be the same (or gone) after the session, or what took its place is moved aside.
  struct Link {
    std::filesystem::path path;
    std::filesystem::path target;
  };
  std::vector<Link> links;
  /// Each writable directory, opened when the plan was made: the end-of-session check walks
  /// from these fds and follows no symlink the agent may have put on the way.
  struct Root {
    std::filesystem::path path;
    std::shared_ptr<const fuse::UniqueFd> fd;
  };
  std::vector<Root> roots;
};

GuardedPaths guarded_paths(const std::vector<std::filesystem::path>& writable);

/// After the session: every `absent` path the agent created is moved aside to
/// `<path>.ws-quarantine-<session>` (never deleted: the person decides). The walk starts at
/// the writable directory's fd and follows no symlink: a directory on the way that the agent
/// replaced by a symlink is itself moved aside (it could point anywhere, the person's real
/// config included). Returns the moved paths (their original names).
std::vector<std::filesystem::path> quarantine_planted(const GuardedPaths& guarded,
                                                      const std::string& session);

} // namespace ws
