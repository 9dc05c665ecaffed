// The review's list: files and folded directories, which of them are rows, where the
// cursor is, and what a folded directory's row and summary show.
#include "filters/fold.hpp"
#include "tui/fold.hpp"
#include "tui/review_model.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>

namespace ws::tui {

namespace {

/// The folds of `dirs` (found among `members`: model indices, in path order) as Folds.
void add_folds(const std::vector<FileEntry>& files, const std::vector<size_t>& members,
               const std::vector<FoldedDir>& dirs, int parent, std::vector<Fold>& out) {
  for (const auto& d : dirs) {
    Fold f;
    f.dir = d.dir;
    f.glob = d.direct ? d.glob : std::string();
    f.reason = d.reason;
    f.note = d.note;
    f.parent = parent;
    // One group, sorted by path within it (a direct fold's files listed together): a
    // fold's files are contiguous.
    f.begin = files.size();
    f.end = 0;
    auto take = [&](size_t k) {
      f.begin = std::min(f.begin, members[k]);
      f.end = std::max(f.end, members[k] + 1);
    };
    if (d.direct) {
      std::for_each(d.members.begin(), d.members.end(), take);
    } else {
      for (size_t k = d.begin; k < d.end; ++k) {
        take(k);
      }
    }
    if (f.end - f.begin != d.files()) {
      continue;
    }
    f.status = files[f.begin].status;
    for (size_t i = f.begin; i < f.end; ++i) {
      f.deleted += files[i].status == 'D' ? 1 : 0;
      f.status = files[i].status == f.status ? f.status : '*';
    }
    out.push_back(std::move(f));
  }
}

std::vector<FoldPath> fold_paths(const std::vector<FileEntry>& files,
                                 const std::vector<size_t>& members) {
  std::vector<FoldPath> paths;
  paths.reserve(members.size());
  for (size_t i : members) {
    paths.push_back({files[i].path, files[i].group, files[i].reason, files[i].status});
  }
  return paths;
}

/// Lists the files of each direct fold of `dirs` together, where the first of them is
/// (before the subdirectories whose paths sort between them), so that every fold is a range
/// of the list; the other files keep their places. `order` holds the indices of files
/// [first, first + order.size()) in the order `dirs` were found in (they index into it),
/// and follows each file to its new place. Returns, for each of those files, its new index
/// (empty when none moved).
std::vector<size_t> list_direct_together(std::vector<FileEntry>& files, size_t first,
                                         std::vector<size_t>& order,
                                         const std::vector<FoldedDir>& dirs) {
  if (std::none_of(dirs.begin(), dirs.end(), [](const FoldedDir& d) { return d.direct; })) {
    return {};
  }
  size_t n = order.size();
  std::vector<size_t> direct_of(n, SIZE_MAX); // by index into the range
  for (size_t d = 0; d < dirs.size(); ++d) {
    for (size_t k : dirs[d].members) {
      direct_of[order[k] - first] = d;
    }
  }
  std::vector<size_t> listed; // indices in their new order
  listed.reserve(n);
  for (size_t i = first; i < first + n; ++i) {
    size_t d = direct_of[i - first];
    if (d == SIZE_MAX) {
      listed.push_back(i);
    } else if (order[dirs[d].members.front()] == i) {
      for (size_t k : dirs[d].members) {
        listed.push_back(order[k]);
      }
    }
  }
  std::vector<size_t> moved_to(n);
  std::vector<FileEntry> relisted;
  relisted.reserve(n);
  for (size_t i : listed) {
    moved_to[i - first] = first + relisted.size();
    relisted.push_back(std::move(files[i]));
  }
  std::move(relisted.begin(), relisted.end(), files.begin() + static_cast<std::ptrdiff_t>(first));
  for (size_t& i : order) {
    i = moved_to[i - first];
  }
  return moved_to;
}

/// What folds directly below `fold` (a directory of one reason): directories, and with
/// `min_direct`, the files directly in a directory, that many or more of one reason
/// (`lib/*.js`), but not every file of the directory opened as one row again (the person
/// asked to see them). A directory holding one directory and nothing else would open onto a
/// single row: it is gone through, down to where the files spread out. Indices are into
/// files [fold.begin, fold.end), where each subdirectory's files are together.
std::vector<FoldedDir> dirs_below(const std::vector<FileEntry>& files, const Fold& fold,
                                  size_t min_direct) {
  std::vector<size_t> members(fold.files());
  std::iota(members.begin(), members.end(), fold.begin);
  std::vector<FoldPath> paths = fold_paths(files, members);
  auto below = [&](const std::string& dir) {
    std::vector<FoldedDir> dirs = fold_directories(paths, dir, 2, min_direct);
    std::erase_if(dirs, [&](const FoldedDir& d) { return d.direct && d.files() == paths.size(); });
    return dirs;
  };
  std::vector<FoldedDir> dirs = below(fold.dir);
  while (dirs.size() == 1 && !dirs[0].direct && dirs[0].begin == 0 && dirs[0].end == paths.size()) {
    dirs = below(dirs[0].dir);
  }
  return dirs;
}

const char* status_word(char status) {
  switch (status) {
  case 'A':
    return "added";
  case 'M':
    return "modified";
  case 'D':
    return "deleted";
  case 'R':
    return "renamed";
  case 'T':
    return "changed type";
  default:
    return "changed";
  }
}

} // namespace

void ReviewModel::build_folds() {
  m_folds.clear();
  auto& files = m_review.files;
  // The files are sorted by group, then path: merging the groups' runs sorts them by path.
  std::vector<size_t> order(files.size());
  std::iota(order.begin(), order.end(), 0);
  auto by_path = [&](size_t a, size_t b) { return files[a].path < files[b].path; };
  for (size_t end = 0; end < order.size();) {
    size_t run = end;
    while (run < order.size() && files[run].group == files[end].group) {
      ++run;
    }
    std::inplace_merge(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(end),
                       order.begin() + static_cast<std::ptrdiff_t>(run), by_path);
    end = run;
  }
  std::vector<FoldedDir> dirs =
      fold_directories(fold_paths(files, order), {}, 2, filters::k_direct_fold_min);
  list_direct_together(files, 0, order, dirs);
  add_folds(files, order, dirs, -1, m_folds);
}

std::vector<Fold> ReviewModel::children_of(size_t k, std::vector<size_t>& moved) {
  const Fold& fold = m_folds[k];
  if (!fold.glob.empty()) {
    return {}; // files directly in one directory: nothing below them folds
  }
  std::vector<size_t> members(fold.files());
  std::iota(members.begin(), members.end(), fold.begin);
  std::vector<FoldedDir> dirs = dirs_below(m_review.files, fold, filters::k_direct_fold_min);
  moved = list_direct_together(m_review.files, fold.begin, members, dirs);
  std::vector<Fold> out;
  add_folds(m_review.files, members, dirs, static_cast<int>(k), out);
  return out;
}

std::vector<Fold> ReviewModel::child_dirs(const Fold& fold) const {
  if (!fold.glob.empty()) {
    return {};
  }
  std::vector<size_t> members(fold.files());
  std::iota(members.begin(), members.end(), fold.begin);
  std::vector<Fold> out;
  add_folds(m_review.files, members, dirs_below(m_review.files, fold, 0), -1, out);
  return out;
}

void ReviewModel::expand(size_t k, size_t* track) {
  if (!m_folds[k].children_known) {
    std::vector<size_t> moved;
    std::vector<Fold> children = children_of(k, moved);
    // Its files listed anew (a direct fold's together): whatever pointed at one follows it.
    size_t first = m_folds[k].begin, end = m_folds[k].end;
    auto follow_file = [&](size_t& i) {
      if (!moved.empty() && i >= first && i < end) {
        i = moved[i - first];
      }
    };
    follow_file(m_selected);
    std::for_each(m_cache.begin(), m_cache.end(), follow_file);
    follow_file(m_job.start);
    if (track) {
      follow_file(*track);
    }
    m_folds.insert(m_folds.end(), children.begin(), children.end());
    m_folds[k].children_known = true;
  }
  m_folds[k].expanded = true;
}

void ReviewModel::rebuild_entries() {
  m_entries.clear();
  m_collapsed.clear();
  const auto& files = m_review.files;
  // Folds by first file, the outer one first where two begin at the same file.
  std::vector<size_t> by_begin(m_folds.size());
  std::iota(by_begin.begin(), by_begin.end(), 0);
  std::sort(by_begin.begin(), by_begin.end(), [&](size_t a, size_t b) {
    const Fold &x = m_folds[a], &y = m_folds[b];
    return x.begin != y.begin ? x.begin < y.begin : x.end > y.end;
  });
  std::vector<size_t> open; // ends of the expanded folds the walk is in
  size_t row = 0, k = 0;
  int last_group = -1;
  auto add = [&](ListEntry e, Group g) {
    while (!open.empty() &&
           open.back() <= (e.kind == ListEntry::Kind::File ? e.index : m_folds[e.index].begin)) {
      open.pop_back();
    }
    e.header = static_cast<int>(g) != last_group;
    last_group = static_cast<int>(g);
    row += e.header ? 1 : 0;
    e.row = row;
    // Within an expanded directory the reason is its row's: not repeated under each file.
    // Changes found before their verdicts have none yet (the title says so).
    e.reason = g != Group::Transfer && g != Group::Found && open.empty();
    row += e.reason ? 2 : 1;
    m_entries.push_back(e);
  };
  for (size_t i = 0; i < files.size();) {
    while (k < by_begin.size() && m_folds[by_begin[k]].begin < i) {
      ++k; // inside a folded directory passed over, or one already listed
    }
    bool skipped = false;
    for (; k < by_begin.size() && m_folds[by_begin[k]].begin == i; ++k) {
      const Fold& f = m_folds[by_begin[k]];
      if (f.parent >= 0 && !m_folds[static_cast<size_t>(f.parent)].expanded) {
        continue; // below a directory that is folded
      }
      add({ListEntry::Kind::Fold, false, false, by_begin[k], 0}, files[i].group);
      if (!f.expanded) {
        m_collapsed.emplace_back(f.begin, f.end, by_begin[k]);
        i = f.end;
        skipped = true;
        break;
      }
      open.push_back(f.end);
    }
    if (!skipped) {
      add({ListEntry::Kind::File, false, false, i, 0}, files[i].group);
      ++i;
    }
  }
}

size_t ReviewModel::list_row_count() const {
  return m_entries.empty() ? 0 : m_entries.back().row + (m_entries.back().reason ? 2 : 1);
}

void ReviewModel::keep_cursor_visible() {
  if (m_entries.empty()) {
    m_list_top = 0;
    return;
  }
  size_t rows = static_cast<size_t>(m_list_rows), total = list_row_count();
  m_list_top = std::min(m_list_top, total > rows ? total - rows : 0);
  const ListEntry& e = m_entries[m_cursor];
  size_t first = e.row - (e.header ? 1 : 0), last = e.row + (e.reason ? 2 : 1);
  if (last > m_list_top + rows) {
    m_list_top = last > rows ? last - rows : 0;
  }
  if (first < m_list_top) {
    m_list_top = first;
  }
}

void ReviewModel::toggle_fold(size_t k) {
  if (m_folds[k].expanded) {
    m_folds[k].expanded = false;
  } else {
    expand(k);
  }
  rebuild_entries();
  for (size_t e = 0; e < m_entries.size(); ++e) {
    if (m_entries[e].kind == ListEntry::Kind::Fold && m_entries[e].index == k) {
      int hunk = m_hunk;
      select_entry(e);
      m_hunk = hunk;
      return;
    }
  }
}

Effect ReviewModel::fold_up() {
  // The innermost expanded directory around the cursor: the row itself when it is one.
  size_t from = m_selected, to = m_selected + 1;
  if (m_on_fold >= 0) {
    const Fold& at = m_folds[static_cast<size_t>(m_on_fold)];
    if (at.expanded) {
      toggle_fold(static_cast<size_t>(m_on_fold));
      return Effect::None;
    }
    from = at.begin;
    to = at.end;
  }
  int best = -1;
  for (size_t k = 0; k < m_folds.size(); ++k) {
    const Fold& f = m_folds[k];
    if (f.expanded && f.begin <= from && to <= f.end && static_cast<int>(k) != m_on_fold &&
        (best < 0 || f.files() < m_folds[static_cast<size_t>(best)].files())) {
      best = static_cast<int>(k);
    }
  }
  if (best < 0) {
    m_message = "not in an expanded directory (Enter on a folded one shows its files)";
    return Effect::Message;
  }
  m_folds[static_cast<size_t>(best)].expanded = false;
  rebuild_entries();
  for (size_t e = 0; e < m_entries.size(); ++e) {
    if (m_entries[e].kind == ListEntry::Kind::Fold &&
        m_entries[e].index == static_cast<size_t>(best)) {
      select_entry(e);
      break;
    }
  }
  return Effect::None;
}

bool ReviewModel::follow(const ReviewModel& other) {
  if (other.m_entries.empty() || m_entries.empty()) {
    return false;
  }
  set_page(other.m_list_rows, other.m_diff_rows, other.m_diff_cols); // the same screen
  // Its expanded directories, outer ones first (a fold is found after the one it is in).
  // A directory of changes found before their verdicts is the same directory in any group.
  auto group_of = [](const ReviewModel& m, const Fold& f) {
    return m.m_review.files[f.begin].group;
  };
  auto same_group = [&](const Fold& mine, const Fold& theirs) {
    Group g = group_of(other, theirs);
    return g == Group::Found || group_of(*this, mine) == g;
  };
  for (const Fold& theirs : other.m_folds) {
    if (!theirs.expanded) {
      continue;
    }
    for (size_t k = 0; k < m_folds.size(); ++k) {
      const Fold& mine = m_folds[k];
      if (!mine.expanded && mine.dir == theirs.dir && mine.glob == theirs.glob &&
          same_group(mine, theirs) &&
          (mine.parent < 0 || m_folds[static_cast<size_t>(mine.parent)].expanded)) {
        expand(k);
        break;
      }
    }
  }
  rebuild_entries();
  // The cursor on the same row where that row is still listed; else as far down the list.
  const ListEntry& at = other.m_entries[other.m_cursor];
  size_t target = std::min(other.m_cursor, m_entries.size() - 1);
  bool found = false;
  if (at.kind == ListEntry::Kind::Fold) {
    const Fold& theirs = other.m_folds[at.index];
    for (size_t e = 0; e < m_entries.size(); ++e) {
      if (m_entries[e].kind == ListEntry::Kind::Fold &&
          m_folds[m_entries[e].index].dir == theirs.dir &&
          m_folds[m_entries[e].index].glob == theirs.glob &&
          same_group(m_folds[m_entries[e].index], theirs)) {
        target = e;
        found = true;
        break;
      }
    }
    // A directory found before the verdicts that does not fold now (its files transfer):
    // the cursor on its first file. Still not found: keys typed for the directory would
    // act on one file.
    std::string below = theirs.dir + "/";
    for (size_t i = 0; !found && group_of(other, theirs) == Group::Found && theirs.glob.empty() &&
                       i < m_review.files.size();
         ++i) {
      if (m_review.files[i].path.starts_with(below)) {
        target = reveal(i);
        break;
      }
    }
  } else {
    const std::string& path = other.m_review.files[at.index].path;
    for (size_t i = 0; i < m_review.files.size(); ++i) {
      if (m_review.files[i].path == path) {
        target = reveal(i);
        found = true;
        break;
      }
    }
  }
  size_t screen_row = at.row - std::min(at.row, other.m_list_top);
  select_entry(target);
  const ListEntry& now = m_entries[m_cursor];
  m_list_top = now.row - std::min(now.row, screen_row);
  keep_cursor_visible();
  return found;
}

size_t ReviewModel::entry_of_file(size_t index) const {
  auto first_file = [this](const ListEntry& e) {
    return e.kind == ListEntry::Kind::File ? e.index : m_folds[e.index].begin;
  };
  auto it = std::lower_bound(m_entries.begin(), m_entries.end(), index,
                             [&](const ListEntry& e, size_t i) { return first_file(e) < i; });
  for (; it != m_entries.end() && first_file(*it) == index; ++it) {
    if (it->kind == ListEntry::Kind::File) {
      return static_cast<size_t>(it - m_entries.begin());
    }
  }
  return static_cast<size_t>(-1);
}

int ReviewModel::hiding_fold(size_t index) const {
  auto it = std::upper_bound(m_collapsed.begin(), m_collapsed.end(), index,
                             [](size_t i, const auto& c) { return i < std::get<0>(c); });
  if (it == m_collapsed.begin()) {
    return -1;
  }
  --it;
  return index < std::get<1>(*it) ? static_cast<int>(std::get<2>(*it)) : -1;
}

size_t ReviewModel::reveal(size_t index) {
  for (;;) {
    size_t e = entry_of_file(index);
    int k = hiding_fold(index);
    if (e != static_cast<size_t>(-1) || k < 0) {
      return e == static_cast<size_t>(-1) ? 0 : e;
    }
    expand(static_cast<size_t>(k), &index);
    rebuild_entries();
  }
}

FileState ReviewModel::fold_state(const Fold& fold) const {
  size_t accepted = 0, rejected = 0, locked = 0, partial = 0;
  for (size_t i = fold.begin; i < fold.end; ++i) {
    switch (file_state(m_review.files[i])) {
    case FileState::Accepted:
      ++accepted;
      break;
    case FileState::Rejected:
      ++rejected;
      break;
    case FileState::Locked:
      ++locked;
      break;
    case FileState::Partial:
      ++partial;
      break;
    default:
      break;
    }
  }
  size_t n = fold.files();
  if (locked == n) {
    return FileState::Locked;
  }
  if (accepted == n) {
    return FileState::Accepted;
  }
  if (rejected == n) {
    return FileState::Rejected;
  }
  return accepted + rejected + partial == 0 ? FileState::Undecided : FileState::Partial;
}

std::vector<DiffRow> ReviewModel::rows_for_fold(const Fold& fold) const {
  const auto& files = m_review.files;
  const FileEntry& first = files[fold.begin];
  std::vector<DiffRow> rows;
  auto note = [&rows](std::string text) {
    rows.push_back({DiffRow::Kind::Note, -1, -1, std::move(text)});
  };
  rows.push_back({DiffRow::Kind::Title, -1, -1,
                  std::string(1, fold.status) + "  " + fold.shown() + "  (" +
                      with_commas(fold.files()) + " files)"});
  size_t overridden = 0;
  std::map<char, size_t> by_status;
  for (size_t i = fold.begin; i < fold.end; ++i) {
    overridden += files[i].overridden ? 1 : 0;
    ++by_status[files[i].status];
  }
  std::string verdict =
      std::string(group_name(first.group)) + ": " +
      (first.group == Group::Found ? std::string("deciding what may land") : fold.full_reason());
  if (overridden == fold.files()) {
    verdict += "  (taken on your request)";
  } else if (first.overridable) {
    verdict += "  (o: take them all anyway)";
  }
  note(verdict);
  // Deletions are never hidden in a count: each kind of change is counted.
  std::string kinds;
  for (const auto& [status, n] : by_status) {
    kinds += (kinds.empty() ? "" : ", ") + with_commas(n) + " " + status_word(status);
  }
  note(kinds);
  note(fold.expanded ? "listed on the left: Enter or z folds them again"
       : first.group == Group::Found
           ? "Enter lists them; decisions wait for their verdicts"
           : "Enter lists them; a decision here applies to every one of them");
  note("");
  // What is directly below: its directories with their counts, then its files.
  constexpr size_t k_shown = 200;
  size_t prefix = fold.dir.empty() ? 0 : fold.dir.size() + 1, shown = 0, more = 0;
  for (size_t i = fold.begin; i < fold.end;) {
    std::string_view rest = std::string_view(files[i].path).substr(prefix);
    size_t slash = rest.find('/');
    size_t j = i + 1;
    if (slash != std::string_view::npos) {
      std::string_view child = std::string_view(files[i].path).substr(0, prefix + slash + 1);
      while (j < fold.end && std::string_view(files[j].path).substr(0, child.size()) == child) {
        ++j;
      }
    }
    if (shown < k_shown) {
      note(slash == std::string_view::npos
               ? std::string(1, files[i].status) + " " + std::string(rest)
               : "  " + std::string(rest.substr(0, slash + 1)) + "  " + with_commas(j - i) +
                     (j - i == 1 ? " file" : " files"));
      ++shown;
    } else {
      ++more;
    }
    i = j;
  }
  if (more > 0) {
    note("... and " + with_commas(more) + " more");
  }
  return rows;
}

} // namespace ws::tui
