// The review model: cursor, scrolling and actions (decisions: review_decisions.cpp). Pure; the
// session loop does the asking.
#include "tui/review_model.hpp"

#include "tui/display.hpp"
#include "tui/hunks.hpp"
#include "tui/review_rows.hpp"

#include <algorithm>
#include <numeric>

namespace ws::tui {

namespace {

int group_rank(Group g) {
  return static_cast<int>(g);
}

} // namespace

std::vector<DiffRow> logical_rows(const FileEntry& f) {
  std::vector<DiffRow> rows;
  std::string title = std::string(1, f.status) + "  " +
                      (f.old_path != f.path ? f.old_path + " -> " + f.path : f.path);
  rows.push_back({DiffRow::Kind::Title, -1, -1, title});
  if (f.group == Group::Found) {
    // Said here, not held by each of 100,000 entries: the list is made while they load.
    rows.push_back({DiffRow::Kind::Note, -1, -1, "FOUND: deciding what may land"});
    rows.push_back({DiffRow::Kind::Note, -1, -1, "its diff shows once it has its verdict"});
  } else if (f.group != Group::Transfer) {
    std::string note = std::string(group_name(f.group)) + ": " + f.reason;
    if (f.overridable && !f.overridden) {
      note += "  (o: take it anyway)";
    } else if (f.overridden) {
      note += "  (taken on your request)";
    }
    rows.push_back({DiffRow::Kind::Note, -1, -1, note});
  }
  for (const auto& n : f.notes) {
    rows.push_back({DiffRow::Kind::Note, -1, -1, n});
  }
  if (!f.hunk_level && !f.hunks.empty() && f.group != Group::Blocked) {
    rows.push_back({DiffRow::Kind::Note, -1, -1, "taken or left as a whole file"});
  }
  for (size_t h = 0; h < f.hunks.size(); ++h) {
    rows.push_back({DiffRow::Kind::HunkHeader, static_cast<int>(h), -1, {}});
    for (size_t l = 0; l < f.hunks[h].lines.size(); ++l) {
      rows.push_back({DiffRow::Kind::Line, static_cast<int>(h), static_cast<int>(l), {}});
    }
  }
  return rows;
}

std::string_view row_text(const FileEntry* f, const DiffRow& r) {
  if (r.kind == DiffRow::Kind::Line && f) {
    std::string_view t =
        f->hunks[static_cast<size_t>(r.hunk)].lines[static_cast<size_t>(r.line)].text;
    return !t.empty() && t.back() == '\n' ? t.substr(0, t.size() - 1) : t;
  }
  return r.text;
}

std::string_view search_text(const FileEntry& f, const DiffRow& r) {
  if (r.kind == DiffRow::Kind::Line) {
    return f.hunks[static_cast<size_t>(r.hunk)].lines[static_cast<size_t>(r.line)].text;
  }
  return r.text;
}

const char* group_name(Group g) {
  switch (g) {
  case Group::Flagged:
    return "FLAGGED";
  case Group::Withheld:
    return "WITHHELD";
  case Group::Blocked:
    return "BLOCKED";
  case Group::Found:
    return "FOUND";
  default:
    return "transfer";
  }
}

std::string with_commas(size_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) {
      out += ',';
    }
    out += digits[i];
  }
  return out;
}

bool FileEntry::decidable() const {
  return group == Group::Transfer || group == Group::Flagged ||
         (group == Group::Withheld && overridden);
}

FileState file_state(const FileEntry& f) {
  if (!f.decidable()) {
    // Found: its verdict is not known yet, so it is not locked either.
    return f.group == Group::Found ? FileState::Undecided : FileState::Locked;
  }
  if (!f.hunk_level || f.hunks.empty()) {
    return f.decision == Decision::Accepted   ? FileState::Accepted
           : f.decision == Decision::Rejected ? FileState::Rejected
                                              : FileState::Undecided;
  }
  size_t a = 0, r = 0;
  for (const auto& h : f.hunks) {
    a += h.decision == Decision::Accepted ? 1 : 0;
    r += h.decision == Decision::Rejected ? 1 : 0;
  }
  if (a == f.hunks.size()) {
    return FileState::Accepted;
  }
  if (r == f.hunks.size()) {
    return FileState::Rejected;
  }
  return a + r == 0 ? FileState::Undecided : FileState::Partial;
}

ReviewModel::ReviewModel(Review review, DiffSource* source)
    : m_review(std::move(review)), m_source(source) {
  // Grouped as the person reads them: what lands, what lands loudly, what does not. Sorted
  // by index and moved once: a review of 100,000 files moves each entry one time.
  // The plan comes sorted by path: the groups are taken apart in one pass, and each is
  // sorted only if it is not already (100,000 path compares, not 1.7 million).
  auto& files = m_review.files;
  std::vector<size_t> order;
  order.reserve(files.size());
  for (Group g : {Group::Transfer, Group::Flagged, Group::Withheld, Group::Blocked, Group::Found}) {
    auto from = static_cast<std::ptrdiff_t>(order.size());
    for (size_t i = 0; i < files.size(); ++i) {
      if (group_rank(files[i].group) == group_rank(g)) {
        order.push_back(i);
      }
    }
    auto by_path = [&](size_t a, size_t b) { return files[a].path < files[b].path; };
    if (!std::is_sorted(order.begin() + from, order.end(), by_path)) {
      std::stable_sort(order.begin() + from, order.end(), by_path);
    }
  }
  std::vector<FileEntry> sorted;
  sorted.reserve(files.size());
  for (size_t i : order) {
    sorted.push_back(std::move(files[i]));
  }
  files = std::move(sorted);
  build_folds();
  rebuild_entries();
  select_entry(0);
}

FileEntry* ReviewModel::current() {
  return m_review.files.empty() || m_on_fold >= 0 ? nullptr : &m_review.files[m_selected];
}

const FileEntry* ReviewModel::selected_file() const {
  return m_review.files.empty() || m_on_fold >= 0 ? nullptr : &m_review.files[m_selected];
}

const Fold* ReviewModel::selected_fold() const {
  return m_on_fold >= 0 ? &m_folds[static_cast<size_t>(m_on_fold)] : nullptr;
}

void ReviewModel::set_page(int list_rows, int diff_rows, int diff_cols) {
  m_list_rows = std::max(1, list_rows);
  m_diff_rows = std::max(1, diff_rows);
  if (std::max(0, diff_cols) != m_diff_cols) {
    m_diff_cols = std::max(0, diff_cols);
    rebuild_rows();
  }
  keep_cursor_visible();
  // The list shows each file's +added -deleted: make them known for the rows on screen.
  auto first = std::upper_bound(m_entries.begin(), m_entries.end(), m_list_top,
                                [](size_t top, const ListEntry& e) { return top < e.row; });
  for (auto it = first == m_entries.begin() ? first : first - 1;
       it != m_entries.end() && it->row < m_list_top + static_cast<size_t>(m_list_rows); ++it) {
    if (it->kind == ListEntry::Kind::File && !m_review.files[it->index].counted) {
      ensure_loaded(it->index);
    }
  }
}

std::vector<DiffRow> ReviewModel::layout(std::vector<DiffRow> logical,
                                         const FileEntry* file) const {
  if (m_diff_cols <= 0) {
    for (size_t i = 0; i < logical.size(); ++i) {
      logical[i].logical = static_cast<int>(i);
    }
    return logical;
  }
  // Lines leave the origin column and the continuation marker's column; titles and notes
  // leave the marker's. Titles and notes (paths, reasons) wrap in scroll mode too.
  std::vector<DiffRow> out;
  out.reserve(logical.size());
  size_t cols = static_cast<size_t>(m_diff_cols);
  for (size_t i = 0; i < logical.size(); ++i) {
    DiffRow& r = logical[i];
    r.logical = static_cast<int>(i);
    bool line = r.kind == DiffRow::Kind::Line;
    if (r.kind == DiffRow::Kind::HunkHeader || (line && m_line_mode == LineMode::Scroll)) {
      out.push_back(std::move(r));
      continue;
    }
    size_t room = line ? (cols > 2 ? cols - 2 : 1) : (cols > 1 ? cols - 1 : 1);
    std::vector<Segment> segs = wrap(row_text(file, r), room);
    for (size_t k = 0; k < segs.size(); ++k) {
      DiffRow part = r;
      part.from = segs[k].from;
      part.to = segs[k].to;
      part.column = segs[k].column;
      part.more = k + 1 < segs.size();
      if (k + 1 == segs.size()) {
        part.text = std::move(r.text);
      }
      out.push_back(std::move(part));
    }
  }
  return out;
}

void ReviewModel::select_entry(size_t entry) {
  if (m_entries.empty()) {
    m_rows.clear();
    return;
  }
  m_cursor = std::min(entry, m_entries.size() - 1);
  const ListEntry& e = m_entries[m_cursor];
  if (e.kind == ListEntry::Kind::File) {
    m_on_fold = -1;
    m_selected = e.index;
    ensure_loaded(m_selected);
  } else {
    m_on_fold = static_cast<int>(e.index);
    m_selected = m_folds[e.index].begin;
  }
  m_hunk = 0;
  m_diff_top = 0;
  m_match_row = -1;
  rebuild_rows();
  keep_cursor_visible();
}

void ReviewModel::select_file(size_t index) {
  select_entry(reveal(index));
}

void ReviewModel::rebuild_rows() {
  // Keep the place: the row at the top stays at the top when the wrapping changes.
  int top = m_diff_top < static_cast<int>(m_rows.size())
                ? m_rows[static_cast<size_t>(m_diff_top)].logical
                : 0;
  int match = m_match_row >= 0 && m_match_row < static_cast<int>(m_rows.size())
                  ? m_rows[static_cast<size_t>(m_match_row)].logical
                  : -1;
  if (m_review.files.empty()) {
    m_rows.clear();
  } else if (m_on_fold >= 0) {
    m_rows = layout(rows_for_fold(m_folds[static_cast<size_t>(m_on_fold)]), nullptr);
  } else {
    const FileEntry& f = m_review.files[m_selected];
    m_rows = layout(logical_rows(f), &f);
  }
  m_diff_top = visual_row(top);
  m_match_row = match >= 0 ? visual_row(match) : -1;
}

int ReviewModel::visual_row(int logical) const {
  auto it = std::lower_bound(m_rows.begin(), m_rows.end(), logical,
                             [](const DiffRow& r, int l) { return r.logical < l; });
  return it == m_rows.end() ? std::max(0, static_cast<int>(m_rows.size()) - 1)
                            : static_cast<int>(it - m_rows.begin());
}

int ReviewModel::hunk_row(int h) const {
  for (size_t i = 0; i < m_rows.size(); ++i) {
    if (m_rows[i].kind == DiffRow::Kind::HunkHeader && m_rows[i].hunk == h) {
      return static_cast<int>(i);
    }
  }
  return 0;
}

void ReviewModel::scroll_to_hunk() {
  int row = hunk_row(m_hunk);
  if (row < m_diff_top || row >= m_diff_top + m_diff_rows - 1) {
    m_diff_top = std::max(0, row - 1);
  }
}

void ReviewModel::sync_hunk_to_scroll() {
  // The current hunk follows the scrolling: the first hunk with a row on screen.
  if (m_rows.empty()) {
    return;
  }
  int top = m_diff_top, bottom = m_diff_top + m_diff_rows;
  int first_visible = -1;
  for (int i = std::max(0, top); i < std::min<int>(bottom, static_cast<int>(m_rows.size())); ++i) {
    if (m_rows[static_cast<size_t>(i)].hunk == m_hunk) {
      return; // still on screen
    }
    if (first_visible < 0 && m_rows[static_cast<size_t>(i)].hunk >= 0) {
      first_visible = m_rows[static_cast<size_t>(i)].hunk;
    }
  }
  if (first_visible >= 0) {
    m_hunk = first_visible;
  }
}

bool moves_at_once(Action action) {
  switch (action) {
  case Action::Up:
  case Action::Down:
  case Action::PageUp:
  case Action::PageDown:
  case Action::Top:
  case Action::Bottom:
  case Action::NextFile:
  case Action::PrevFile:
  case Action::FoldUp:
    return true;
  default:
    return false;
  }
}

Effect ReviewModel::apply(Action action) {
  m_message.clear();
  if (m_review.provisional && !moves_at_once(action) &&
      !(action == Action::Open && selected_fold() != nullptr)) {
    m_message = "deciding what may land: this waits for the list of now";
    return Effect::Message;
  }
  FileEntry* f = current();
  int rows = static_cast<int>(m_rows.size());
  int hunks = f ? static_cast<int>(f->hunks.size()) : 0;
  bool in_files = m_focus == Focus::Files;
  size_t last = m_entries.empty() ? 0 : m_entries.size() - 1;
  size_t page = static_cast<size_t>(m_list_rows);
  auto scroll = [&](int by) {
    m_diff_top = std::clamp(m_diff_top + by, 0, std::max(0, rows - m_diff_rows));
    m_match_row = -1;
    sync_hunk_to_scroll();
  };
  switch (action) {
  case Action::Up:
    in_files ? select_entry(m_cursor > 0 ? m_cursor - 1 : 0) : scroll(-1);
    return Effect::None;
  case Action::Down:
    in_files ? select_entry(std::min(m_cursor + 1, last)) : scroll(1);
    return Effect::None;
  case Action::PageUp:
    in_files ? select_entry(m_cursor > page ? m_cursor - page : 0) : scroll(-m_diff_rows + 1);
    return Effect::None;
  case Action::PageDown:
    in_files ? select_entry(std::min(m_cursor + page, last)) : scroll(m_diff_rows - 1);
    return Effect::None;
  case Action::Top:
    in_files ? select_entry(0) : scroll(-rows);
    return Effect::None;
  case Action::Bottom:
    in_files ? select_entry(last) : scroll(rows);
    return Effect::None;
  case Action::NextHunk:
  case Action::PrevHunk: {
    if (hunks == 0) {
      m_message =
          m_on_fold >= 0 ? "a folded directory: Enter shows its files" : "no hunks in this file";
      return Effect::Message;
    }
    int next = m_hunk + (action == Action::NextHunk ? 1 : -1);
    if (next < 0 || next >= hunks) {
      m_message = next < 0 ? "first hunk" : "last hunk";
      return Effect::Message;
    }
    m_hunk = next;
    m_focus = Focus::Diff;
    scroll_to_hunk();
    return Effect::None;
  }
  case Action::NextFile:
    select_entry(std::min(m_cursor + 1, last));
    return Effect::None;
  case Action::PrevFile:
    select_entry(m_cursor > 0 ? m_cursor - 1 : 0);
    return Effect::None;
  case Action::Open:
    if (m_on_fold >= 0) {
      toggle_fold(static_cast<size_t>(m_on_fold));
      return Effect::None;
    }
    [[fallthrough]];
  case Action::ToggleFocus:
    m_focus = in_files ? Focus::Diff : Focus::Files;
    if (m_focus == Focus::Diff) {
      scroll_to_hunk();
    }
    return Effect::None;
  case Action::FoldUp:
    return fold_up();
  case Action::Accept:
    return decide(Decision::Accepted, false);
  case Action::Reject:
    return decide(Decision::Rejected, false);
  case Action::Undecide:
    return decide(Decision::Undecided, false);
  case Action::AcceptFile:
    return decide(Decision::Accepted, true);
  case Action::RejectFile:
    return decide(Decision::Rejected, true);
  case Action::Split:
    if (!f || !f->hunk_level || hunks == 0) {
      m_message = "only hunks of a text file changed in place can be split";
      return Effect::Message;
    }
    if (!split(m_selected, static_cast<size_t>(m_hunk))) {
      m_message = "this hunk has one change: it cannot be split further";
      return Effect::Message;
    }
    m_focus = Focus::Diff;
    scroll_to_hunk();
    return Effect::Changed;
  case Action::Override: {
    if (m_review.files.empty()) {
      return Effect::None;
    }
    // A folded directory is taken whole: every file in it must be one that may be taken.
    const Fold* fold = selected_fold();
    size_t from = fold ? fold->begin : m_selected, to = fold ? fold->end : m_selected + 1;
    const FileEntry& first = m_review.files[from];
    if (first.group != Group::Withheld) {
      m_message = first.group == Group::Blocked ? "never transferred: " + first.reason
                                                : "only a withheld file needs an override";
      return Effect::Message;
    }
    size_t takeable = 0, taken = 0;
    for (size_t i = from; i < to; ++i) {
      takeable += m_review.files[i].overridable ? 1 : 0;
      taken += m_review.files[i].overridden ? 1 : 0;
    }
    if (takeable < to - from) {
      m_message = "withheld (" + first.reason + ") and cannot be taken" +
                  (fold ? std::string(" (not every file of it): Enter shows them") : "");
      return Effect::Message;
    }
    if (taken == to - from) {
      m_message = "already taken on your request; r rejects it";
      return Effect::Message;
    }
    return Effect::AskOverride;
  }
  case Action::Search:
    return Effect::AskSearch;
  case Action::SearchNext:
  case Action::SearchPrev:
    if (m_search.empty()) {
      m_message = "no search yet: / searches";
      return Effect::Message;
    }
    return search_from(action == Action::SearchNext);
  case Action::Help:
    return Effect::ShowHelp;
  case Action::Finish:
    if (!any_accepted()) {
      m_message = "nothing accepted yet: a accepts, ? shows the keys";
      return Effect::Message;
    }
    return Effect::AskFinish;
  case Action::Quit:
    return any_decision() ? Effect::AskQuit : Effect::Quit;
  case Action::ToggleWrap:
    m_line_mode = m_line_mode == LineMode::Wrap ? LineMode::Scroll : LineMode::Wrap;
    m_hscroll = 0;
    rebuild_rows();
    m_message = m_line_mode == LineMode::Wrap
                    ? "long lines wrap (\\ ends a row that goes on)"
                    : "long lines are cut (> and < mark the cuts): h/l scroll sideways";
    return Effect::Message;
  case Action::ScrollLeft:
  case Action::ScrollRight: {
    if (m_line_mode == LineMode::Wrap) {
      m_message = "long lines wrap: w cuts them instead, then h/l scroll sideways";
      return Effect::Message;
    }
    // Half a pane at a time, so the columns at the edge stay in view.
    size_t step = std::max<size_t>(8, static_cast<size_t>(std::max(0, m_diff_cols)) / 2);
    m_hscroll = action == Action::ScrollRight ? m_hscroll + step
                                              : (m_hscroll > step ? m_hscroll - step : 0);
    return Effect::None;
  }
  }
  return Effect::None;
}

} // namespace ws::tui
