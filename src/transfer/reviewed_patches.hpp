#pragma once

#include "gitbridge/patch.hpp"
#include "src/workspace/workspace.hpp"

#include <string>
#include <vector>

namespace ws {

/// The patches `ws diff` showed, kept in the workspace's state directory (outside the view,
/// out of the agent's reach): for each, the SHA-256 of every pair it held. `ws apply --expect
/// ID` lands only a change whose content is exactly what a patch that was shown held, and
/// otherwise names the files that differ. The newest 20 are kept.
void record_reviewed(const Workspace& w, const gitbridge::Patch& patch);

/// Throws Error unless `expect` is the whole id of a patch shown by `ws diff` for `w`, and
/// `now` (the patch of the pairs about to land) holds exactly what that patch held.
void check_reviewed(const Workspace& w, const std::string& expect, const gitbridge::Patch& now);

} // namespace ws
