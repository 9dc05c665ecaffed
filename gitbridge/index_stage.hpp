#pragma once

#include "gitbridge/patch.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace ws::gitbridge {

/// One path to record in the real index, exactly as it now stands in the real tree.
struct StagedPath {
  std::string path;
  BlobSide content; ///< not present: remove the path from the index
};

/// Stages `paths` in the index of the repository whose working tree is `worktree`, as `git
/// add` would, but without any filter, driver, hook or fsmonitor: the blob is the bytes
/// given. Stat data comes from the real tree so git sees the files as clean. Holds
/// index.lock while writing; throws GitError (e.g. another git process holds the lock).
void stage_paths(const std::filesystem::path& worktree, const std::vector<StagedPath>& paths);

} // namespace ws::gitbridge
