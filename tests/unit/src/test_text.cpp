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
