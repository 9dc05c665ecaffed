#pragma once

// Folding the review's list: a withheld or blocked directory whose every changed path has
// the same verdict and reason is one row with a count (issue 13: `node_modules/  2,510
// files  under node_modules/`); so are the files directly in a directory that share a
// verdict and reason, at least filters::k_direct_fold_min of them (`src/*.o  43 files`).
// A tool's own tree (`.venv/`) folds with the symlinks leaving the project inside it,
// counted in a note. Pure: plain values in, directories out.
//
// The rule is the one every report shares (filters/fold.hpp: ws status, diff, apply, the
// end of ws run); this is it on the review's groups (see docs/review.md).

#include "tui/review_model.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ws::tui {

/// One changed path, as folding sees it.
struct FoldPath {
  std::string_view path; ///< repository-relative, '/'-separated
  Group group = Group::Transfer;
  std::string_view reason;
  char status = 'A';
};

/// Paths shown as one row: a directory (paths [begin, end) of the input are every changed
/// path below it), or (`direct`) the paths `members` directly in `dir`, named by `glob`.
/// All of one verdict (withheld or blocked) and one reason.
struct FoldedDir {
  std::string dir; ///< without a trailing '/'; "" for the top (direct folds only)
  size_t begin = 0;
  size_t end = 0;
  std::string reason; ///< the reason they share
  /// Paths of other reasons folded in, as the reports count them (`symlinks leaving the
  /// project: 3`), "" if none.
  std::string note;
  bool direct = false;
  std::vector<size_t> members; ///< direct: the paths' indices, ascending
  std::string glob;            ///< direct: a pattern every member's name matches (`*.o`)

  size_t files() const { return direct ? members.size() : end - begin; }
};

/// The highest directories strictly below `under` ("" for the top) that fold: every path
/// of `paths` below one has the same group, Withheld or Blocked, and the same reason (or a
/// reason ordinary in that tool's tree), and there are at least `min_paths` of them. With
/// `min_direct` > 0, also the files directly in a directory that does not fold, of one
/// group and reason, where there are at least `min_direct` of them. `paths` must be sorted
/// by path (byte order, as std::string compares) and all lie below `under`; the result is
/// in order of each fold's first path. Costs O(paths x depth).
std::vector<FoldedDir> fold_directories(const std::vector<FoldPath>& paths,
                                        std::string_view under = {}, size_t min_paths = 2,
                                        size_t min_direct = 0);

} // namespace ws::tui
