// The views as text: layout at 80x24 and larger, escapes neutralised, word highlighting.
#include "tui/render.hpp"

#include <doctest/doctest.h>

#include <clocale>
#include <string>

using namespace ws::tui;

namespace {

Review review() {
  Review r;
  r.workspace = "default";
  r.id = "0123456789abcdef";
  FileEntry f;
  f.path = f.old_path = "src/main.c";
  f.hunk_level = true;
  f.added = 1;
  f.deleted = 1;
  Hunk h;
  h.old_begin = 0;
  h.new_begin = 0;
  h.lines = {{Line::Kind::Context, "int main() {\n"},
             {Line::Kind::Deleted, "  return 0;\n"},
             {Line::Kind::Added, "  return 1;\n"},
             {Line::Kind::Context, "}\n"}};
  f.hunks = {h};
  r.files.push_back(f);
  FileEntry w;
  w.path = w.old_path = "evil\033[2Jname";
  w.status = 'A';
  w.group = Group::Withheld;
  w.reason = "new executable";
  w.overridable = true;
  w.notes = {"new file, mode 100755"};
  r.files.push_back(w);
  return r;
}

} // namespace

TEST_CASE("tui::render 80x24 shows groups - reasons - hunks - and no raw escapes") {
  ReviewModel m(review());
  Frame f = render(m, 80, 24);
  REQUIRE(f.rows.size() == 24);
  std::string text = f.dump();
  CHECK(text.find("TRANSFER (1)") != std::string::npos);
  CHECK(text.find("WITHHELD (1)") != std::string::npos);
  CHECK(text.find("new executable") != std::string::npos);
  CHECK(text.find("@@ -1,3 +1,3 @@  undecided") != std::string::npos);
  CHECK(text.find("+  return 1;") != std::string::npos);
  CHECK(text.find('\033') == std::string::npos);
  CHECK(text.find("evil^[[2Jname") != std::string::npos);
  for (const auto& row : f.rows) {
    size_t cols = 0;
    for (const auto& s : row.spans) {
      for (char c : s.text) {
        cols += (static_cast<unsigned char>(c) & 0xc0) != 0x80 ? 1 : 0;
      }
    }
    CHECK(cols == 80);
  }
  fit(m, 80, 24);
  CHECK(render(m, 80, 24).dump() == text);
  Frame big = render(m, 200, 60);
  CHECK(big.rows.size() == 60);
  Frame tiny = render(m, 10, 3);
  CHECK(tiny.rows.size() == 3);
}

TEST_CASE("tui::render help and prompts overlay the panes") {
  ReviewModel m(review());
  std::string help = render(m, 100, 40, Overlay{"", true}).dump();
  CHECK(help.find("split the hunk") != std::string::npos);
  std::string prompt = render(m, 100, 40, Overlay{"Take it? y/N", false}).dump();
  CHECK(prompt.find("Take it? y/N") != std::string::npos);
}

TEST_CASE("tui::word_diff marks only the words that changed") {
  WordDiff w = word_diff("  return 0;\n", "  return 1;\n");
  REQUIRE(w.old_ranges.size() == 1);
  CHECK(w.old_ranges[0] == std::pair<size_t, size_t>{9, 10});
  CHECK(w.new_ranges[0] == std::pair<size_t, size_t>{9, 10});
  WordDiff none = word_diff("completely different\n", "nothing alike here at all\n");
  CHECK(none.old_ranges.empty());
  CHECK(none.new_ranges.empty());
}

TEST_CASE("tui::printable neutralises control bytes and bad UTF-8") {
  CHECK(printable("a\tb") == "a   b"); // to the next tab stop
  CHECK(printable("\tb") == "    b");
  CHECK(printable("\033]0;x\007") == "^[]0;x^G");
  CHECK(printable("\xff\xc2\x9b") == "<0xff><U+009B>");
  CHECK(printable("a\r# WITHHELD") == "a^M# WITHHELD");
  CHECK(printable("\xc0\xaf\xed\xa0\x80") ==
        "<0xc0><0xaf><0xed><0xa0><0x80>"); // overlong, surrogate
}
