// Which directories of the review's list fold into one row: the rule every report shares
// (filters/fold.hpp), on the review's groups.
#include "tui/fold.hpp"

#include "filters/fold.hpp"

namespace ws::tui {

std::vector<FoldedDir> fold_directories(const std::vector<FoldPath>& paths, std::string_view under,
                                        size_t min_paths) {
  std::vector<filters::FoldItem> items;
  items.reserve(paths.size());
  for (const FoldPath& p : paths) {
    items.push_back({p.path, static_cast<int>(p.group),
                     p.group == Group::Withheld || p.group == Group::Blocked, p.reason, 'A'});
  }
  std::vector<FoldedDir> out;
  for (auto& d : filters::fold_directories(items, under, min_paths)) {
    out.push_back({std::move(d.dir), d.begin, d.end});
  }
  return out;
}

} // namespace ws::tui
