// Rendering the review into a Frame: the file list on the left, the diff on the right.
#include "tui/render.hpp"

#include "tui/keymap.hpp"

#include <dtl/dtl.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>

namespace ws::tui {

namespace {

size_t columns(std::string_view s) {
  return static_cast<size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; }));
}

/// The first `n` columns of printable `s`.
std::string cut(std::string_view s, size_t n) {
  size_t cols = 0, i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xc0) != 0x80) {
      if (cols == n) {
        break;
      }
      ++cols;
    }
  }
  return std::string(s.substr(0, i));
}

/// Fills one row left to right, never past its width.
class RowBuilder {
public:
  RowBuilder(Row& row, size_t width) : m_row(row), m_left(width) {}
  RowBuilder& add(std::string_view text, Style style) {
    std::string t = cut(text, m_left);
    m_left -= columns(t);
    if (!t.empty()) {
      m_row.spans.push_back({std::move(t), style});
    }
    return *this;
  }
  /// Pads with blanks in `style` to the row's end.
  void fill(Style style) { add(std::string(m_left, ' '), style); }
  size_t left() const { return m_left; }

private:
  Row& m_row;
  size_t m_left;
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
                                : Style::Group;
}

std::string change_size(const FileEntry& f) {
  if (f.added == 0 && f.deleted == 0) {
    return f.hunks.empty() && !f.notes.empty() ? "~" : "";
  }
  return "+" + std::to_string(f.added) + " -" + std::to_string(f.deleted);
}

/// The left pane: groups, files, reasons. `selected_row` receives the selected file's row.
std::vector<Row> list_rows(const ReviewModel& m, size_t width, int& selected_row) {
  std::vector<Row> rows;
  const auto& files = m.files();
  for (size_t i = 0; i < files.size(); ++i) {
    const FileEntry& f = files[i];
    if (i == 0 || files[i - 1].group != f.group) {
      size_t n = static_cast<size_t>(std::count_if(
          files.begin(), files.end(), [&](const FileEntry& o) { return o.group == f.group; }));
      rows.emplace_back();
      RowBuilder(rows.back(), width)
          .add(std::string(" ") + (f.group == Group::Transfer ? "TRANSFER" : group_name(f.group)) +
                   " (" + std::to_string(n) + ")",
               group_style(f.group))
          .fill(Style::Normal);
    }
    bool sel = i == m.selected();
    if (sel) {
      selected_row = static_cast<int>(rows.size());
    }
    Style base =
        sel ? (m.focus() == Focus::Files ? Style::Selected : Style::SelectedDim) : Style::Normal;
    FileState st = file_state(f);
    std::string size = change_size(f);
    rows.emplace_back();
    RowBuilder b(rows.back(), width);
    // A visible cursor too, for monochrome terminals and screen dumps.
    b.add(sel ? ">" : " ", base).add(state_mark(st), sel ? base : state_style(st)).add(" ", base);
    b.add(std::string(1, f.status) + " ", base);
    std::string path = printable(f.path);
    size_t room = b.left() > size.size() + 1 ? b.left() - size.size() - 1 : 0;
    if (columns(path) > room && room > 1) {
      // The end of a path names the file: keep it, elide the start.
      std::string tail = path;
      while (columns(tail) > room - 1) {
        tail.erase(0, 1);
        while (!tail.empty() && (static_cast<unsigned char>(tail[0]) & 0xc0) == 0x80) {
          tail.erase(0, 1);
        }
      }
      path = "<" + tail;
    }
    b.add(path, base);
    std::string pad(b.left() > size.size() ? b.left() - size.size() : 0, ' ');
    b.add(pad, base).add(size, sel ? base : Style::Dim);
    if (f.group != Group::Transfer) {
      rows.emplace_back();
      RowBuilder(rows.back(), width)
          .add("       " + printable(f.reason) + (f.overridden ? " (taken)" : ""), Style::Note)
          .fill(Style::Normal);
    }
  }
  if (files.empty()) {
    rows.emplace_back();
    RowBuilder(rows.back(), width).add(" nothing changed", Style::Dim);
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

void line_row(Row& row, size_t width, const Line& l,
              const std::vector<std::pair<size_t, size_t>>* emph) {
  RowBuilder b(row, width);
  Style s = l.kind == Line::Kind::Added     ? Style::Added
            : l.kind == Line::Kind::Deleted ? Style::Deleted
                                            : Style::Normal;
  Style strong = l.kind == Line::Kind::Added ? Style::AddedWord : Style::DeletedWord;
  b.add(std::string(1, static_cast<char>(l.kind)), s);
  std::string_view text = l.text;
  bool newline = !text.empty() && text.back() == '\n';
  if (newline) {
    text.remove_suffix(1);
  }
  size_t at = 0;
  if (emph) {
    for (const auto& [from, to] : *emph) {
      size_t f = std::min(from, text.size()), t = std::min(to, text.size());
      b.add(printable(text.substr(at, f - at)), s);
      b.add(printable(text.substr(f, t - f)), strong);
      at = t;
    }
  }
  b.add(printable(text.substr(std::min(at, text.size()))), s);
  if (!newline && l.kind != Line::Kind::Context) {
    b.add("  (no newline at end)", Style::Dim);
  }
  b.fill(Style::Normal);
}

std::vector<Row> diff_pane(const ReviewModel& m, size_t width, size_t height) {
  std::vector<Row> rows;
  const FileEntry* f = m.selected_file();
  const auto& all = m.diff_rows();
  std::map<int, std::map<size_t, std::vector<std::pair<size_t, size_t>>>> emphasis;
  for (size_t r = static_cast<size_t>(m.diff_top()); r < all.size() && rows.size() < height; ++r) {
    const DiffRow& d = all[r];
    rows.emplace_back();
    RowBuilder b(rows.back(), width);
    switch (d.kind) {
    case DiffRow::Kind::Title:
      b.add(printable(d.text), Style::Title).fill(Style::Title);
      break;
    case DiffRow::Kind::Note:
      b.add(printable(d.text), f->group == Group::Transfer ? Style::Note : group_style(f->group));
      b.fill(Style::Normal);
      break;
    case DiffRow::Kind::HunkHeader: {
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
               f->hunks[static_cast<size_t>(d.hunk)].lines[static_cast<size_t>(d.line)],
               it == e.end() ? nullptr : &it->second);
      break;
    }
    }
  }
  return rows;
}

std::string hints(const ReviewModel& m) {
  if (m.focus() == Focus::Files) {
    return "a accept  r reject  o override  Tab diff  / search  F finish  ? help  q quit";
  }
  return "a accept hunk  r reject  s split  ]/[ hunk  A/R file  Tab list  F finish  ? help";
}

} // namespace

int pane_rows(int height) {
  return std::max(1, height - 2);
}

Frame render(const ReviewModel& m, int width, int height, const Overlay& overlay) {
  Frame fr;
  fr.width = std::max(1, width);
  fr.height = std::max(1, height);
  size_t w = static_cast<size_t>(fr.width);
  fr.rows.resize(static_cast<size_t>(fr.height));

  // Title: what is reviewed and how far along.
  size_t total = static_cast<size_t>(std::count_if(
      m.files().begin(), m.files().end(), [](const FileEntry& f) { return f.decidable(); }));
  std::string title = " ws review  workspace '" + printable(m.review().workspace) + "'  patch " +
                      m.review().id.substr(0, 8) + "  " + std::to_string(m.decided_files()) + "/" +
                      std::to_string(total) + " decided";
  RowBuilder(fr.rows[0], w).add(title, Style::Title).fill(Style::Title);

  int body = fr.height - 2;
  if (body > 0) {
    size_t left = std::clamp<size_t>(w * 2 / 5, std::min<size_t>(w, 24), 56);
    size_t right = w > left + 1 ? w - left - 1 : 0;
    int sel = 0;
    std::vector<Row> list = list_rows(m, left, sel);
    // Keep the selection (and the reason under it) on screen.
    int top = sel + 2 <= body ? 0 : sel + 2 - body;
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
    } else if (m.selected_file()) {
      diff = diff_pane(m, right, static_cast<size_t>(body));
    }
    for (int r = 0; r < body; ++r) {
      Row& row = fr.rows[static_cast<size_t>(r + 1)];
      size_t li = static_cast<size_t>(top + r);
      if (li < list.size()) {
        row.spans = list[li].spans;
      }
      // Pad the left pane to its width, then the separator and the diff.
      size_t used = 0;
      for (const auto& s : row.spans) {
        used += columns(s.text);
      }
      RowBuilder pad(row, left - std::min(used, left));
      pad.fill(Style::Normal);
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
      RowBuilder(status, w).add(printable(overlay.prompt), Style::Prompt).fill(Style::Prompt);
    } else if (!m.message().empty()) {
      RowBuilder(status, w).add(" " + printable(m.message()), Style::Status).fill(Style::Status);
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

std::string printable(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (size_t i = 0; i < bytes.size();) {
    auto c = static_cast<unsigned char>(bytes[i]);
    if (c == '\t') {
      out += "    ";
      ++i;
    } else if (c == '\n') {
      ++i;
    } else if (c < 0x20 || c == 0x7f) {
      out += '^';
      out += static_cast<char>(c == 0x7f ? '?' : c + 64);
      ++i;
    } else if (c < 0x80) {
      out += static_cast<char>(c);
      ++i;
    } else {
      size_t len = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
      bool ok = len > 0 && i + len <= bytes.size();
      for (size_t k = 1; ok && k < len; ++k) {
        ok = (static_cast<unsigned char>(bytes[i + k]) & 0xc0) == 0x80;
      }
      // C1 controls (U+0080..U+009F) can act as escapes on some terminals.
      if (ok && len == 2 && c == 0xc2 && static_cast<unsigned char>(bytes[i + 1]) < 0xa0) {
        ok = false;
      }
      if (ok) {
        out.append(bytes.substr(i, len));
        i += len;
      } else {
        out += '?';
        ++i;
      }
    }
  }
  return out;
}

WordDiff word_diff(std::string_view a, std::string_view b) {
  // Tokens: runs of word characters, runs of blanks, single other bytes.
  auto tokens = [](std::string_view s) {
    std::vector<std::string> t;
    auto word = [](unsigned char c) { return std::isalnum(c) || c == '_' || c >= 0x80; };
    for (size_t i = 0; i < s.size();) {
      size_t j = i + 1;
      auto c = static_cast<unsigned char>(s[i]);
      if (word(c)) {
        while (j < s.size() && word(static_cast<unsigned char>(s[j]))) {
          ++j;
        }
      } else if (c == ' ' || c == '\t') {
        while (j < s.size() && (s[j] == ' ' || s[j] == '\t')) {
          ++j;
        }
      }
      t.emplace_back(s.substr(i, j - i));
      i = j;
    }
    return t;
  };
  std::vector<std::string> ta = tokens(a), tb = tokens(b);
  dtl::Diff<std::string, std::vector<std::string>> d(ta, tb);
  d.compose();
  WordDiff out;
  size_t ia = 0, ib = 0, pa = 0, pb = 0, common = 0;
  auto mark = [](std::vector<std::pair<size_t, size_t>>& r, size_t from, size_t to) {
    if (!r.empty() && r.back().second == from) {
      r.back().second = to; // one range for adjacent changed words
    } else {
      r.emplace_back(from, to);
    }
  };
  for (const auto& [elem, info] : d.getSes().getSequence()) {
    if (info.type == dtl::SES_DELETE) {
      mark(out.old_ranges, pa, pa + ta[ia].size());
      pa += ta[ia++].size();
    } else if (info.type == dtl::SES_ADD) {
      mark(out.new_ranges, pb, pb + tb[ib].size());
      pb += tb[ib++].size();
    } else {
      common += elem.find_first_not_of(" \t") != std::string::npos ? elem.size() : 0;
      pa += ta[ia++].size();
      pb += tb[ib++].size();
    }
  }
  // Lines that share little are rewritten, not edited: emphasis would be noise.
  if (common * 3 < std::max(a.size(), b.size())) {
    return {};
  }
  return out;
}

} // namespace ws::tui
