#include "fuse/journal.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

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
      w.record({0, t0 + i, "write", "src/f" + std::to_string(i % 3), "", 100 + i, 0, "cc", "0-1", 0,
                ""});
    }
    w.record({0, t0 + 5000, "rename", "a/x", "b/y", 7, 0, "mv", "", 0, ""});
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

TEST_CASE("fuse::ProcessNames gives the pid namespace") {
  ProcessNames names;
  struct stat st {};
  REQUIRE(::stat("/proc/self/ns/pid", &st) == 0);
  CHECK(names.info(getpid()).pidns == st.st_ino);
  CHECK(names.info(999999999).pidns == 0);
}

TEST_CASE("fuse::register_session names the entries of its pid namespace while it runs") {
  ws::test::TempDir dir;
  auto db = dir.path() / "journal.db";
  {
    JournalWriter w(db);
    w.record({0, now_ns(), "create", "before", "", 9, 0, "agent", "", 4242, ""});
    w.flush();
  }
  register_session(db, 4242, "default-20261122-120000-1", "claude", 10);
  {
    JournalWriter w(db);
    int64_t t = now_ns();
    w.record({0, t, "create", "a", "", 10, 0, "agent", "", 4242, ""});
    w.record({0, t + 1, "create", "b", "", 11, 0, "other", "", 77, ""});
    w.record({0, t + 2, "create", "c", "", 12, 0, "person", "", 0, ""});
    w.flush();
  }
  end_session(db, "default-20261122-120000-1");
  // The kernel reuses the namespace id for a later session: the first keeps its writes.
  register_session(db, 4242, "default-20261122-130000-2", "codex", 20);
  {
    JournalWriter w(db);
    w.record({0, now_ns(), "create", "later", "", 20, 0, "agent", "", 4242, ""});
    w.flush();
  }
  auto all = read_journal(db, {});
  REQUIRE(all.size() == 5);
  CHECK(all[0].session == ""); // before the session was recorded: not claimed
  CHECK(all[1].session == "default-20261122-120000-1");
  CHECK(all[1].pidns == 4242);
  CHECK(all[2].session == "");
  CHECK(all[3].session == "");
  CHECK(all[4].session == "default-20261122-130000-2");
  JournalQuery q;
  q.session = "default-20261122-120000-1";
  auto mine = read_journal(db, q);
  REQUIRE(mine.size() == 1);
  CHECK(mine[0].path == "a");
}
