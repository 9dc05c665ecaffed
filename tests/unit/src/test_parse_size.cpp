#include "src/cli/error.hpp"
#include "src/daemon/daemon.hpp"

#include <doctest/doctest.h>

#include <string>

TEST_CASE("parse_size takes bytes and k, m, g, t in powers of 1024") {
  using ws::parse_size;
  CHECK(parse_size("0") == 0);
  CHECK(parse_size("4096") == 4096);
  CHECK(parse_size("1k") == 1024);
  CHECK(parse_size("1K") == 1024);
  CHECK(parse_size("500M") == 500ull << 20);
  CHECK(parse_size("10G") == 10ull << 30);
  CHECK(parse_size("10g") == 10ull << 30);
  CHECK(parse_size("2T") == 2ull << 40);
  CHECK(parse_size("18446744073709551615") == 18446744073709551615ull);
}

TEST_CASE("parse_size refuses junk with a hint") {
  for (const char* junk : {"", "G", "-1", "1.5G", "10GB", "10 G", " 10G", "10x", "0x10", "1e9"}) {
    INFO("'" << junk << "'");
    CHECK_THROWS_WITH_AS(ws::parse_size(junk), doctest::Contains("invalid size"), ws::Error);
  }
  CHECK_THROWS_WITH_AS(ws::parse_size("18446744073709551616"), doctest::Contains("too large"),
                       ws::Error);
  CHECK_THROWS_WITH_AS(ws::parse_size("17179869184G"), doctest::Contains("too large"), ws::Error);
  try {
    ws::parse_size("lots");
  } catch (const ws::Error& e) {
    CHECK(e.hint().find("10G") != std::string::npos);
  }
}
