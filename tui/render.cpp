// Rendering the review into a Frame: the file list on the left, the diff on the right.
#include "tui/render.hpp"

#include "tui/display.hpp"
#include "tui/keymap.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>

namespace ws::tui {

namespace {

/// Fills one row left to right, never past its width. Text goes through GlyphScanner:
/// notations come out in Style::Marker, and when text does not fit, the row's last column
/// becomes a cut marker, so nothing ever ends silently at the edge.
class RowBuilder {
public:
  RowBuilder(Row& row, size_t width) : m_row(row), m_left(width) {}
  /// Adds `raw` (any bytes) from byte `from`, which is at display column `column`; each
  /// glyph in the style `style_at` gives for its first byte.
  template <class StyleAt>
  RowBuilder& add_styled(std::string_view raw, StyleAt style_at, size_t from = 0, size_t column = 0,
                         size_t to = std::string_view::npos) {
    GlyphScanner s(raw.substr(0, std::min(to, raw.size())), from, column);
    Glyph g;
    while (!m_cut && s.next(g)) {
      if (g.width > m_left) {
        cut();
        break;
      }
      put(g.text, g.width, g.marked ? Style::Marker : style_at(g.byte));
    }
    return *this;
  }
  RowBuilder& add(std::string_view raw, Style style) {
    return add_styled(raw, [style](size_t) { return style; });
  }
  /// Adds a marker ws draws itself (a cut or a continuation), if there is room.
  RowBuilder& marker(std::string_view text) {
    if (!m_cut && text.size() <= m_left) {
      put(text, text.size(), Style::Marker);
    }
    return *this;
  }
  /// Pads with blanks in `style` to the row's end.
  void fill(Style style) { pad(m_left, style); }
  void pad(size_t n, Style style) {
    n = std::min(n, m_left);
    if (n > 0) {
      put(std::string(n, ' '), n, style);
    }
  }
  size_t left() const { return m_left; }
  bool was_cut() const { return m_cut; }

private:
  void put(std::string_view text, size_t width, Style style) {
    if (!m_row.spans.empty() && m_row.spans.back().style == style) {
      m_row.spans.back().text += text; // one span per run of a style
    } else {
      m_row.spans.push_back({std::string(text), style});
    }
    m_widths.push_back({m_row.spans.size() - 1, text.size(), width});
    m_left -= width;
  }
  /// Frees the last column for the cut marker, taking back whole glyphs (a notation such
  /// as <U+202E> is never half shown), then draws it.
  void cut() {
    m_cut = true;
    while (m_left < 1 && !m_widths.empty()) {
      Placed p = m_widths.back();
      m_widths.pop_back();
      std::string& t = m_row.spans[p.span].text;
      t.resize(t.size() - p.bytes);
      m_left += p.width;
      if (t.empty()) {
        m_row.spans.erase(m_row.spans.begin() + static_cast<std::ptrdiff_t>(p.span));
      }
    }
    if (m_left >= 1) {
      std::string blanks(m_left - 1, ' ');
      if (!blanks.empty()) {
        m_row.spans.push_back({blanks, Style::Normal});
      }
      m_row.spans.push_back({">", Style::Marker});
      m_left = 0;
    }
  }
  struct Placed {
    size_t span, bytes, width;
  };
  Row& m_row;
  size_t m_left;
  bool m_cut = false;
  std::vector<Placed> m_widths; ///< every put(), to take glyphs back at a cut
};

Style state_style(FileState s) {
  switch (s) {
  case FileState::Accepted:
    return Style::Accepted;
  case FileState::Rejected:
    return Style::Rejected;
  case FileState::Partial:
    return Style::Partial;
  case FileState::Locked:
    return Style::Dim;
  default:
    return Style::Normal;
  }
}

const char* state_mark(FileState s) {
  switch (s) {
  case FileState::Accepted:
    return "[+]";
  case FileState::Rejected:
    return "[-]";
  case FileState::Partial:
    return "[~]";
  case FileState::Locked:
    return "[x]";
  default:
    return "[ ]";
  }
}

Style group_style(Group g) {
  return g == Group::Flagged    ? Style::Flagged
         : g == Group::Withheld ? Style::Withheld
         : g == Group::Blocked  ? Style::Blocked
         : g == Group::Found    ? Style::Note
                                : Style::Group;
}

std::string change_size(const FileEntry& f) {
  if (!f.counted) {
    return "";
  }
  if (f.added == 0 && f.deleted == 0) {
    return f.hunks.empty() && !f.notes.empty() ? "~" : "";
  }
  return "+" + std::to_string(f.added) + " -" + std::to_string(f.deleted);
}

/// The list's row of file `i`: cursor, decision mark, status, path, size of the change.
void file_row(Row& row, size_t width, const ReviewModel& m, size_t i) {
  const FileEntry& f = m.files()[i];
  bool sel = i == m.selected() && m.selected_fold() == nullptr;
  Style base =
      sel ? (m.focus() == Focus::Files ? Style::Selected : Style::SelectedDim) : Style::Normal;
  FileState st = file_state(f);
  std::string size = change_size(f);
  RowBuilder b(row, width);
  // A visible cursor too, for monochrome terminals and screen dumps.
  b.add(sel ? ">" : " ", base).add(state_mark(st), sel ? base : state_style(st)).add(" ", base);
  b.add(std::string(1, f.status) + " ", base);
  size_t room = b.left() > size.size() + 1 ? b.left() - size.size() - 1 : 0;
  // The end of a path names the file: keep it, elide the start (marked). The diff's
  // title shows the whole path.
  size_t from = 0, path_cols = display_width(f.path);
  if (path_cols > room && room > 1) {
    GlyphScanner s(f.path);
    Glyph g;
    while (path_cols > room - 1 && s.next(g)) {
      path_cols -= g.width;
      from = g.byte + g.bytes;
    }
    b.marker("<");
  }
  b.add_styled(
      f.path, [base](size_t) { return base; }, from);
  b.pad(b.left() > size.size() ? b.left() - size.size() : 0, base);
  b.add(size, sel ? base : Style::Dim);
}

/// The list's row of a folded directory: cursor, decision mark, status, the directory, how
/// many files (and how many of them are deletions: a count never hides one).
void fold_row(Row& row, size_t width, const ReviewModel& m, size_t entry, const Fold& fold) {
  bool sel = entry == m.cursor();
  Style base =
      sel ? (m.focus() == Focus::Files ? Style::Selected : Style::SelectedDim) : Style::Normal;
  FileState st = m.fold_state(fold);
  std::string size = with_commas(fold.files()) + " files";
  if (fold.deleted > 0) {
    size += ", " + with_commas(fold.deleted) + " deleted";
  }
  RowBuilder b(row, width);
  b.add(sel ? ">" : " ", base).add(state_mark(st), sel ? base : state_style(st)).add(" ", base);
  b.add(std::string(1, fold.status) + " ", base);
  std::string dir = fold.shown() + (fold.expanded ? " -" : " +");
  if (display_width(dir) + size.size() + 1 > b.left()) {
    // A narrow list keeps the directory's name and its counts, not the words.
    size = with_commas(fold.files()) +
           (fold.deleted > 0 ? " (" + with_commas(fold.deleted) + " D)" : std::string());
  }
  size_t room = b.left() > size.size() + 1 ? b.left() - size.size() - 1 : 0;
  size_t from = 0, cols = display_width(dir);
  if (cols > room && room > 1) {
    GlyphScanner s(dir);
    Glyph g;
    while (cols > room - 1 && s.next(g)) {
      cols -= g.width;
      from = g.byte + g.bytes;
    }
    b.marker("<");
  }
  b.add_styled(
      dir, [base](size_t) { return base; }, from);
  b.pad(b.left() > size.size() ? b.left() - size.size() : 0, base);
  b.add(size, sel ? base : Style::Dim);
}

/// The left pane's rows on screen (`body` of them) from the model's first row shown:
/// groups, files, folded directories, reasons. Only those rows are built: a frame of a
/// 200,000-file review costs what is on screen.
std::vector<Row> list_rows(const ReviewModel& m, size_t width, int body) {
  const auto& files = m.files();
  const auto& entries = m.entries();
  std::vector<Row> rows;
  if (files.empty()) {
    rows.emplace_back();
    RowBuilder(rows.back(), width).add(" nothing changed", Style::Dim).fill(Style::Normal);
    return rows;
  }
  size_t in_group[5] = {};
  for (const auto& f : files) {
    ++in_group[static_cast<size_t>(f.group)];
  }
  size_t top = m.list_top(), end = top + static_cast<size_t>(std::max(0, body));
  auto it = std::upper_bound(entries.begin(), entries.end(), top,
                             [](size_t t, const ListEntry& e) { return t < e.row; });
  if (it != entries.begin()) {
    --it;
  }
  for (; it != entries.end() && it->row - (it->header ? 1 : 0) < end; ++it) {
    size_t e = static_cast<size_t>(it - entries.begin());
    bool fold = it->kind == ListEntry::Kind::Fold;
    const FileEntry& f = files[fold ? m.folds()[it->index].begin : it->index];
    auto emit = [&](size_t at) -> Row* {
      if (at < top || at >= end) {
        return nullptr;
      }
      return &rows.emplace_back();
    };
    if (it->header) {
      if (Row* r = emit(it->row - 1)) {
        RowBuilder(*r, width)
            .add(std::string(" ") +
                     (f.group == Group::Transfer ? "TRANSFER" : group_name(f.group)) + " (" +
                     with_commas(in_group[static_cast<size_t>(f.group)]) + ")",
                 group_style(f.group))
            .fill(Style::Normal);
      }
    }
    if (Row* r = emit(it->row)) {
      if (fold) {
        fold_row(*r, width, m, e, m.folds()[it->index]);
      } else {
        file_row(*r, width, m, it->index);
      }
    }
    if (it->reason) {
      if (Row* r = emit(it->row + 1)) {
        bool taken = fold ? m.fold_state(m.folds()[it->index]) != FileState::Locked : f.overridden;
        // A fold's own reason: a virtual environment's, not its first symlink's.
        std::string reason = fold ? m.folds()[it->index].full_reason() : f.reason;
        RowBuilder(*r, width)
            .add("       " + reason + (taken && f.group == Group::Withheld ? " (taken)" : ""),
                 Style::Note)
            .fill(Style::Normal);
      }
    }
  }
  return rows;
}

const char* decision_label(Decision d) {
  return d == Decision::Accepted ? "accepted" : d == Decision::Rejected ? "rejected" : "undecided";
}

/// Emphasis ranges for every changed line of hunk `h` (line index -> ranges).
std::map<size_t, std::vector<std::pair<size_t, size_t>>> hunk_emphasis(const Hunk& h) {
  std::map<size_t, std::vector<std::pair<size_t, size_t>>> out;
  for (size_t i = 0; i < h.lines.size();) {
    if (h.lines[i].kind == Line::Kind::Context) {
      ++i;
      continue;
    }
    std::vector<size_t> del, add;
    for (; i < h.lines.size() && h.lines[i].kind != Line::Kind::Context; ++i) {
      (h.lines[i].kind == Line::Kind::Deleted ? del : add).push_back(i);
    }
    // Pair the n-th removed line with the n-th added one, as diff-highlight does.
    for (size_t k = 0; k < std::min(del.size(), add.size()); ++k) {
      WordDiff w = word_diff(h.lines[del[k]].text, h.lines[add[k]].text);
      out[del[k]] = std::move(w.old_ranges);
      out[add[k]] = std::move(w.new_ranges);
    }
  }
  return out;
}

/// One row of a diff line: the origin column, then the part of the line this row shows.
/// Wrapped, a row that goes on ends with '\'; scrolled sideways, '<' and '>' mark the cuts.
void line_row(Row& row, size_t width, const Line& l, const DiffRow& d, const ReviewModel& m,
              const std::vector<std::pair<size_t, size_t>>* emph) {
  RowBuilder b(row, width);
  Style s = l.kind == Line::Kind::Added     ? Style::Added
            : l.kind == Line::Kind::Deleted ? Style::Deleted
                                            : Style::Normal;
  Style strong = l.kind == Line::Kind::Added ? Style::AddedWord : Style::DeletedWord;
  std::string_view text = l.text;
  bool newline = !text.empty() && text.back() == '\n';
  if (newline) {
    text.remove_suffix(1);
  }
  auto style_at = [&](size_t byte) {
    if (emph) {
      for (const auto& [from, to] : *emph) {
        if (byte >= from && byte < to) {
          return strong;
        }
      }
    }
    return s;
  };
  // A continued row's origin column is blank: only a line's first row starts with + or -.
  b.add(d.from == 0 ? std::string(1, static_cast<char>(l.kind)) : " ", s);
  size_t from = std::min(d.from, text.size()), column = d.column;
  size_t hscroll = m.line_mode() == LineMode::Scroll ? m.hscroll() : 0;
  if (hscroll > 0) {
    // Skip what lies left of the view; a wide glyph cut in two shows as blanks.
    GlyphScanner sc(text, from, column);
    Glyph g;
    bool hidden = false;
    while (sc.column() < hscroll && sc.next(g)) {
      hidden = true;
      from = g.byte + g.bytes;
    }
    column = sc.column();
    if (hidden) {
      b.marker("<");
      b.pad(column > hscroll + 1 ? column - hscroll - 1 : 0, s);
    }
  }
  size_t room = d.more ? (b.left() > 0 ? b.left() - 1 : 0) : b.left();
  Row text_row;
  RowBuilder t(text_row, room);
  t.add_styled(text, style_at, from, column, d.to);
  row.spans.insert(row.spans.end(), text_row.spans.begin(), text_row.spans.end());
  RowBuilder rest(row, b.left() - (room - t.left()));
  if (d.more) {
    rest.pad(rest.left() > 0 ? rest.left() - 1 : 0, Style::Normal);
    rest.marker("\\");
  } else if (!newline && l.kind != Line::Kind::Context && !t.was_cut()) {
    rest.add("  (no newline at end)", Style::Dim);
  }
  rest.fill(Style::Normal);
}

/// A title or note row: the part of its text this row shows, '\' when it goes on.
void text_row(Row& row, size_t width, const DiffRow& d, Style style, Style fill) {
  size_t room = d.more && width > 0 ? width - 1 : width;
  Row inner;
  RowBuilder t(inner, room);
  t.add_styled(
      d.text, [style](size_t) { return style; }, std::min(d.from, d.text.size()), d.column, d.to);
  row.spans.insert(row.spans.end(), inner.spans.begin(), inner.spans.end());
  RowBuilder rest(row, width - (room - t.left()));
  if (d.more) {
    rest.pad(rest.left() > 0 ? rest.left() - 1 : 0, fill);
    rest.marker("\\");
  }
  rest.fill(fill);
}

std::vector<Row> diff_pane(const ReviewModel& m, size_t width, size_t height) {
  std::vector<Row> rows;
  // On a folded directory the rows are notes about it; their style is its files' group.
  const FileEntry* f = m.selected_file();
  Group group = m.files()[m.selected()].group;
  const auto& all = m.diff_rows();
  std::map<int, std::map<size_t, std::vector<std::pair<size_t, size_t>>>> emphasis;
  for (size_t r = static_cast<size_t>(m.diff_top()); r < all.size() && rows.size() < height; ++r) {
    const DiffRow& d = all[r];
    rows.emplace_back();
    switch (d.kind) {
    case DiffRow::Kind::Title:
      text_row(rows.back(), width, d, Style::Title, Style::Title);
      break;
    case DiffRow::Kind::Note:
      text_row(rows.back(), width, d, group == Group::Transfer ? Style::Note : group_style(group),
               Style::Normal);
      break;
    case DiffRow::Kind::HunkHeader: {
      RowBuilder b(rows.back(), width);
      const Hunk& h = f->hunks[static_cast<size_t>(d.hunk)];
      bool cur = d.hunk == m.current_hunk() && m.focus() == Focus::Diff;
      Style s = cur ? Style::HunkCurrent : Style::HunkHeader;
      b.add(cur ? ">" : " ", s).add(h.header(), s);
      if (f->hunk_level && f->decidable()) {
        std::string label = std::string("  ") + decision_label(h.decision);
        b.add(label, cur ? s
                         : state_style(h.decision == Decision::Accepted   ? FileState::Accepted
                                       : h.decision == Decision::Rejected ? FileState::Rejected
                                                                          : FileState::Undecided));
      }
      b.fill(cur ? s : Style::Normal);
      break;
    }
    case DiffRow::Kind::Line: {
      auto& e = emphasis[d.hunk];
      if (e.empty()) {
        e = hunk_emphasis(f->hunks[static_cast<size_t>(d.hunk)]);
        e[SIZE_MAX]; // marks this hunk done even when nothing is emphasised
      }
      auto it = e.find(static_cast<size_t>(d.line));
      line_row(rows.back(), width,
               f->hunks[static_cast<size_t>(d.hunk)].lines[static_cast<size_t>(d.line)], d, m,
               it == e.end() ? nullptr : &it->second);
      break;
    }
    }
  }
  return rows;
}

std::string hints(const ReviewModel& m) {
  if (const Fold* fold = m.selected_fold()) {
    return std::string("Enter ") + (fold->expanded ? "close" : "open") +
           "  o take all  r reject all  z fold  / search  F finish  q quit";
  }
  if (m.focus() == Focus::Files) {
    return "a accept  r reject  o override  Tab diff  / search  F finish  ? help  q quit";
  }
  return "a accept hunk  r reject  s split  ]/[ hunk  A/R file  Tab list  F finish  ? help";
}

} // namespace

Row text_line(std::string_view text, Style style, size_t width) {
  Row row;
  RowBuilder(row, width).add(text, style).fill(style);
  return row;
}

int pane_rows(int height) {
  return std::max(1, height - 2);
}

namespace {
/// The list pane's width; the diff pane has the rest but for the separator.
size_t list_cols(size_t w) {
  return std::clamp<size_t>(w * 2 / 5, std::min<size_t>(w, 24), 56);
}
} // namespace

int diff_cols(int width) {
  size_t w = static_cast<size_t>(std::max(1, width)), left = list_cols(w);
  return static_cast<int>(w > left + 1 ? w - left - 1 : 0);
}

void fit(ReviewModel& model, int width, int height) {
  model.set_page(pane_rows(height), pane_rows(height), diff_cols(width));
}

Frame render(const ReviewModel& m, int width, int height, const Overlay& overlay) {
  Frame fr;
  fr.width = std::max(1, width);
  fr.height = std::max(1, height);
  size_t w = static_cast<size_t>(fr.width);
  fr.rows.resize(static_cast<size_t>(fr.height));

  // Title: what is reviewed and how far along.
  size_t total = m.decidable_files();
  std::string title = " ws review  workspace '" + m.review().workspace + "'  ";
  title += m.review().verdicts_pending ? "loading: the changes found, deciding what may land"
           : m.review().provisional
               ? "the list as last planned, updating"
               : "patch " + m.review().id.substr(0, 8) + "  " + std::to_string(m.decided_files()) +
                     "/" + std::to_string(total) + " decided";
  RowBuilder(fr.rows[0], w).add(title, Style::Title).fill(Style::Title);

  int body = fr.height - 2;
  if (body > 0) {
    size_t left = list_cols(w);
    size_t right = static_cast<size_t>(diff_cols(fr.width));
    std::vector<Row> list = list_rows(m, left, body);
    std::vector<Row> diff;
    if (overlay.help) {
      std::vector<std::string> lines = help_lines();
      lines.insert(lines.begin(), {"Keys (any key closes this help)", ""});
      lines.insert(lines.end(),
                   {"", "Decisions are saved as you make them; the next 'ws review' of the",
                    "same changes brings them back."});
      for (const auto& l : lines) {
        diff.emplace_back();
        RowBuilder(diff.back(), right).add(l, Style::Normal).fill(Style::Normal);
      }
    } else if (!m.files().empty()) {
      diff = diff_pane(m, right, static_cast<size_t>(body));
    }
    for (int r = 0; r < body; ++r) {
      Row& row = fr.rows[static_cast<size_t>(r + 1)];
      size_t li = static_cast<size_t>(r);
      // Every list row is exactly the pane's width; then the separator and the diff.
      if (li < list.size()) {
        row.spans = list[li].spans;
      } else {
        RowBuilder(row, left).fill(Style::Normal);
      }
      if (right > 0) {
        row.spans.push_back({"|", Style::Dim});
        size_t di = static_cast<size_t>(r);
        if (di < diff.size()) {
          row.spans.insert(row.spans.end(), diff[di].spans.begin(), diff[di].spans.end());
        } else {
          RowBuilder(row, right).fill(Style::Normal);
        }
      }
    }
  }
  if (fr.height > 1) {
    Row& status = fr.rows.back();
    if (!overlay.prompt.empty()) {
      RowBuilder(status, w).add(overlay.prompt, Style::Prompt).fill(Style::Prompt);
    } else if (!m.message().empty()) {
      RowBuilder(status, w).add(" " + m.message(), Style::Status).fill(Style::Status);
    } else {
      RowBuilder(status, w).add(" " + hints(m), Style::Status).fill(Style::Status);
    }
  }
  return fr;
}

std::string Frame::dump() const {
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (const auto& s : r.spans) {
      line += s.text;
    }
    while (!line.empty() && line.back() == ' ') {
      line.pop_back();
    }
    out += line + "\n";
  }
  return out;
}

} // namespace ws::tui
