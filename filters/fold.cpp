// Which directories of a report fold into one line, and how a screen's lines are shared.
#include "filters/fold.hpp"

#include "filters/policy_rules.hpp"

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <unordered_map>

namespace ws::filters {

namespace {

/// A pattern every name matches, as a person would type it: the extension they share
/// (`*.o`), the stem they share up to a separator (`git-*`), or `*`.
std::string glob_of(const std::vector<std::string_view>& names) {
  std::string_view first = names.front();
  size_t prefix = first.size(), suffix = first.size(), shortest = first.size();
  for (std::string_view n : names) {
    size_t p = 0;
    while (p < prefix && p < n.size() && n[p] == first[p]) {
      ++p;
    }
    prefix = p;
    size_t s = 0;
    while (s < suffix && s < n.size() && n[n.size() - 1 - s] == first[first.size() - 1 - s]) {
      ++s;
    }
    suffix = s;
    shortest = std::min(shortest, n.size());
  }
  std::string_view ext = first.substr(first.size() - suffix);
  size_t dot = ext.find('.');
  ext = dot == std::string_view::npos ? std::string_view() : ext.substr(dot);
  std::string_view stem = first.substr(0, prefix);
  size_t sep = stem.find_last_of("-_.");
  stem = sep == std::string_view::npos ? std::string_view() : stem.substr(0, sep + 1);
  if (stem.size() + ext.size() >= shortest) {
    stem = {}; // `a.o` and `a.b.o`: the extension says enough
  }
  return std::string(stem) + "*" + std::string(ext);
}

class Folder {
public:
  Folder(const std::vector<FoldItem>& items, size_t min_paths, size_t min_direct,
         std::vector<FoldedDir>& out)
      : m_items(items), m_min_paths(min_paths), m_min_direct(min_direct), m_out(out) {}

  /// Folds below `prefix` (the directory with its '/', or "" for the top) within [begin, end).
  void below(std::string_view prefix, size_t begin, size_t end) {
    std::vector<size_t> direct;
    for (size_t i = begin; i < end;) {
      std::string_view rest = m_items[i].path.substr(prefix.size());
      size_t slash = rest.find('/');
      if (slash == std::string_view::npos) {
        if (m_items[i].foldable) {
          direct.push_back(i);
        }
        ++i; // a path directly in this directory: a line of its own, or a direct fold
        continue;
      }
      // Every path below this child directory follows, contiguous in byte order.
      std::string_view child = m_items[i].path.substr(0, prefix.size() + slash + 1);
      size_t j = i + 1;
      while (j < end && m_items[j].path.substr(0, child.size()) == child) {
        ++j;
      }
      if (j - i >= m_min_paths) {
        if (!whole(child, i, j)) {
          below(child, i, j);
        }
      }
      i = j;
    }
    if (m_min_direct > 0 && direct.size() >= m_min_direct) {
      fold_direct(prefix, direct);
    }
  }

private:
  bool ordinary(const FoldItem& it) const { return !it.ordinary.empty() && !it.tree.empty(); }

  /// Folds [i, j), every path below `child`, into one line if they agree.
  bool whole(std::string_view child, size_t i, size_t j) {
    // The fold's reason is the first path's that is not merely ordinary in a tool's tree.
    size_t lead = i;
    while (lead < j && ordinary(m_items[lead])) {
      ++lead;
    }
    bool with_ordinary = lead < j;
    if (!with_ordinary) {
      lead = i; // all ordinary: they must then agree among themselves
    }
    const FoldItem& l = m_items[lead];
    FoldedDir d;
    std::unordered_map<std::string_view, size_t> others;
    for (size_t k = i; k < j; ++k) {
      const FoldItem& it = m_items[k];
      if (!it.foldable || it.group != l.group) {
        return false;
      }
      if (it.reason == l.reason) {
        continue;
      }
      if (!with_ordinary || !ordinary(it) || it.tree != l.reason) {
        return false;
      }
      ++others[it.ordinary];
    }
    d.dir = std::string(child.substr(0, child.size() - 1));
    d.begin = i;
    d.end = j;
    d.reason = l.reason;
    d.kind = m_items[i].kind;
    for (size_t k = i; k < j; ++k) {
      d.deleted += m_items[k].kind == 'D' ? 1 : 0;
      d.kind = m_items[k].kind == d.kind ? d.kind : 0;
    }
    d.ordinary.assign(others.begin(), others.end());
    std::sort(d.ordinary.begin(), d.ordinary.end());
    m_out.push_back(std::move(d));
    return true;
  }

  /// The files directly in `prefix`, by group and reason, each group of enough one line.
  void fold_direct(std::string_view prefix, const std::vector<size_t>& direct) {
    std::vector<size_t> order = direct;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return std::tie(m_items[a].group, m_items[a].reason) <
             std::tie(m_items[b].group, m_items[b].reason);
    });
    for (size_t s = 0; s < order.size();) {
      const FoldItem& first = m_items[order[s]];
      size_t e = s + 1;
      while (e < order.size() && m_items[order[e]].group == first.group &&
             m_items[order[e]].reason == first.reason) {
        ++e;
      }
      if (e - s >= m_min_direct) {
        FoldedDir d;
        d.dir = std::string(prefix.empty() ? prefix : prefix.substr(0, prefix.size() - 1));
        d.direct = true;
        d.reason = first.reason;
        d.members.assign(order.begin() + static_cast<std::ptrdiff_t>(s),
                         order.begin() + static_cast<std::ptrdiff_t>(e));
        std::sort(d.members.begin(), d.members.end());
        d.kind = m_items[d.members.front()].kind;
        std::vector<std::string_view> names;
        for (size_t k : d.members) {
          names.push_back(m_items[k].path.substr(prefix.size()));
          d.deleted += m_items[k].kind == 'D' ? 1 : 0;
          d.kind = m_items[k].kind == d.kind ? d.kind : 0;
        }
        d.glob = glob_of(names);
        m_out.push_back(std::move(d));
      }
      s = e;
    }
  }

  const std::vector<FoldItem>& m_items;
  size_t m_min_paths;
  size_t m_min_direct;
  std::vector<FoldedDir>& m_out;
};

/// A byte inside a UTF-8 character, not its first.
bool continuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

/// The longest prefix of `text` of at most `width` columns (whole characters).
std::string_view head(std::string_view text, size_t width) {
  size_t cols = 0, i = 0;
  for (; i < text.size(); ++i) {
    if (!continuation(text[i])) {
      if (cols == width) {
        break;
      }
      ++cols;
    }
  }
  return text.substr(0, i);
}

/// The longest suffix of `text` of at most `width` columns (whole characters).
std::string_view tail(std::string_view text, size_t width) {
  size_t cols = 0, i = text.size();
  while (i > 0 && cols < width) {
    --i;
    while (i > 0 && continuation(text[i])) {
      --i;
    }
    ++cols;
  }
  return text.substr(i);
}

} // namespace

std::string FoldedDir::shown() const {
  if (!direct) {
    return dir + "/";
  }
  return dir.empty() ? glob : dir + "/" + glob;
}

std::vector<FoldedDir> fold_directories(const std::vector<FoldItem>& items, std::string_view under,
                                        size_t min_paths, size_t min_direct) {
  std::vector<FoldedDir> out;
  std::string prefix = under.empty() ? std::string() : std::string(under) + "/";
  Folder(items, std::max<size_t>(min_paths, 1), min_direct, out).below(prefix, 0, items.size());
  std::stable_sort(out.begin(), out.end(),
                   [](const FoldedDir& a, const FoldedDir& b) { return a.first() < b.first(); });
  return out;
}

std::vector<size_t> fold_membership(const std::vector<FoldedDir>& dirs, size_t n) {
  std::vector<size_t> fold_of(n, SIZE_MAX);
  for (size_t d = 0; d < dirs.size(); ++d) {
    if (dirs[d].direct) {
      for (size_t k : dirs[d].members) {
        fold_of[k] = d;
      }
    } else {
      for (size_t k = dirs[d].begin; k < dirs[d].end; ++k) {
        fold_of[k] = d;
      }
    }
  }
  return fold_of;
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

std::string fold_reason(const FoldedDir& d) {
  std::string out(d.reason);
  for (const auto& [label, n] : d.ordinary) {
    out += "; " + std::string(label) + ": " + with_commas(n);
  }
  return out;
}

std::string_view tool_tree(std::string_view path) {
  const PlaceRule* rule = find_place(path);
  if (rule == nullptr) {
    return {};
  }
  std::string_view pattern = rule->pattern;
  return pattern.ends_with('/') ? std::string_view(rule->reason) : std::string_view();
}

std::string_view ordinary_in_tree(std::string_view reason) {
  // The policy's reasons for a symlink whose target leaves the project (policy.cpp,
  // symlink_problem): a virtual environment's interpreter links, a package manager's links to
  // a global store. A link into .git or a loop keeps its line.
  if (reason.starts_with("symlink to an absolute path (") ||
      reason.starts_with("symlink pointing outside the project (")) {
    return "symlinks leaving the project";
  }
  return {};
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

size_t text_width(std::string_view text) {
  return static_cast<size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return !continuation(c); }));
}

std::string fit_middle(std::string_view text, size_t width) {
  if (text_width(text) <= width) {
    return std::string(text);
  }
  if (width <= 3) {
    return std::string(head("...", width));
  }
  size_t room = width - 3;
  return std::string(head(text, room - room / 2)) + "..." + std::string(tail(text, room / 2));
}

std::string fit_end(std::string_view text, size_t width) {
  if (text_width(text) <= width) {
    return std::string(text);
  }
  if (width <= 3) {
    return std::string(head("...", width));
  }
  return std::string(head(text, width - 3)) + "...";
}

} // namespace ws::filters
