// Which directories of the review's list fold into one row.
#include "tui/fold.hpp"

namespace ws::tui {

namespace {

bool foldable(const FoldPath& p) {
  return p.group == Group::Withheld || p.group == Group::Blocked;
}

/// Folds below `prefix` (the directory with its '/', or "" for the top) within [begin, end).
void fold_below(const std::vector<FoldPath>& paths, std::string_view prefix, size_t begin,
                size_t end, size_t min_paths, std::vector<FoldedDir>& out) {
  for (size_t i = begin; i < end;) {
    std::string_view rest = paths[i].path.substr(prefix.size());
    size_t slash = rest.find('/');
    if (slash == std::string_view::npos) {
      ++i; // a path directly in this directory: a row of its own
      continue;
    }
    // Every path below this child directory follows, contiguous in byte order.
    std::string_view child = paths[i].path.substr(0, prefix.size() + slash + 1);
    size_t j = i + 1;
    bool uniform = foldable(paths[i]);
    for (; j < end && paths[j].path.substr(0, child.size()) == child; ++j) {
      uniform = uniform && paths[j].group == paths[i].group && paths[j].reason == paths[i].reason;
    }
    if (uniform && j - i >= min_paths) {
      out.push_back({std::string(child.substr(0, child.size() - 1)), i, j});
    } else if (j - i >= min_paths) {
      fold_below(paths, child, i, j, min_paths, out);
    }
    i = j;
  }
}

} // namespace

std::vector<FoldedDir> fold_directories(const std::vector<FoldPath>& paths, std::string_view under,
                                        size_t min_paths) {
  std::vector<FoldedDir> out;
  std::string prefix = under.empty() ? std::string() : std::string(under) + "/";
  fold_below(paths, prefix, 0, paths.size(), std::max<size_t>(min_paths, 1), out);
  return out;
}

} // namespace ws::tui
