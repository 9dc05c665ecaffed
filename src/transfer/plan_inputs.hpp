#pragma once

#include "src/workspace/workspace.hpp"

#include <optional>
#include <string>

namespace ws {

/// Everything a plan of the live workspace reads besides the view's files and the real
/// tree's (which the daemon's change record covers, view_changes.hpp), summed up in a digest:
/// the real repository's index, HEAD and config, every git and ws config file and ignore file
/// the policy may read, the environment that names them, the agent's git (its HEAD and the
/// start ws recorded), and this very ws binary (the rules are its own). Files are taken by
/// their stat data (inode, size, mtime, ctime: what a write changes); a file absent counts
/// as absent. Two equal digests: a plan made under one holds under the other, as far as
/// these inputs go.
///
/// nullopt when the inputs cannot be summed up with certainty (a config file that includes
/// others, a `.git` that is a file, a workspace without a private git state, anything
/// unreadable): such a workspace is always planned in full.
std::optional<std::string> plan_inputs_digest(const Workspace& w);

} // namespace ws
