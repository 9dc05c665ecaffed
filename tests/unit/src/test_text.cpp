#include "src/cli/text.hpp"

#include <doctest/doctest.h>

using namespace ws;

TEST_CASE("quote_path quotes as git does") {
  CHECK(quote_path("src/a.c") == "src/a.c");
  CHECK(quote_path("with space") == "with space");
  CHECK(quote_path("new\nline") == "\"new\\nline\"");
  CHECK(quote_path("bad\xff") == "\"bad\\377\"");
  CHECK(quote_path("q\"b\\") == "\"q\\\"b\\\\\"");
}

TEST_CASE("json_string keeps UTF-8 and escapes everything else") {
  CHECK(json_string("a\"b") == "\"a\\\"b\"");
  CHECK(json_string("caf\xc3\xa9") == "\"caf\xc3\xa9\"");
  CHECK(json_string("bad\xff") == "\"bad\\udcff\"");
  CHECK(json_string(std::string("\x01", 1)) == "\"\\u0001\"");
}

TEST_CASE("parse_since understands durations + dates and epochs") {
  int64_t now = 1'000'000LL * 1'000'000'000LL;
  CHECK(parse_since("30s", now) == now - 30LL * 1'000'000'000);
  CHECK(parse_since("2h", now) == now - 7200LL * 1'000'000'000);
  CHECK(parse_since("@100", now) == 100LL * 1'000'000'000);
  CHECK(parse_since("2026-11-22", now).has_value());
  CHECK(parse_since("2026-11-22 10:30", now).has_value());
  CHECK(!parse_since("yesterday", now).has_value());
  CHECK(!parse_since("", now).has_value());
}

TEST_CASE("summarize_ranges keeps short lists and sums long ones") {
  CHECK(summarize_ranges("0-4096,8192-8200") == "0-4096,8192-8200");
  CHECK(summarize_ranges("0-10,20-30,40-50,60-70") == "4 ranges, 40 bytes in 0-70");
  CHECK(summarize_ranges("0-8192,10000-12000,20000-30000,40000-50000") ==
        "4 ranges, 29.5 KiB in 0-50000");
  CHECK(summarize_ranges("not ranges") == "not ranges");
  CHECK(summarize_ranges("1-2,3-4,5-6,x-y") == "1-2,3-4,5-6,x-y");
}

TEST_CASE("visible_text shows what a terminal would act on") {
  // C0 controls and DEL: the escapes of OSC 52 and CSI never reach the terminal.
  CHECK(visible_text("\x1b]52;c;Y3Vy\x07") == "\\e]52;c;Y3Vy\\x07");
  CHECK(visible_text("a\rb\nc\td\x7f") == "a\\rb\\nc\\td\\x7f");
  // Content keeps its tabs and line breaks, and nothing else.
  CHECK(visible_text("a\tb\nc\rd\x1b[2K", true) == "a\tb\nc\\rd\\e[2K");
  // C1 controls as UTF-8, and as raw bytes that are not UTF-8.
  CHECK(visible_text("x\xc2\x9b"
                     "2K") == "x<U+009B>2K");
  CHECK(visible_text("x\x9b"
                     "2K") == "x\\x9b2K");
  // Bidi controls (Trojan Source) and invisible characters are marked.
  CHECK(visible_text("a\xe2\x80\xae"
                     "b\xe2\x81\xa6"
                     "c\xe2\x80\x8e"
                     "d\xd8\x9c") == "a<U+202E>b<U+2066>c<U+200E>d<U+061C>");
  CHECK(visible_text("\xef\xbb\xbfz\xe2\x80\x8b") == "<U+FEFF>z<U+200B>");
  // Overlong forms and surrogates are not UTF-8 (an overlong ESC is still not ESC).
  CHECK(visible_text("\xc0\x9b") == "\\xc0\\x9b");
  CHECK(visible_text("\xed\xa0\x80") == "\\xed\\xa0\\x80");
  CHECK(visible_text("\xf0\x9f\x98") == "\\xf0\\x9f\\x98"); // cut short
  // Printable text passes, backslashes too, so quote_path's output passes unchanged.
  CHECK(visible_text("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80 \\n") ==
        "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80 \\n");
  CHECK(visible_text(quote_path("a\x1b\n\xe2\x80\xae")) == quote_path("a\x1b\n\xe2\x80\xae"));
  CHECK(visible_text(std::string("nul\0", 4)) == "nul\\x00");
}

TEST_CASE("json_string leaves nothing a terminal acts on") {
  CHECK(json_string("\x7f") == "\"\\u007f\"");
  CHECK(json_string("a\xc2\x9b"
                    "b") == "\"a\\u009bb\"");
  CHECK(json_string("\xe2\x80\xae") == "\"\\u202e\"");
  CHECK(json_string("\xe2\x80\xa8") == "\"\\u2028\"");
  CHECK(json_string("\xc0\x9b") == "\"\\udcc0\\udc9b\"");
  CHECK(json_string("\x1b") == "\"\\u001b\"");
}
