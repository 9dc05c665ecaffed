#pragma once

#include "gitbridge/patch.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ws::gitbridge {

/// One path to record in the real index, exactly as it now stands in the real tree.
struct StagedPath {
  std::string path;
  BlobSide content; ///< not present: remove the path from the index
  /// The working tree's file holds exactly `content`: its stat data goes into the entry (so
  /// git sees it clean). Otherwise the entry gets none, and git compares the content.
  bool matches_worktree = true;
};

/// The entries of the real index of `worktree` at `paths` (stage 0): their content and mode,
/// or nullopt where the index has none. Reads the blobs from the real repository.
std::vector<std::optional<BlobSide>> index_entries(const std::filesystem::path& worktree,
                                                   const std::vector<std::string>& paths);

/// Stages `paths` in the index of the repository whose working tree is `worktree`, as `git
/// add` would, but without any filter, driver, hook or fsmonitor: the blob is the bytes
/// given. Stat data comes from the real tree so git sees the files as clean. Holds
/// index.lock while writing; throws GitError (e.g. another git process holds the lock).
void stage_paths(const std::filesystem::path& worktree, const std::vector<StagedPath>& paths);

} // namespace ws::gitbridge
