// What an agent can put in a line or a name to hide it from the reviewer: long lines,
// invisible and bidi characters, control bytes, newlines in names. Every frame must show it
// all, marked, and keep every row exactly as wide as the screen.
#include "tui/display.hpp"
#include "tui/render.hpp"

#include <doctest/doctest.h>

#include <clocale>
#include <string>
#include <vector>

using namespace ws::tui;

namespace {

constexpr auto npos = std::string::npos;

/// LC_CTYPE set to UTF-8 for one test (the screen does setlocale(LC_ALL, "")).
class Utf8Locale {
public:
  Utf8Locale() : m_old(std::setlocale(LC_CTYPE, nullptr)) {
    REQUIRE(std::setlocale(LC_CTYPE, "C.UTF-8") != nullptr);
  }
  ~Utf8Locale() { std::setlocale(LC_CTYPE, m_old.c_str()); }
  Utf8Locale(const Utf8Locale&) = delete;
  Utf8Locale& operator=(const Utf8Locale&) = delete;

private:
  std::string m_old;
};

/// A review of one new file `path` holding `lines`.
ReviewModel one_file(const std::string& path, const std::vector<std::string>& lines) {
  Review r;
  r.workspace = "default";
  r.id = "0123456789abcdef";
  FileEntry f;
  f.status = 'A';
  f.path = f.old_path = path;
  Hunk h;
  for (const auto& l : lines) {
    h.lines.push_back({Line::Kind::Added, l + "\n"});
  }
  f.added = lines.size();
  f.hunks = {h};
  r.files.push_back(f);
  return ReviewModel(std::move(r));
}

/// Every row exactly `width` columns, as the terminal will count them.
void check_widths(const Frame& f) {
  for (const auto& row : f.rows) {
    size_t cols = 0;
    for (const auto& s : row.spans) {
      cols += display_width(s.text);
    }
    CHECK(cols == static_cast<size_t>(f.width));
  }
}

/// The marked spans of `f`, joined: what ws drew itself.
std::string marked(const Frame& f) {
  std::string out;
  for (const auto& row : f.rows) {
    for (const auto& s : row.spans) {
      if (s.style == Style::Marker) {
        out += s.text + " ";
      }
    }
  }
  return out;
}

/// The diff pane's column of each row (right of the separator), trailing blanks cut.
std::vector<std::string> diff_pane(const Frame& f) {
  std::vector<std::string> out;
  std::string dump = f.dump();
  for (size_t at = 0; at < dump.size();) {
    size_t end = dump.find('\n', at);
    std::string line = dump.substr(at, end - at);
    size_t bar = line.find('|');
    out.push_back(bar == npos ? "" : line.substr(bar + 1));
    at = end + 1;
  }
  return out;
}

const std::string k_payload = "; __import__(\"os\").system(\"id\")";
const std::string k_long = "x = compute(a, b)" + std::string(400, ' ') + k_payload;

} // namespace

TEST_CASE("tui::render wraps a long line - nothing past the edge - every cut marked") {
  ReviewModel m = one_file("setup.py", {k_long, "y = 2"});
  fit(m, 80, 40);
  Frame f = render(m, 80, 40);
  check_widths(f);
  std::string text = f.dump();
  CHECK(text.find(k_payload) != npos);
  // The line's first row starts with '+', its continuations with a blank, and every row
  // but its last ends with the continuation marker.
  std::vector<std::string> pane = diff_pane(f);
  size_t first = 0;
  while (first < pane.size() && pane[first].rfind("+x = compute", 0) != 0) {
    ++first;
  }
  REQUIRE(first < pane.size());
  size_t rows = 0;
  for (size_t r = first; r < pane.size() && pane[r].find(k_payload) == npos; ++r, ++rows) {
    CHECK(pane[r].size() == static_cast<size_t>(diff_cols(80)));
    CHECK(pane[r].back() == '\\');
  }
  CHECK(rows == 417 / static_cast<size_t>(diff_cols(80) - 2));
  CHECK(marked(f).find("\\") != npos);
  CHECK(text.find("+y = 2") != npos);
}

TEST_CASE("tui::render scroll mode - cut lines end with a marker - h and l reach the rest") {
  ReviewModel m = one_file("setup.py", {k_long, "y = 2"});
  fit(m, 80, 24);
  CHECK(m.apply(Action::ScrollRight) == Effect::Message); // wrap mode: says how
  m.apply(Action::ToggleWrap);
  CHECK(m.line_mode() == LineMode::Scroll);
  Frame f = render(m, 80, 24);
  check_widths(f);
  std::string text = f.dump();
  CHECK(text.find("__import__") == npos);
  std::vector<std::string> pane = diff_pane(f);
  bool cut = false;
  for (const auto& row : pane) {
    if (row.rfind("+x = compute", 0) == 0) {
      CHECK(row.back() == '>');
      cut = true;
    }
  }
  CHECK(cut);
  bool seen = false;
  for (int i = 0; i < 40 && !seen; ++i) {
    m.apply(Action::ScrollRight);
    Frame g = render(m, 80, 24);
    check_widths(g);
    std::string t = g.dump();
    seen = t.find(k_payload) != npos;
    if (seen) {
      CHECK(t.find("+<") != npos); // the hidden start is marked
      CHECK(m.hscroll() > 0);
    }
  }
  CHECK(seen);
  m.apply(Action::ToggleWrap);
  CHECK(m.hscroll() == 0);
  fit(m, 80, 40);
  CHECK(render(m, 80, 40).dump().find(k_payload) != npos);
}

TEST_CASE("tui::render bidi - zero-width - controls - bad UTF-8 are shown marked") {
  Utf8Locale utf8;
  // Trojan Source (CVE-2021-42574): an RLO and isolates reorder what the line shows.
  std::string trojan = "/*\u202e } \u2066if (isAdmin)\u2069 \u2066 begin admins only */";
  std::string zw = "acc\u200bess = \ufeffTrue\u2060\u200d\u200c";
  std::string ctl = "ok\033]52;c;Y3VybCB4IHwgc2g=\007\r# WITHHELD: fake\xc2\x85\xff";
  std::string filler = "if (\u3164) {}"; // a Hangul filler used as an identifier
  ReviewModel m = one_file("src/a.c", {trojan, zw, ctl, filler});
  fit(m, 120, 30);
  Frame f = render(m, 120, 30);
  check_widths(f);
  std::string text = f.dump();
  for (const char* raw : {"\u202e", "\u2066", "\u2069", "\u200b", "\ufeff", "\u2060", "\u200d",
                          "\u200c", "\u3164", "\033", "\007", "\r", "\xc2\x85", "\xff"}) {
    CHECK_MESSAGE(text.find(raw) == npos, "raw in the frame: " << printable(raw));
  }
  std::string marks = marked(f);
  for (const char* shown :
       {"<U+202E>", "<U+2066>", "<U+2069>", "<U+200B>", "<U+FEFF>", "<U+2060>", "<U+200D>",
        "<U+200C>", "<U+3164>", "^[", "^G", "^M", "<U+0085>", "<0xff>"}) {
    CHECK_MESSAGE(marks.find(shown) != npos, shown);
  }
  CHECK(text.find("+acc<U+200B>ess = <U+FEFF>True") != npos);
}

TEST_CASE("tui::display widths follow wcwidth - wide and combining characters") {
  Utf8Locale utf8;
  CHECK(display_width("caf\u00e9") == 4);
  CHECK(display_width("cafe\u0301") == 4);    // combining acute on e
  CHECK(printable("\u0301x") == "<U+0301>x"); // nothing to sit on: marked
  CHECK(display_width("\u6f22\u5b57") == 4);  // two wide CJK characters
  CHECK(display_width("a\u200bb") == 2 + 8);  // zero width: never counted as a column
  CHECK(display_width("\t") == k_tab_stop);
  // A wide character never straddles a wrap.
  std::vector<Segment> segs = wrap("ab\u6f22\u5b57", 3);
  REQUIRE(segs.size() == 3);
  CHECK(segs[0].to == 2);
  CHECK(segs[1].column == 2);
  CHECK(segs[2].column == 4);
  // Lines of wide characters wrap to full-width rows too.
  ReviewModel m = one_file("wide.txt", {std::string(30, 'x') + "\u6f22" + std::string(60, 'y'),
                                        "\u6f22\u5b57\u6f22\u5b57\u6f22\u5b57\u6f22\u5b57\u6f22"
                                        "\u5b57\u6f22\u5b57\u6f22\u5b57\u6f22\u5b57\u6f22\u5b57"
                                        "\u6f22\u5b57\u6f22\u5b57\u6f22\u5b57\u6f22\u5b57"});
  for (int w : {80, 81, 100, 57}) {
    fit(m, w, 24);
    check_widths(render(m, w, 24));
  }
  m.apply(Action::ToggleWrap);
  for (int i = 0; i < 6; ++i) {
    m.apply(Action::ScrollRight);
    check_widths(render(m, 81, 24));
  }
}

TEST_CASE("tui::display outside a UTF-8 locale shows every non-ASCII character as a code") {
  std::string old = std::setlocale(LC_CTYPE, nullptr);
  std::setlocale(LC_CTYPE, "C");
  CHECK(printable("caf\u00e9") == "caf<U+00E9>");
  std::setlocale(LC_CTYPE, old.c_str());
}

TEST_CASE("tui::render a newline or an escape in a file name is visible - list and title") {
  Utf8Locale utf8;
  std::string name = "docs/read\nme\u202e.txt";
  ReviewModel m = one_file(name, {"hello"});
  fit(m, 80, 24);
  Frame f = render(m, 80, 24);
  check_widths(f);
  std::string text = f.dump();
  CHECK(text.find("read^Jme<U+202E>.txt") != npos);
  CHECK(text.find("A  docs/read^Jme<U+202E>.txt") != npos); // the diff's title
  // A path too long for the list keeps its end, and the cut is marked; the title wraps.
  std::string deep;
  for (int i = 0; i < 12; ++i) {
    deep += "directory" + std::to_string(i) + "/";
  }
  ReviewModel d = one_file(deep + "evil.py", {"x"});
  fit(d, 80, 24);
  Frame g = render(d, 80, 24);
  check_widths(g);
  std::string t = g.dump();
  CHECK(t.find("evil.py") != npos);
  CHECK(marked(g).find("<") != npos);
  std::string joined;
  for (const auto& row : diff_pane(g)) {
    joined += !row.empty() && row.back() == '\\' ? row.substr(0, row.size() - 1) : row + "\n";
  }
  CHECK(joined.find("A  " + deep + "evil.py") != npos);
}

TEST_CASE("tui::render a text longer than its row is cut with a marker") {
  ReviewModel m = one_file("a.txt", {k_long});
  // Not fitted: laid out for no width, the row is cut at the pane's edge, and marked.
  Frame f = render(m, 80, 24);
  check_widths(f);
  bool cut = false;
  for (const auto& row : diff_pane(f)) {
    cut = cut || (row.rfind("+x = compute", 0) == 0 && row.back() == '>');
  }
  CHECK(cut);
  // A prompt naming an agent's path keeps it escaped.
  std::string prompt = render(m, 80, 24, Overlay{"Take 'a\033[2Jb'? y/N", false}).dump();
  CHECK(prompt.find("a^[[2Jb") != npos);
}

TEST_CASE("tui::search finds text in a wrapped line and keeps it on screen") {
  ReviewModel m = one_file("setup.py", {"a", "b", k_long, "c"});
  fit(m, 80, 10);
  m.search("system");
  CHECK(m.focus() == Focus::Diff);
  std::string text = render(m, 80, 10).dump();
  CHECK(text.find("+x = compute") != npos);
  // Switching modes and sizes keeps the same line at the top.
  m.apply(Action::ToggleWrap);
  CHECK(render(m, 80, 10).dump().find("+x = compute") != npos);
  fit(m, 120, 10);
  m.apply(Action::ToggleWrap);
  CHECK(render(m, 120, 10).dump().find("+x = compute") != npos);
}
