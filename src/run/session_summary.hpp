#pragma once

// The summary at the end of a `ws run` session: what changed, what would not transfer
// (folded by directory, filters/fold.hpp), how to go on. One screen whatever the workspace
// holds: at most 24 lines of at most 80 columns.

#include "src/workspace/workspace.hpp"
#include "src/workspace/workspace_edit.hpp"

#include <cstddef>
#include <string>

namespace ws {

constexpr size_t k_summary_lines = 24;
constexpr size_t k_summary_width = 80;

/// Prints the summary on stderr after session `session` ended with `status`, `cp` the
/// checkpoint it saved (nullptr: none). It covers what changed since the checkpoint before
/// `cp` (the session's own work, as a rule) and costs what changed, not what the workspace
/// holds. Returns how many paths the session changed.
size_t print_session_summary(const Workspace& w, const std::string& session, int status,
                             const Checkpoint* cp);

} // namespace ws
