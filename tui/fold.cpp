// Which directories of the review's list fold into one row: the rule every report shares
// (filters/fold.hpp), on the review's groups.
#include "tui/fold.hpp"

#include "filters/fold.hpp"

namespace ws::tui {

std::vector<FoldedDir> fold_directories(const std::vector<FoldPath>& paths, std::string_view under,
                                        size_t min_paths, size_t min_direct) {
  std::vector<filters::FoldItem> items;
  items.reserve(paths.size());
  for (const FoldPath& p : paths) {
    // Changes found before their verdicts fold too: that list is where they are, by directory.
    bool held = p.group == Group::Withheld || p.group == Group::Blocked || p.group == Group::Found;
    // A symlink leaving the project inside a tool's tree (a virtual environment's
    // bin/python) is counted in the tree's row, as the reports count it.
    std::string_view ordinary = held ? filters::ordinary_in_tree(p.reason) : std::string_view();
    std::string_view tree = ordinary.empty() ? std::string_view() : filters::tool_tree(p.path);
    items.emplace_back(p.path, static_cast<int>(p.group), held, p.reason, p.status, tree,
                       tree.empty() ? std::string_view() : ordinary);
  }
  std::vector<FoldedDir> out;
  for (auto& d : filters::fold_directories(items, under, min_paths, min_direct)) {
    FoldedDir f;
    f.dir = std::move(d.dir);
    f.begin = d.begin;
    f.end = d.end;
    f.reason = std::string(d.reason);
    std::string all = filters::fold_reason(d);
    f.note = all.size() > f.reason.size() + 2 ? all.substr(f.reason.size() + 2) : std::string();
    f.direct = d.direct;
    f.members = std::move(d.members);
    f.glob = std::move(d.glob);
    out.push_back(std::move(f));
  }
  return out;
}

} // namespace ws::tui
