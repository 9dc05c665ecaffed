#include "src/run/osc_filter.hpp"

#include <doctest/doctest.h>

#include <string>

using ws::OscFilter;

namespace {

/// The filter's output for `in`, fed whole, and checked to be the same fed in two parts split
/// at every position and byte by byte (a sequence may be split across reads).
std::string filtered(const std::string& in) {
  std::string whole;
  OscFilter().feed(in.data(), in.size(), whole);
  for (size_t cut = 0; cut <= in.size(); ++cut) {
    OscFilter f;
    std::string out;
    f.feed(in.data(), cut, out);
    f.feed(in.data() + cut, in.size() - cut, out);
    CHECK_MESSAGE(out == whole, "split at " << cut);
  }
  OscFilter f;
  std::string bytes;
  for (char c : in) {
    f.feed(&c, 1, bytes);
  }
  CHECK(bytes == whole);
  return whole;
}

} // namespace

TEST_CASE("OscFilter drops OSC 52 (clipboard set and query) whatever its form") {
  CHECK(filtered("a\x1b]52;c;Y3VybCBldmlsIHwgc2gK\x07z") == "az");
  CHECK(filtered("a\x1b]52;c;?\x07z") == "az");      // a query
  CHECK(filtered("a\x1b]52;p;eA==\x1b\\z") == "az"); // ST as ESC backslash
  CHECK(filtered("a\x1b]052;c;eA==\x07z") == "az");  // the number as terminals read it
  CHECK(filtered("a\xc2\x9d"
                 "52;c;eA==\xc2\x9cz") == "az"); // C1 OSC and ST as UTF-8
  CHECK(filtered("a\x9d"
                 "52;c;eA==\x9cz") == "az");              // 8-bit C1
  CHECK(filtered("a\x1b]52;c;eA==\x18z") == "az");        // cancelled by CAN
  CHECK(filtered("a\x1b]99999999999999;x\x07z") == "az"); // an absurd number
  // An ESC inside the string ends it and starts the next sequence, which passes.
  CHECK(filtered("\x1b]52;c;eA==\x1b[1mbold") == "\x1b[1mbold");
  // (the ESC that ended the first passes: a terminal ignores it before the next ESC)
  CHECK(filtered("\x1b]52;c;eA==\x1b\x1b]52;c;eA==\x07ok") == "\x1bok");
}

TEST_CASE("OscFilter passes everything else byte for byte") {
  const std::string tui = "\x1b[?1049h\x1b[?2004h\x1b[2J\x1b[H\x1b[38;5;208mclaude\x1b[0m"
                          "\x1b]0;title\x07\x1b]2;t\x1b\\\x1b]8;;https://x.test/\x1b\\link"
                          "\x1b]8;;\x1b\\\x1b]5;1;?\x07\x1b]10;?\x07\x1b]520;x\x07\x1b]\x07"
                          "\x1b\x1b[A\x1b(B\x1bM\x1b[?1049l";
  CHECK(filtered(tui) == tui);
  // UTF-8 whose continuation bytes are 0x9d and 0x9c (not C1 controls): Hebrew final mem,
  // U+201D, and U+009D's own neighbours.
  const std::string text = "\xd7\x9d \xe2\x80\x9d \xf0\x9f\x98\x9c \xc2\xa0 \xc3\x9d 52;c;x";
  CHECK(filtered(text) == text);
  CHECK(filtered("\xc2") == ""); // held until the next byte says what it is
  CHECK(filtered("\xc2x") == "\xc2x");
  CHECK(filtered("\x1b]5") == ""); // held: OSC 5 or OSC 52
  CHECK(filtered("\x1b]5;x\x07") == "\x1b]5;x\x07");
}
