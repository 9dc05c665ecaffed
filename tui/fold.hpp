#pragma once

// Folding the review's list: a withheld or blocked directory whose every changed path has
// the same verdict and reason is one row with a count (issue 13: `node_modules/  2,510
// files  under node_modules/`). Pure: plain values in, directories out.
//
// The CLI reports (ws status, diff, apply) fold by the same rule; until they share one
// function, this one is the review's (see docs/review.md, "Folded directories").

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
};

/// A directory shown as one row: paths [begin, end) of the input are every changed path
/// below it, all with one verdict (withheld or blocked) and one reason.
struct FoldedDir {
  std::string dir; ///< without a trailing '/'
  size_t begin = 0;
  size_t end = 0;
};

/// The highest directories strictly below `under` ("" for the top) that fold: every path
/// of `paths` below one has the same group, Withheld or Blocked, and the same reason, and
/// there are at least `min_paths` of them. `paths` must be sorted by path (byte order, as
/// std::string compares) and all lie below `under`; the result is in path order. Costs
/// O(paths x depth).
std::vector<FoldedDir> fold_directories(const std::vector<FoldPath>& paths,
                                        std::string_view under = {}, size_t min_paths = 2);

} // namespace ws::tui
