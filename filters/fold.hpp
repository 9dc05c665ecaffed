#pragma once

// Folding a long report by directory (issue 13, "Summaries by directory"): a withheld or
// blocked directory whose every changed path has the same verdict and reason is one line
// with a count (`node_modules/  2,510 files  under node_modules/`). Every report a person
// reads folds by these rules: ws status, ws diff's report, ws apply, the end of ws run, the
// review's list. Pure: plain values in, directories out.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ws::filters {

/// One changed path, as folding sees it.
struct FoldItem {
  std::string_view path; ///< repository-relative, '/'-separated
  int group = 0;         ///< paths fold together only within one group (e.g. a verdict)
  bool foldable = false; ///< withheld or blocked: never a path that may land unread
  std::string_view reason;
  char kind = 'A'; ///< status letter: A M D R T
};

/// A directory shown as one line: items [begin, end) of the input are every changed path
/// below it, all foldable, of one group and one reason.
struct FoldedDir {
  std::string dir; ///< without a trailing '/'
  size_t begin = 0;
  size_t end = 0;
  size_t deleted = 0; ///< how many of them are deletions (a count never hides them)
  char kind = 0;      ///< the status letter they all share, or 0 where they differ
  size_t files() const { return end - begin; }
};

/// The highest directories strictly below `under` ("" for the top) that fold: every item
/// below one is foldable, of the same group and reason, and there are at least `min_paths`
/// of them. `items` must be sorted by path (byte order) and all lie below `under`; the
/// result is in path order. O(items x depth).
std::vector<FoldedDir> fold_directories(const std::vector<FoldItem>& items,
                                        std::string_view under = {}, size_t min_paths = 2);

/// "2,510 files" or "2,510 files, 12 deleted".
std::string fold_count(const FoldedDir& d);

/// 2510 -> "2,510".
std::string with_commas(size_t n);

/// ws status's rule for plain new files (new, and transferring: `plain`), above a screen's
/// worth of changes: for each item, the top directory its line folds into ("" for a line
/// of its own) where that directory holds at least two plain new files, as git folds an
/// untracked directory. Other changes below keep their lines.
std::vector<std::string_view> fold_new_files(const std::vector<std::string_view>& paths,
                                             const std::vector<bool>& plain);

/// How many lines each of `wanted` (lines each section would take) may have, together at
/// most `budget` (every section with anything gets at least one): lines are dealt one at a
/// time to each section still wanting more, so a huge section cannot crowd out a small one.
std::vector<size_t> share_lines(const std::vector<size_t>& wanted, size_t budget);

} // namespace ws::filters
