#pragma once

// Folding a long report by directory (issue 13, "Summaries by directory"): a withheld or
// blocked directory whose every changed path has the same verdict and reason is one line
// with a count (`node_modules/  2,510 files  under node_modules/`); the files directly in a
// directory that also holds other changes fold by verdict and reason into one line named by
// a pattern (`src/*.o  183 files  ignored by the real repository`). Every report a person
// reads folds by these rules: ws status, ws diff's report, ws apply, the end of ws run, the
// review's list. Pure: plain values in, directories out.

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ws::filters {

/// One changed path, as folding sees it.
struct FoldItem {
  FoldItem(std::string_view path_, int group_, bool foldable_, std::string_view reason_,
           char kind_ = 'A', std::string_view tree_ = {}, std::string_view ordinary_ = {})
      : path(path_), group(group_), foldable(foldable_), reason(reason_), kind(kind_), tree(tree_),
        ordinary(ordinary_) {}
  std::string_view path; ///< repository-relative, '/'-separated
  int group = 0;         ///< paths fold together only within one group (e.g. a verdict)
  bool foldable = false; ///< withheld or blocked: never a path that may land unread
  std::string_view reason;
  char kind = 'A'; ///< status letter: A M D R T
  /// The reason of the tool's own tree the path lies in by its name (`under .venv/ (a
  /// Python virtual environment)`; tool_tree()), "" if none.
  std::string_view tree;
  /// Non-empty: the reason is ordinary inside `tree` (ordinary_in_tree()), and the path
  /// folds into that tree's line, counted under this label.
  std::string_view ordinary;
};

/// A group of items shown as one line: either every changed path below `dir` (items
/// [begin, end) of the input), all foldable, of one group and one reason (reasons ordinary in
/// that tree counted apart in `ordinary`); or (`direct`) the items `members` directly in
/// `dir`, all foldable, of one group and reason, their names matching `glob`.
struct FoldedDir {
  std::string dir; ///< without a trailing '/'; "" for the top (direct folds only)
  size_t begin = 0;
  size_t end = 0;
  size_t deleted = 0;      ///< how many of them are deletions (a count never hides them)
  char kind = 0;           ///< the status letter they all share, or 0 where they differ
  std::string_view reason; ///< the reason they share
  /// Items of other reasons folded in, by label (`symlinks leaving the project`, 3).
  std::vector<std::pair<std::string_view, size_t>> ordinary;
  bool direct = false;
  std::vector<size_t> members; ///< direct: the items' indices, ascending
  std::string glob;            ///< direct: a pattern every member's name matches (`*.o`)

  size_t files() const { return direct ? members.size() : end - begin; }
  size_t first() const { return direct ? members.front() : begin; }
  /// As shown in place of a path: `node_modules/`, `src/*.o`, `*.o` at the top.
  std::string shown() const;
};

/// The highest directories strictly below `under` ("" for the top) that fold: every item
/// below one is foldable, of the same group and reason (or a reason ordinary in that tree),
/// and there are at least `min_paths` of them. With `min_direct` > 0, also the files directly
/// in `under` or in a directory that does not fold, grouped by group and reason, where a group
/// has at least `min_direct` of them. `items` must be sorted by path (byte order) and all
/// lie below `under`; the result is in order of each fold's first item. O(items x depth).
std::vector<FoldedDir> fold_directories(const std::vector<FoldItem>& items,
                                        std::string_view under = {}, size_t min_paths = 2,
                                        size_t min_direct = 0);

/// The fewest files directly in a directory that fold into one line in the reports: a few
/// are clearer named (three files of a commit the agent undid), dozens of objects are not.
constexpr size_t k_direct_fold_min = 10;

/// For each of `n` items, the index into `dirs` of the fold it is in, or SIZE_MAX.
std::vector<size_t> fold_membership(const std::vector<FoldedDir>& dirs, size_t n);

/// "2,510 files" or "2,510 files, 12 deleted".
std::string fold_count(const FoldedDir& d);

/// The fold's reason as a report says it: `under .venv/ (a Python virtual environment);
/// symlinks leaving the project: 3`.
std::string fold_reason(const FoldedDir& d);

/// The reason of the tool's own tree a path lies in by its name (node_modules/, .venv/,
/// venv/, __pycache__/: the policy's place rules for a whole directory), "" if none.
std::string_view tool_tree(std::string_view path);

/// A label where a reason is ordinary inside a tool's own tree (a virtual environment's
/// `bin/python -> /usr/bin/python3`: "symlinks leaving the project"), "" where a person must
/// see it on its own line.
std::string_view ordinary_in_tree(std::string_view reason);

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

/// Columns `text` takes on a terminal (UTF-8: one per character; no wide characters are
/// assumed).
size_t text_width(std::string_view text);

/// `text` in at most `width` columns: cut in the middle with "..." as tig and git do for
/// paths (`node_modules/.../index.js`); unchanged if it fits.
std::string fit_middle(std::string_view text, size_t width);

/// `text` in at most `width` columns: cut at the end with "...".
std::string fit_end(std::string_view text, size_t width);

} // namespace ws::filters
