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
  std::string symlink_above;    ///< a symlink on the way in the real tree (change_content.hpp)
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

/// Makes a conflict of each outcome that would write beneath a symlink of the real tree
/// which no other outcome deletes: with that deletion (a directory symlink the agent replaced
/// by a directory) the directory is made in its place, as git does; without it, nothing is
/// ever written through the link.
void refuse_writes_through_symlinks(std::vector<Outcome>& outcomes);

} // namespace ws
