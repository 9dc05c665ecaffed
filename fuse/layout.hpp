#pragma once

#include <sys/types.h>

#include <filesystem>

namespace ws::fuse {

/// The largest base whose content a workspace keeps in bases/ (docs/agent-git.md, "Bases"):
/// above it only the identity (and, on copy-up, the hash) is kept.
inline constexpr off_t k_base_content_limit = 100ll << 20;

/// Where a workspace keeps its state, all under one directory outside the project:
///   upper/        the agent's writes (a real directory tree); upper/.git the agent's own git
///   work/         scratch for atomic copy-up (same filesystem as upper/)
///   bases/        content of lower files as the agent first found them, by XXH3-128
///   meta.db       overlay metadata: whiteouts, opaque dirs, bases, origins (SQLite)
///   journal.db    every mutating operation (SQLite)
///   store/        checkpoints' content and trees, by SHA-256 (fuse/store/content_store.hpp)
///   daemon.lock   held (flock) by the one daemon serving this workspace
///   daemon.log    that daemon's log
struct WorkspaceLayout {
  std::filesystem::path dir;

  std::filesystem::path upper() const { return dir / "upper"; }
  std::filesystem::path work() const { return dir / "work"; }
  std::filesystem::path bases() const { return dir / "bases"; }
  std::filesystem::path meta_db() const { return dir / "meta.db"; }
  std::filesystem::path journal_db() const { return dir / "journal.db"; }
  std::filesystem::path store() const { return dir / "store"; }
  std::filesystem::path lock_file() const { return dir / "daemon.lock"; }
  std::filesystem::path log_file() const { return dir / "daemon.log"; }
  /// The agent's private git directory (docs/agent-git.md) and its config: the one place ws
  /// writes settings for the agent's git (issue 14: core.fsmonitor, core.untrackedCache).
  /// The agent's git obeys it; the person's git in the view is shown the real config.
  std::filesystem::path agent_git_dir() const { return upper() / ".git"; }
  std::filesystem::path agent_git_config() const { return agent_git_dir() / "config"; }

  /// Creates the directories (mode 0700); existing ones are kept.
  void create_dirs() const;
};

} // namespace ws::fuse
