#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ws::gitbridge {

/// One conflicting region of a merge: where it is in the merged text, and what each side
/// wants there.
struct ConflictHunk {
  size_t line = 0;    ///< 1-based line of the region in the real file
  std::string yours;  ///< the real tree's lines (the person's edit)
  std::string agents; ///< the workspace's lines
};

struct MergeResult {
  bool clean = false;
  std::string content; ///< clean: the merge; otherwise: with conflict markers
  std::vector<ConflictHunk> conflicts;
};

/// Three-way merge of one file's text (git's merge-file algorithm, in libgit2): `base` is
/// what the agent started from, `yours` the real file now, `agents` the workspace's.
/// Binary content never merges (not clean, no hunks).
MergeResult merge_file(std::string_view base, std::string_view yours, std::string_view agents,
                       const std::string& path);

} // namespace ws::gitbridge
