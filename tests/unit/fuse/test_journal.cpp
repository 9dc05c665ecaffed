#include "fuse/journal.hpp"
#include "fuse/sqlite.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <thread>

using namespace ws::fuse;

namespace {
JournalEntry entry(int64_t time_ns, std::string op, std::string path, std::string path2,
                   int32_t pid, std::string comm, std::string detail = {}, uint64_t pidns = 0) {
  JournalEntry e;
  e.time_ns = time_ns;
  e.op = std::move(op);
  e.path = std::move(path);
  e.path2 = std::move(path2);
  e.pid = pid;
  e.tid = pid;
  e.comm = std::move(comm);
  e.detail = std::move(detail);
  e.pidns = pidns;
  return e;
}
} // namespace

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
      w.record(entry(t0 + i, "write", "src/f" + std::to_string(i % 3), "", 100 + i, "cc", "0-1"));
    }
    w.record(entry(t0 + 5000, "rename", "a/x", "b/y", 7, "mv"));
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

TEST_CASE("fuse::ProcessNames names a thread by its process, and keeps the thread's name") {
  ProcessNames names;
  std::promise<pid_t> started;
  std::promise<void> named_twice;
  std::shared_future<void> done = named_twice.get_future().share();
  std::thread worker([&] {
    pthread_setname_np(pthread_self(), "Bun Pool 0");
    started.set_value(static_cast<pid_t>(::syscall(SYS_gettid)));
    done.wait();
  });
  pid_t tid = started.get_future().get();
  ProcessInfo first = names.info(tid);
  CHECK(first.tgid == getpid());
  CHECK(first.comm == "ws_unit_tests");
  CHECK(first.thread == "Bun Pool 0");
  ProcessInfo cached = names.info(tid); // from the cache, checked against the start time
  CHECK(cached.tgid == getpid());
  CHECK(cached.thread == "Bun Pool 0");
  named_twice.set_value();
  worker.join();
  // join() returns when the thread has cleared its tid, a moment before the kernel lets its
  // /proc entry go: wait for that, as the daemon would long before the tid is reused.
  const std::string task = "/proc/self/task/" + std::to_string(tid);
  for (int i = 0; i < 500 && ::access(task.c_str(), F_OK) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  // The thread is gone: its cached entry must not answer for whoever gets the tid next.
  ProcessInfo gone = names.info(tid);
  CHECK(gone.comm == "?");
  CHECK(gone.tgid == 0);
}

TEST_CASE("fuse::ProcessNames follows an exec, and does not name a reused tid by its past") {
  ProcessNames names;
  int go[2];
  REQUIRE(::pipe(go) == 0);
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    char c;
    (void)!::read(go[0], &c, 1);
    ::execl("/bin/sleep", "sleep", "10", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(go[0]);
  CHECK(names.name(child) == "ws_unit_tests"); // forked, not yet exec'd: cached from here on
  REQUIRE(::write(go[1], "x", 1) == 1);
  ::close(go[1]);
  std::string now;
  for (int i = 0; i < 500 && now != "sleep"; ++i) { // until the exec is done
    now = names.name(child);
    ::usleep(2000);
  }
  CHECK(now == "sleep");
  CHECK(names.info(child).tgid == child);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  CHECK(names.name(child) == "?"); // reaped: the cached entry answers for no one
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
    w.record(entry(now_ns(), "create", "before", "", 9, "agent", "", 4242));
    w.flush();
  }
  register_session(db, 4242, "default-20261122-120000-1", "claude", 10);
  {
    JournalWriter w(db);
    int64_t t = now_ns();
    w.record(entry(t, "create", "a", "", 10, "agent", "", 4242));
    w.record(entry(t + 1, "create", "b", "", 11, "other", "", 77));
    w.record(entry(t + 2, "create", "c", "", 12, "person", "", 0));
    w.flush();
  }
  end_session(db, "default-20261122-120000-1");
  // The kernel reuses the namespace id for a later session: the first keeps its writes.
  register_session(db, 4242, "default-20261122-130000-2", "codex", 20);
  {
    JournalWriter w(db);
    w.record(entry(now_ns(), "create", "later", "", 20, "agent", "", 4242));
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

TEST_CASE("fuse::read_journal reads journals from before threads and profiles were recorded") {
  ws::test::TempDir dir;
  auto db = dir.path() / "journal.db";
  {
    Db old(db, Db::Mode::ReadWrite);
    old.exec("CREATE TABLE journal(id INTEGER PRIMARY KEY AUTOINCREMENT, time_ns INTEGER NOT NULL,"
             " op TEXT NOT NULL, path BLOB NOT NULL, path2 BLOB, pid INTEGER NOT NULL,"
             " uid INTEGER NOT NULL, comm TEXT NOT NULL, detail TEXT);"
             "INSERT INTO journal(time_ns, op, path, pid, uid, comm) VALUES(5, 'create', 'a', 7, 0,"
             " 'sh');");
  }
  auto old_entries = read_journal(db, {});
  REQUIRE(old_entries.size() == 1);
  CHECK(old_entries[0].comm == "sh");
  CHECK(old_entries[0].tid == 0);
  CHECK(old_entries[0].thread == "");
  CHECK(old_entries[0].profile == "");
  // A writer upgrades it; a session record with a profile (ws run writes it where it has
  // one) names the profile on its entries.
  register_session(db, 4242, "s1", "claude", 10);
  {
    Db d(db, Db::Mode::ReadWrite);
    bool has_profile = false;
    {
      Stmt has(d, "SELECT count(*) FROM pragma_table_info('session_spans') WHERE name = 'profile'");
      has_profile = has.step() && has.int64(0) > 0;
    }
    if (!has_profile) {
      d.exec("ALTER TABLE session_spans ADD COLUMN profile TEXT");
    }
    d.exec("UPDATE session_spans SET profile = 'claude' WHERE session = 's1'");
  }
  {
    JournalWriter w(db);
    JournalEntry e = entry(now_ns(), "write", "b", "", 10, "claude", "0-1", 4242);
    e.tid = 12;
    e.thread = "Bun Pool 0";
    w.record(e);
    JournalEntry wb = entry(now_ns() + 1, "write", "m", "", 10, "claude", "0-4096", 4242);
    wb.via = "mapped";
    w.record(wb);
    w.flush();
  }
  auto all = read_journal(db, {});
  REQUIRE(all.size() == 3);
  CHECK(all[1].tid == 12);
  CHECK(all[1].thread == "Bun Pool 0");
  CHECK(all[1].session == "s1");
  CHECK(all[1].profile == "claude");
  CHECK(all[2].via == "mapped");
}
