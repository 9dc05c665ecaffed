#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace ws {

/// Paths inside a --writable directory that run code or instruct an agent the next time the
/// person starts it unconfined (an agent CLI's hooks, MCP servers, settings, helper
/// binaries, memory files; shell rc files; a repository's hooks and config). The agent may
/// write the rest of the directory, not these.
struct GuardedPaths {
  std::vector<std::filesystem::path> existing; ///< bound read-only inside the sandbox
  std::vector<std::filesystem::path> absent;   ///< must still be absent after the session
};

GuardedPaths guarded_paths(const std::vector<std::filesystem::path>& writable);

/// After the session: every `absent` path the agent created is moved aside to
/// `<path>.ws-quarantine-<session>` (never deleted: the person decides). Returns the
/// moved paths (their original names).
std::vector<std::filesystem::path> quarantine_planted(const GuardedPaths& guarded,
                                                      const std::string& session);

} // namespace ws
