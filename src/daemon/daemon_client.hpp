#pragma once

// The CLI's requests to a running daemon that need more than one answer.

#include "fuse/unique_fd.hpp"
#include "src/workspace/workspace.hpp"

#include <optional>

namespace ws {

/// The agent's writers held back by the workspace's daemon (docs/filesystem.md, "Pausing
/// writers"): no request that changes the view runs from the moment this exists until it is
/// destroyed (or the daemon's 120 s safety limit passes), so the upper layer and meta.db
/// are a state the view had, and stay it. Reads of the view go on. Move-only; the pause ends
/// when the last owner of the connection goes.
///
/// While it is held, the daemon still answers every other control request (drop, rebase,
/// snapshot, ...): code holding a pause may edit the workspace's state through the daemon.
/// It must not write through the view itself (such a write waits for the pause to end).
class WriterPause {
public:
  explicit WriterPause(fuse::UniqueFd connection) : m_connection(std::move(connection)) {}
  WriterPause(WriterPause&&) noexcept = default;
  WriterPause& operator=(WriterPause&&) noexcept = default;
  /// Ends the pause now (the destructor's job, earlier).
  void release() { m_connection.reset(); }

private:
  fuse::UniqueFd m_connection;
};

/// Pauses the writers of `w`'s view, waiting until the changes already running are done.
/// nullopt when no daemon serves `w` (nothing can write then). Throws Error with a hint when
/// the daemon cannot pause them (e.g. a change still runs after 30 s).
std::optional<WriterPause> pause_writers(const Workspace& w);

} // namespace ws
