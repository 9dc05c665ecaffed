// Which directories of a report fold into one line, and how a screen's lines are shared.
#include "filters/fold.hpp"

#include <algorithm>
#include <unordered_map>

namespace ws::filters {

namespace {

/// Folds below `prefix` (the directory with its '/', or "" for the top) within [begin, end).
void fold_below(const std::vector<FoldItem>& items, std::string_view prefix, size_t begin,
                size_t end, size_t min_paths, std::vector<FoldedDir>& out) {
  for (size_t i = begin; i < end;) {
    std::string_view rest = items[i].path.substr(prefix.size());
    size_t slash = rest.find('/');
    if (slash == std::string_view::npos) {
      ++i; // a path directly in this directory: a line of its own
      continue;
    }
    // Every path below this child directory follows, contiguous in byte order.
    std::string_view child = items[i].path.substr(0, prefix.size() + slash + 1);
    size_t j = i + 1;
    bool uniform = items[i].foldable;
    for (; j < end && items[j].path.substr(0, child.size()) == child; ++j) {
      uniform = uniform && items[j].foldable && items[j].group == items[i].group &&
                items[j].reason == items[i].reason;
    }
    if (uniform && j - i >= min_paths) {
      FoldedDir d{std::string(child.substr(0, child.size() - 1)), i, j, 0, items[i].kind};
      for (size_t k = i; k < j; ++k) {
        d.deleted += items[k].kind == 'D' ? 1 : 0;
        d.kind = items[k].kind == d.kind ? d.kind : 0;
      }
      out.push_back(std::move(d));
    } else if (j - i >= min_paths) {
      fold_below(items, child, i, j, min_paths, out);
    }
    i = j;
  }
}

} // namespace

std::vector<FoldedDir> fold_directories(const std::vector<FoldItem>& items, std::string_view under,
                                        size_t min_paths) {
  std::vector<FoldedDir> out;
  std::string prefix = under.empty() ? std::string() : std::string(under) + "/";
  fold_below(items, prefix, 0, items.size(), std::max<size_t>(min_paths, 1), out);
  return out;
}

std::string with_commas(size_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) {
      out += ',';
    }
    out += digits[i];
  }
  return out;
}

std::string fold_count(const FoldedDir& d) {
  std::string out = with_commas(d.files()) + (d.files() == 1 ? " file" : " files");
  if (d.deleted > 0) {
    out += ", " + with_commas(d.deleted) + " deleted";
  }
  return out;
}

std::vector<std::string_view> fold_new_files(const std::vector<std::string_view>& paths,
                                             const std::vector<bool>& plain) {
  auto top = [](std::string_view path) {
    size_t slash = path.find('/');
    return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
  };
  std::unordered_map<std::string_view, size_t> plain_below;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (plain[i] && !top(paths[i]).empty()) {
      ++plain_below[top(paths[i])];
    }
  }
  std::vector<std::string_view> out(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    std::string_view dir = top(paths[i]);
    if (plain[i] && !dir.empty() && plain_below[dir] >= 2) {
      out[i] = dir;
    }
  }
  return out;
}

std::vector<size_t> share_lines(const std::vector<size_t>& wanted, size_t budget) {
  std::vector<size_t> got(wanted.size(), 0);
  for (size_t i = 0; i < wanted.size(); ++i) {
    if (wanted[i] > 0) {
      got[i] = 1;
      budget = budget > 0 ? budget - 1 : 0;
    }
  }
  for (bool more = true; more && budget > 0;) {
    more = false;
    for (size_t i = 0; i < wanted.size() && budget > 0; ++i) {
      if (got[i] < wanted[i]) {
        ++got[i];
        --budget;
        more = true;
      }
    }
  }
  return got;
}

} // namespace ws::filters
