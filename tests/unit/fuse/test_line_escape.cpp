// One value per line in the workspace's text files: escaped, it stays on its line, and comes
// back as it was.
#include "fuse/line_escape.hpp"

#include <doctest/doctest.h>

#include <string>

using ws::fuse::escape_line;
using ws::fuse::unescape_line;

TEST_CASE("fuse::escape_line keeps a value on one line and unescape_line gives it back") {
  for (std::string value : {std::string(""), std::string("plain"), std::string("two\nlines\n"),
                            std::string("back\\slash"), std::string("\\n is not a newline"),
                            std::string("ends in \\"), std::string("nul\0byte", 8)}) {
    CAPTURE(value);
    std::string line = escape_line(value);
    CHECK(line.find('\n') == std::string::npos);
    CHECK(unescape_line(line) == value);
  }
  CHECK(escape_line("a\nb\\c") == "a\\nb\\\\c");
  CHECK(unescape_line("a\\nb\\\\c") == "a\nb\\c");
}
