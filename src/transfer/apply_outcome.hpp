#pragma once

// What `ws apply` decides for one change of the workspace (shared by plain apply and the
// uncommitted rest of `ws apply --commits`): per-file 3-way against the base.

#include "src/transfer/change_content.hpp"
#include "src/transfer/landed_versions.hpp"
#include "src/transfer/landing.hpp"
#include "src/transfer/transfer_plan.hpp"

#include <map>
#include <string>
#include <vector>

namespace ws {

/// What apply decided for one change.
struct Outcome : LandingResult {
  const PlannedChange* change = nullptr;
  gitbridge::BlobSide agents;   ///< the workspace's version this outcome was computed from
  gitbridge::BlobSide base;     ///< what it was merged against
  bool markers_written = false; ///< a conflict whose markers land (--conflicts=markers)
};
using How = LandingResult::How;

/// The real tree as it will be after what lands first (the agent's commits), per path.
using RealAfter = std::map<std::string, ContentReader::RealObject>;

/// `pair` holds the base and the agent's version, as read for the patch; `landed` the versions
/// an earlier `ws apply --checkpoint` landed (null for a checkpoint); `real_after` overrides
/// the real tree for paths something landing before this changes.
Outcome decide_change(const PlannedChange& p, const gitbridge::FilePair& pair, bool base_exact,
                      const ContentReader& reader, const LandedVersions* landed,
                      const RealAfter* real_after = nullptr);

/// The outcomes as the landing results refuse_writes_through_symlinks (landing.hpp) takes.
std::vector<LandingResult*> landing_results(std::vector<Outcome>& outcomes);

} // namespace ws
