// The review model: cursor, decisions and actions. Pure; the session loop does the asking.
#include "tui/review_model.hpp"

#include "tui/display.hpp"
#include "tui/hunks.hpp"

#include <algorithm>

namespace ws::tui {

namespace {

int group_rank(Group g) {
  return static_cast<int>(g);
}

/// The rows of one file's diff pane, one per line or note (unwrapped).
std::vector<DiffRow> logical_rows(const FileEntry& f) {
  std::vector<DiffRow> rows;
  std::string title = std::string(1, f.status) + "  " +
                      (f.old_path != f.path ? f.old_path + " -> " + f.path : f.path);
  rows.push_back({DiffRow::Kind::Title, -1, -1, title});
  if (f.group != Group::Transfer) {
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

/// The text a row shows, without a line's '\n'.
std::string_view row_text(const FileEntry& f, const DiffRow& r) {
  if (r.kind == DiffRow::Kind::Line) {
    std::string_view t =
        f.hunks[static_cast<size_t>(r.hunk)].lines[static_cast<size_t>(r.line)].text;
    return !t.empty() && t.back() == '\n' ? t.substr(0, t.size() - 1) : t;
  }
  return r.text;
}

std::string search_text(const FileEntry& f, const DiffRow& r) {
  if (r.kind == DiffRow::Kind::Line) {
    return f.hunks[static_cast<size_t>(r.hunk)].lines[static_cast<size_t>(r.line)].text;
  }
  return r.text;
}

} // namespace

const char* group_name(Group g) {
  switch (g) {
  case Group::Flagged:
    return "FLAGGED";
  case Group::Withheld:
    return "WITHHELD";
  case Group::Blocked:
    return "BLOCKED";
  default:
    return "transfer";
  }
}

bool FileEntry::decidable() const {
  return group == Group::Transfer || group == Group::Flagged ||
         (group == Group::Withheld && overridden);
}

FileState file_state(const FileEntry& f) {
  if (!f.decidable()) {
    return FileState::Locked;
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

ReviewModel::ReviewModel(Review review) : m_review(std::move(review)) {
  // Grouped as the person reads them: what lands, what lands loudly, what does not.
  std::stable_sort(m_review.files.begin(), m_review.files.end(),
                   [](const FileEntry& a, const FileEntry& b) {
                     if (a.group != b.group) {
                       return group_rank(a.group) < group_rank(b.group);
                     }
                     return a.path < b.path;
                   });
  select(0);
}

const FileEntry* ReviewModel::selected_file() const {
  return m_review.files.empty() ? nullptr : &m_review.files[m_selected];
}

void ReviewModel::set_page(int list_rows, int diff_rows, int diff_cols) {
  m_list_rows = std::max(1, list_rows);
  m_diff_rows = std::max(1, diff_rows);
  if (std::max(0, diff_cols) != m_diff_cols) {
    m_diff_cols = std::max(0, diff_cols);
    rebuild_rows();
  }
}

std::vector<DiffRow> ReviewModel::rows_for(const FileEntry& f) const {
  std::vector<DiffRow> logical = logical_rows(f);
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
    std::vector<Segment> segs = wrap(row_text(f, r), room);
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

void ReviewModel::select(size_t index) {
  if (m_review.files.empty()) {
    m_rows.clear();
    return;
  }
  m_selected = std::min(index, m_review.files.size() - 1);
  m_hunk = 0;
  m_diff_top = 0;
  m_match_row = -1;
  rebuild_rows();
}

void ReviewModel::rebuild_rows() {
  // Keep the place: the row at the top stays at the top when the wrapping changes.
  int top = m_diff_top < static_cast<int>(m_rows.size())
                ? m_rows[static_cast<size_t>(m_diff_top)].logical
                : 0;
  int match = m_match_row >= 0 && m_match_row < static_cast<int>(m_rows.size())
                  ? m_rows[static_cast<size_t>(m_match_row)].logical
                  : -1;
  m_rows = m_review.files.empty() ? std::vector<DiffRow>{} : rows_for(m_review.files[m_selected]);
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

Effect ReviewModel::decide(Decision d, bool whole_file) {
  FileEntry* f = current();
  if (!f) {
    return Effect::None;
  }
  if (!f->decidable()) {
    m_message = f->group == Group::Blocked
                    ? "never transferred: " + f->reason
                    : "withheld (" + f->reason + "): press o to take it anyway";
    if (f->group == Group::Withheld && !f->overridable) {
      m_message = "withheld (" + f->reason + ") and cannot be taken";
    }
    return Effect::Message;
  }
  bool per_hunk = !whole_file && m_focus == Focus::Diff && f->hunk_level && !f->hunks.empty();
  if (per_hunk) {
    f->hunks[static_cast<size_t>(m_hunk)].decision = d;
    // Like `git add -p`: on to the next hunk.
    if (m_hunk + 1 < static_cast<int>(f->hunks.size())) {
      ++m_hunk;
      scroll_to_hunk();
    }
    return Effect::Changed;
  }
  f->decision = d;
  for (auto& h : f->hunks) {
    h.decision = f->hunk_level ? d : Decision::Undecided;
  }
  if (m_focus == Focus::Files && m_selected + 1 < m_review.files.size()) {
    select(m_selected + 1);
  }
  return Effect::Changed;
}

bool ReviewModel::split(size_t f, size_t h) {
  if (f >= m_review.files.size() || h >= m_review.files[f].hunks.size()) {
    return false;
  }
  FileEntry& file = m_review.files[f];
  std::vector<Hunk> parts = split_hunk(file.hunks[h]);
  if (parts.empty()) {
    return false;
  }
  m_splits.emplace_back(file.path, file.hunks[h].key());
  file.hunks.erase(file.hunks.begin() + static_cast<std::ptrdiff_t>(h));
  file.hunks.insert(file.hunks.begin() + static_cast<std::ptrdiff_t>(h), parts.begin(),
                    parts.end());
  if (f == m_selected) {
    rebuild_rows();
  }
  return true;
}

Effect ReviewModel::apply(Action action) {
  m_message.clear();
  FileEntry* f = current();
  int rows = static_cast<int>(m_rows.size());
  int hunks = f ? static_cast<int>(f->hunks.size()) : 0;
  bool in_files = m_focus == Focus::Files;
  size_t last = m_review.files.empty() ? 0 : m_review.files.size() - 1;
  auto scroll = [&](int by) {
    m_diff_top = std::clamp(m_diff_top + by, 0, std::max(0, rows - m_diff_rows));
    m_match_row = -1;
    sync_hunk_to_scroll();
  };
  switch (action) {
  case Action::Up:
    in_files ? select(m_selected > 0 ? m_selected - 1 : 0) : scroll(-1);
    return Effect::None;
  case Action::Down:
    in_files ? select(std::min(m_selected + 1, last)) : scroll(1);
    return Effect::None;
  case Action::PageUp:
    in_files ? select(m_selected > size_t(m_list_rows) ? m_selected - size_t(m_list_rows) : 0)
             : scroll(-m_diff_rows + 1);
    return Effect::None;
  case Action::PageDown:
    in_files ? select(std::min(m_selected + size_t(m_list_rows), last)) : scroll(m_diff_rows - 1);
    return Effect::None;
  case Action::Top:
    in_files ? select(0) : scroll(-rows);
    return Effect::None;
  case Action::Bottom:
    in_files ? select(last) : scroll(rows);
    return Effect::None;
  case Action::NextHunk:
  case Action::PrevHunk: {
    if (hunks == 0) {
      m_message = "no hunks in this file";
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
    select(std::min(m_selected + 1, last));
    return Effect::None;
  case Action::PrevFile:
    select(m_selected > 0 ? m_selected - 1 : 0);
    return Effect::None;
  case Action::ToggleFocus:
    m_focus = in_files ? Focus::Diff : Focus::Files;
    if (m_focus == Focus::Diff) {
      scroll_to_hunk();
    }
    return Effect::None;
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
  case Action::Override:
    if (!f || f->group != Group::Withheld) {
      m_message = f && f->group == Group::Blocked ? "never transferred: " + f->reason
                                                  : "only a withheld file needs an override";
      return Effect::Message;
    }
    if (!f->overridable) {
      m_message = "withheld (" + f->reason + ") and cannot be taken";
      return Effect::Message;
    }
    if (f->overridden) {
      m_message = "already taken on your request; r rejects it";
      return Effect::Message;
    }
    return Effect::AskOverride;
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

Effect ReviewModel::confirm_override() {
  FileEntry* f = current();
  if (!f || f->group != Group::Withheld || !f->overridable) {
    return Effect::None;
  }
  f->overridden = true;
  f->decision = Decision::Accepted;
  for (auto& h : f->hunks) {
    h.decision = f->hunk_level ? Decision::Accepted : Decision::Undecided;
  }
  rebuild_rows();
  m_message = "taking withheld " + f->path;
  return Effect::Changed;
}

Effect ReviewModel::search(const std::string& text) {
  if (!text.empty()) {
    m_search = text;
  }
  if (m_search.empty()) {
    return Effect::None;
  }
  return search_from(true);
}

Effect ReviewModel::search_from(bool forward) {
  // Positions: (file, row), row -1 being the file's name in the list.
  size_t n = m_review.files.size();
  if (n == 0) {
    return Effect::None;
  }
  // Searched unwrapped: a match may straddle two rows of a wrapped line.
  int here = m_focus == Focus::Files ? -1 : m_match_row >= 0 ? m_match_row : m_diff_top;
  if (here >= 0 && here < static_cast<int>(m_rows.size())) {
    here = m_rows[static_cast<size_t>(here)].logical;
  }
  auto hits = [&](size_t fi, int row, const std::vector<DiffRow>& rs) {
    const FileEntry& f = m_review.files[fi];
    std::string text = row < 0 ? f.path : search_text(f, rs[static_cast<size_t>(row)]);
    return text.find(m_search) != std::string::npos;
  };
  for (size_t step = 0; step <= n; ++step) {
    size_t fi = forward ? (m_selected + step) % n : (m_selected + n - step % n) % n;
    std::vector<DiffRow> rs = logical_rows(m_review.files[fi]);
    int count = static_cast<int>(rs.size());
    std::vector<int> order;
    for (int r = -1; r < count; ++r) {
      order.push_back(r);
    }
    if (!forward) {
      std::reverse(order.begin(), order.end());
    }
    for (int r : order) {
      if (step == 0 && (forward ? r <= here : r >= here)) {
        continue; // only past the cursor in the current file
      }
      if (step == n && (forward ? r > here : r < here)) {
        continue; // wrapped around: up to the cursor
      }
      if (!hits(fi, r, rs)) {
        continue;
      }
      if (fi != m_selected) {
        select(fi);
      }
      if (r < 0) {
        m_focus = Focus::Files;
      } else {
        m_focus = Focus::Diff;
        int v = visual_row(r);
        m_diff_top = std::max(0, v - 2);
        m_match_row = v;
        m_hunk = std::max(0, m_rows[static_cast<size_t>(v)].hunk);
      }
      return Effect::None;
    }
  }
  m_message = "not found: " + m_search;
  return Effect::Message;
}

size_t ReviewModel::decided_files() const {
  return static_cast<size_t>(
      std::count_if(m_review.files.begin(), m_review.files.end(), [](const FileEntry& f) {
        FileState s = file_state(f);
        if (s == FileState::Partial) {
          return std::none_of(f.hunks.begin(), f.hunks.end(),
                              [](const Hunk& h) { return h.decision == Decision::Undecided; });
        }
        return s == FileState::Accepted || s == FileState::Rejected;
      }));
}

bool ReviewModel::any_decision() const {
  return std::any_of(m_review.files.begin(), m_review.files.end(), [](const FileEntry& f) {
    return f.overridden || f.decision != Decision::Undecided ||
           std::any_of(f.hunks.begin(), f.hunks.end(),
                       [](const Hunk& h) { return h.decision != Decision::Undecided; });
  });
}

bool ReviewModel::any_accepted() const {
  return std::any_of(m_review.files.begin(), m_review.files.end(), [](const FileEntry& f) {
    FileState s = file_state(f);
    return s == FileState::Accepted ||
           (s == FileState::Partial &&
            std::any_of(f.hunks.begin(), f.hunks.end(),
                        [](const Hunk& h) { return h.decision == Decision::Accepted; }));
  });
}

} // namespace ws::tui
