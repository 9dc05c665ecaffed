#pragma once

#include "gitbridge/patch.hpp"
#include "src/transfer/transfer_plan.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace ws {

/// The last patch `ws diff` built of the live workspace, kept in the workspace's state like
/// the plan (plan_cache.hpp), under the token of the daemon's change record the plan and
/// the content it was built from were valid at, and a key (the plan's inputs and the diff's
/// options). When nothing changed since that token, it is the patch of now: `ws diff` then
/// prints it without reading a file (docs/transfer.md, "The plan cache").
struct CachedPatch {
  std::string token;
  std::string key;
  gitbridge::Patch patch;
};

std::optional<CachedPatch> load_patch_cache(const std::filesystem::path& file);
void save_patch_cache(const std::filesystem::path& file, const std::string& token,
                      const std::string& key, const gitbridge::Patch& patch);

} // namespace ws
