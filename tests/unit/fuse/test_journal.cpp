#include "fuse/journal.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

using namespace ws::fuse;

TEST_CASE("fuse::RangeSet coalesces touching and overlapping writes") {
  RangeSet r;
  r.add(0, 4096);
  r.add(4096, 4096);
  r.add(10000, 10);
  r.add(9000, 1500);
  CHECK(r.str() == "0-8192,9000-10500");
  r.add(0, 20000);
  CHECK(r.str() == "0-20000");
}

TEST_CASE("fuse::JournalWriter commits batches - read_journal filters by path and time") {
  ws::test::TempDir dir;
  auto db = dir.path() / "journal.db";
  int64_t t0 = now_ns();
  {
    JournalWriter w(db);
    for (int i = 0; i < 2500; ++i) {
      w.record({0, t0 + i, "write", "src/f" + std::to_string(i % 3), "", 100 + i, 0, "cc", "0-1"});
    }
    w.record({0, t0 + 5000, "rename", "a/x", "b/y", 7, 0, "mv", ""});
    w.flush();
    CHECK(read_journal(db, {}).size() == 2501);
  }
  JournalQuery q;
  q.path = "b";
  auto renamed = read_journal(db, q);
  REQUIRE(renamed.size() == 1);
  CHECK(renamed[0].path2 == "b/y");
  CHECK(renamed[0].comm == "mv");
  JournalQuery since;
  since.since_ns = t0 + 2499;
  CHECK(read_journal(db, since).size() == 2);
  JournalQuery last;
  last.limit = 3;
  auto tail = read_journal(db, last);
  REQUIRE(tail.size() == 3);
  CHECK(tail.back().op == "rename");
  CHECK(tail.front().id < tail.back().id);
}

TEST_CASE("fuse::ProcessNames names this process") {
  ProcessNames names;
  CHECK(names.name(getpid()) == "ws_unit_tests");
  CHECK(names.name(999999999) == "?");
}
