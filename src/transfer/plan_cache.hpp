#pragma once

#include "src/transfer/transfer_plan.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ws {

/// The last whole plan of the live workspace (every change with its verdict), kept in the
/// workspace's state, out of the agent's reach, with what it was made under: the token of
/// the daemon's change record taken before the plan looked at any file (view_changes.hpp)
/// and the digest of every other input (plan_inputs.hpp). When the daemon says nothing
/// changed since that token and the digest is the same, the plan is the plan of now: a
/// second `ws status` walks, stats and reads nothing (docs/transfer.md, "The plan cache").
struct CachedPlan {
  std::string token;
  std::string inputs;
  std::vector<PlannedChange> plan; ///< no view_content, nothing included
};

/// The cache in `file`; nullopt when absent, damaged or of another format. Never needed for
/// a right answer: any doubt reads as no cache.
std::optional<CachedPlan> load_plan_cache(const std::filesystem::path& file);

/// Writes `plan` (`included` and `view_content` are not kept) under `token` and `inputs`
/// (atomically: a temporary file renamed over). Fails silently: it is a cache.
void save_plan_cache(const std::filesystem::path& file, const std::string& token,
                     const std::string& inputs, const std::vector<PlannedChange>& plan);

/// `ws apply --check` (and `ws apply`) stage in a directory of the real tree that they
/// remove before they end (RealTreeTransaction: `.ws-apply-<pid>-<n>`), which the daemon's
/// record notes like any edit of the real tree. True when every name in `changed` is such a
/// directory or below one, gone now from the real tree and the upper layer, with no change
/// of `plan` there: then the tree is as it was, and the plan still holds.
bool only_staging_leftovers(const std::vector<std::string>& changed,
                            const std::filesystem::path& real, const std::filesystem::path& upper,
                            const std::vector<PlannedChange>& plan);

/// Forgets the cache (a plan made without it must not leave an older one behind).
void drop_plan_cache(const std::filesystem::path& file);

} // namespace ws
