// The journal, crash safety, the daemon's lifecycle, and who may do what in a view.
#include "fuse/unique_fd.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace ws::test;
namespace fs = std::filesystem;

TEST_CASE("journal: 20 processes writing concurrently are each named with their pid") {
  TestRepo repo;
  std::string before = repo.snapshot();
  MountedWorkspace w(repo);
  Run r =
      w.in_view("mkdir out && for i in $(seq 20); do "
                "sh -c 'echo $$ > out/pid'$i'; for k in $(seq 50); do echo line$k >> out/f'$i'; "
                "done' & done; wait; cat out/f*| wc -l");
  REQUIRE(r.status == 0);
  CHECK(r.out == "1000\n");
  // Every write entry of out/fN names the shell that wrote it, and together they cover the
  // file (writes are coalesced per file and process, so the count of entries may vary).
  Run check = sh(q(ws_binary().string()) +
                     " log --json --path out | python3 -c '\n"
                     "import json, os, sys\n"
                     "entries = json.load(sys.stdin)\n"
                     "bad = 0\n"
                     "for i in range(1, 21):\n"
                     "    pid = int(open(sys.argv[1] + \"/out/pid%d\" % i).read())\n"
                     "    size = os.path.getsize(sys.argv[1] + \"/out/f%d\" % i)\n"
                     "    writes = [e for e in entries if e[\"path\"] == \"out/f%d\" % i and "
                     "e[\"op\"] == \"write\"]\n"
                     "    covered = set()\n"
                     "    for e in writes:\n"
                     "        for r in e[\"detail\"].split(\",\"):\n"
                     "            a, b = map(int, r.split(\"-\"))\n"
                     "            covered.update(range(a, b))\n"
                     "    if not writes or covered != set(range(size)) or any(e[\"pid\"] != pid or "
                     "e[\"comm\"] != \"sh\" for e in writes):\n"
                     "        bad += 1\n"
                     "print(bad)' " +
                     q(w.view().string()),
                 repo.path());
  CHECK(check.err == "");
  CHECK(check.out == "0\n");
  CHECK(repo.snapshot() == before);
}

TEST_CASE("journal: records operation + path + target + ranges - --since and --path filter") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(
      w.in_view(
           "printf 'abcd' > n.txt && printf 'efgh' >> n.txt && mv n.txt m.txt && ln -s m.txt s && "
           "chmod +x m.txt && mkdir d && rmdir d && rm s")
          .status == 0);
  Run log = w.ws("log");
  CHECK(log.status == 0);
  for (const char* expected :
       {"create    n.txt", "write     n.txt  [0-8]", "rename    n.txt -> m.txt",
        "symlink   s -> m.txt", "chmod     m.txt  [0755]", "mkdir     d", "rmdir     d",
        "unlink    s"}) {
    CHECK_MESSAGE(log.out.find(expected) != std::string::npos, expected);
  }
  CHECK(w.ws("log --path m.txt").out.find("rename    n.txt -> m.txt") != std::string::npos);
  CHECK(w.ws("log --path d").out.find("n.txt") == std::string::npos);
  CHECK(w.ws("log --since @4102444800").out == ""); // 2100-01-01
  CHECK(w.ws("log -n 1").out.find("unlink    s") != std::string::npos);
  Run bad = w.ws("log --since yesterday");
  CHECK(bad.status == 1);
  CHECK(bad.err.find("cannot understand --since 'yesterday'") != std::string::npos);
  // A writer that is gone before its writes are journaled is still named.
  REQUIRE(w.in_view("python3 -c 'open(\"README.md\", \"a\").write(\"x\")'").status == 0);
  Run gone = w.ws("log --json --path README.md");
  CHECK(gone.out.find("\"op\": \"write\"") != std::string::npos);
  CHECK(gone.out.find("\"comm\": \"python3\"") != std::string::npos);
}

TEST_CASE("lifecycle: kill -9 of the daemon mid-write - the next command cleans up and nothing "
          "committed is lost") {
  TestRepo repo;
  std::string before = repo.snapshot();
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("mkdir heavy && echo first > heavy/first.txt").status == 0);
  REQUIRE(w.ws("log").out.find("heavy/first.txt") != std::string::npos); // flushed
  std::thread writer([&] {
    w.in_view("i=0; while [ $i -lt 100000 ]; do echo $i > heavy/f$i || exit 0; i=$((i+1)); done");
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  int pid = w.daemon_pid();
  REQUIRE(pid > 0);
  REQUIRE(::kill(pid, SIGKILL) == 0);
  writer.join();
  // At once, while its exit may still be closing its fds (256 kept for files it made, its
  // lock among them): gone, not mounted.
  Run list = w.ws("list");
  CHECK(list.out.find("daemon gone; run ws mount") != std::string::npos);
  CHECK(list.out.find("mounted") == std::string::npos);

  Run again = w.ws("mount"); // waits for the old daemon's lock
  CHECK(again.status == 0);
  CHECK(again.err.find("had died") != std::string::npos);
  CHECK(again.out == w.view().string() + "\n");
  // The journal database is intact and holds everything committed before the kill.
  Run integrity =
      sh("python3 -c 'import sqlite3, sys; "
         "print(sqlite3.connect(sys.argv[1]).execute(\"pragma integrity_check\").fetchone()[0])' " +
         q((w.state_dir() / "journal.db").string()));
  CHECK(integrity.out == "ok\n");
  CHECK(w.ws("log --path heavy/first.txt").out.find("create") != std::string::npos);
  // Status matches the view exactly: every file the agent made is there and listed.
  Run files = w.in_view("ls heavy | wc -l");
  Run listed = w.ws("status --verbose"); // one line each, none folded
  size_t n = std::stoul(files.out);
  CHECK(n > 10);
  size_t count = 0;
  for (size_t pos = 0; (pos = listed.out.find("A heavy/", pos)) != std::string::npos; ++pos) {
    ++count;
  }
  CHECK(count == n);
  CHECK(w.in_view("cat heavy/first.txt").out == "first\n");
  CHECK(repo.snapshot() == before);
}

TEST_CASE("lifecycle: a killed daemon whose lock is still held is gone for ws list, and ws "
          "mount waits for the lock") {
  TestRepo repo;
  MountedWorkspace w(repo);
  int pid = w.daemon_pid();
  REQUIRE(pid > 0);
  // The daemon's own lock, held on past its death: as while a killed daemon's exit is still
  // closing its fds, only for as long as the test likes.
  ws::fuse::UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  REQUIRE(pidfd);
  ws::fuse::UniqueFd lock;
  fs::path lock_file = w.state_dir() / "daemon.lock";
  for (const auto& fd : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) {
    std::error_code ec;
    if (fs::read_symlink(fd.path(), ec) == lock_file) {
      int number = std::stoi(fd.path().filename().string());
      lock.reset(static_cast<int>(::syscall(SYS_pidfd_getfd, pidfd.get(), number, 0)));
    }
  }
  if (!lock) {
    MESSAGE("cannot take the daemon's lock fd (pidfd_getfd: " << std::strerror(errno) << ")");
    ::kill(pid, SIGKILL);
    return;
  }
  REQUIRE(::kill(pid, SIGKILL) == 0);
  auto dead = [&] { // reaped, or a zombie
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat;
    return !std::getline(in, stat) || stat.find(") Z ") != std::string::npos;
  };
  for (int i = 0; i < 200 && !dead(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  REQUIRE(dead());
  Run list = w.ws("list");
  INFO("ws list: " << list.out << list.err);
  CHECK(list.out.find("daemon gone; run ws mount") != std::string::npos);
  CHECK(list.out.find("mounted") == std::string::npos);
  Run json = w.ws("list --json");
  CHECK(json.out.find("\"state\": \"stale\"") != std::string::npos);
  CHECK(json.out.find("\"daemon\": null") != std::string::npos);
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    lock.reset();
  });
  Run again = w.ws("mount");
  release.join();
  CHECK_MESSAGE(again.status == 0, again.err);
  CHECK(again.out == w.view().string() + "\n");
  CHECK(w.in_view("cat README.md").status == 0);
}

TEST_CASE("lifecycle: a second mount returns the same view - umount + list and rm") {
  TestRepo repo;
  MountedWorkspace w(repo);
  Run second = w.ws("mount");
  CHECK(second.out == w.view().string() + "\n");
  CHECK(w.ws("list").out.find("* default          mounted") != std::string::npos);
  REQUIRE(w.in_view("echo x > x").status == 0);
  w.unmount();
  CHECK(w.ws("list").out.find("not mounted          1 changed path") != std::string::npos);
  CHECK(w.ws("umount").err == "workspace 'default' is not mounted\n");
  Run rm = w.ws("rm default");
  CHECK(rm.status == 1);
  CHECK(rm.err.find("has 1 changed path that would be lost") != std::string::npos);
  CHECK(w.ws("rm --force default").status == 0);
  CHECK(w.ws("list").out == "");
}

TEST_CASE("lifecycle: two workspaces of one repository side by side") {
  TestRepo repo;
  MountedWorkspace a(repo, "agent-a");
  MountedWorkspace b(repo, "agent-b");
  CHECK(a.view() != b.view());
  REQUIRE(a.in_view("echo a > README.md").status == 0);
  CHECK(b.in_view("head -1 README.md").out == "# Project\n");
  CHECK(a.ws("status").out == "M README.md\n");
  CHECK(b.ws("status").out == "");
}

TEST_CASE("view: the person's edits to the real tree show within a second - the agent's paths keep "
          "its version") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("cat src/util.c src/main.c > /dev/null && echo agent > src/main.c").status ==
          0);
  repo.write("src/util.c", "// person\n");
  repo.write("src/main.c", "// person\n");
  repo.write("person-new.txt", "hi\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  CHECK(w.in_view("cat src/util.c").out == "// person\n");
  CHECK(w.in_view("cat src/main.c").out == "agent\n");
  CHECK(w.in_view("cat person-new.txt").out == "hi\n");
  CHECK(w.ws("status").out == "M src/main.c\n");
}

TEST_CASE(
    "view: cached names + misses + attributes and listings follow the person's edits at once") {
  TestRepo repo;
  MountedWorkspace w(repo);
  // Fill the kernel's caches: a listing, a stat, a miss, file content.
  REQUIRE(w.in_view("ls docs/guide && stat src/util.h && test ! -e src/new.c && cat README.md")
              .status == 0);
  repo.write("docs/guide/more.txt", "more\n");
  repo.write("src/new.c", "int n;\n");
  repo.write("README.md", "# Rewritten by the person, longer than before\n");
  sh("chmod +x src/util.h && rm docs/guide/intro.txt", repo.path());
  // inotify reports within milliseconds; allow a little for the invalidation to land.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  CHECK(w.in_view("ls docs/guide").out == "more.txt\n");
  CHECK(w.in_view("stat -c %a src/util.h").out == "755\n");
  CHECK(w.in_view("cat src/new.c").out == "int n;\n");
  CHECK(w.in_view("cat README.md").out == "# Rewritten by the person, longer than before\n");
  CHECK(w.ws("status").out == "");
}

TEST_CASE("errors: disk full gives the agent ENOSPC and the daemon survives") {
  if (::geteuid() != 0) {
    return; // needs a tmpfs of its own; covered where the suite runs as root
  }
  TestRepo repo;
  struct TmpfsGuard {
    std::filesystem::path dir;
    ~TmpfsGuard() {
      if (!dir.empty()) {
        sh("umount -l " + q(dir.string()));
      }
    }
  } guard;
  {
    MountedWorkspace w(repo, [&](const std::filesystem::path& root) {
      std::filesystem::create_directories(root / "data");
      REQUIRE(sh("mount -t tmpfs -o size=4m tmpfs " + q((root / "data").string())).status == 0);
      guard.dir = root / "data";
    });
    Run full = w.in_view("dd if=/dev/zero of=big bs=1M count=16 2>&1");
    CHECK(full.status != 0);
    CHECK(full.out.find("No space left on device") != std::string::npos);
    REQUIRE(w.in_view("rm big && echo fine > small && cat small").out == "fine\n");
    CHECK(w.ws("status").out == "A small\n");
  }
}
