#pragma once

#include "gitbridge/patch.hpp"
#include "src/cli/commands.hpp"
#include "src/transfer/patch_cache.hpp"
#include "src/transfer/transfer_plan.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ws {

/// The plan and patch for one set of diff/apply options (same inputs, same patch id).
/// Without `pairs_needed` (ws diff), `pairs` may stay empty: a patch kept from an earlier
/// `ws diff` of the same state is used (patch_cache.hpp).
struct DiffResult {
  StateSource source;
  std::vector<PlannedChange> plan;
  gitbridge::Patch patch;
  /// What the patch was built from, one per transferring change in plan order: apply decides
  /// from these instead of reading every file again.
  std::vector<gitbridge::FilePair> pairs;
  std::vector<bool> base_exact;
  /// The text in pieces, when `ws diff` took it from the kept one (patch.text then empty):
  /// written out as it is, put together only to be escaped or coloured.
  PatchText text;
};

/// With `keep_manifest` (`ws apply --check`), the patch's id and manifest are kept in the
/// workspace's state under the token the plan and content were valid at (kept_check.hpp).
DiffResult compute_diff(const Context& ctx, const Workspace& w,
                        const std::vector<std::string>& paths,
                        const std::vector<std::string>& include, std::optional<unsigned> checkpoint,
                        const gitbridge::PatchParts& parts = {}, bool pairs_needed = true,
                        bool keep_manifest = false);

} // namespace ws
