// Small lifecycle promises: a reset leaves the view's root as the real tree's, `ws umount`
// waits for a slow daemon and says the truth, `ws umount --force` with a shell inside returns
// at once and `ws list` says what the view is.
#include "tests/integration/run_support.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <string>
#include <thread>

using namespace ws::test;

namespace {
constexpr auto npos = std::string::npos;
} // namespace

TEST_CASE("reset: the view's root shows the real tree's times again") {
  TestRepo repo;
  MountedWorkspace w(repo);
  std::string real = sh("stat -c %y .", repo.path()).out;
  CHECK(w.in_view("stat -c %y .").out == real);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  REQUIRE(w.in_view("echo x > new.txt && mkdir newdir && rm README.md").status == 0);
  CHECK(w.in_view("stat -c %y .").out != real);
  REQUIRE(w.ws("reset").status == 0);
  CHECK(w.in_view("stat -c %y .").out == real);
  CHECK(w.ws("status").out == "");
}

TEST_CASE("umount: waits for a daemon slow to finish, and says so") {
  TestRepo repo;
  MountedWorkspace w(repo);
  int pid = w.daemon_pid();
  REQUIRE(pid > 0);
  // A daemon slow to finish after the unmount (a machine under heavy load): here its last
  // journal commit waits 8 s for a lock another process holds on the journal.
  TempDir tmp;
  std::string journal = (w.state_dir() / "journal.db").string();
  pid_t holder = start_job(py() + " -c " +
                               q("import sqlite3, sys, time\n"
                                 "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
                                 "c.execute('BEGIN IMMEDIATE')\n"
                                 "open(sys.argv[2], 'w').close()\n"
                                 "time.sleep(8)\n") +
                               " " + q(journal) + " " + q((tmp.path() / "locked").string()),
                           "/", tmp.path() / "err");
  REQUIRE(wait_for(tmp.path() / "locked", 100));
  REQUIRE(w.in_view("echo x > new.txt").status == 0); // an entry the daemon must still commit
  auto start = std::chrono::steady_clock::now();
  Run r = w.ws("umount");
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  wait_job(holder, 20);
  CHECK_MESSAGE(r.status == 0, r.err);
  CHECK(r.err.find("waiting for the daemon (pid " + std::to_string(pid) + ") to finish") != npos);
  CHECK(r.err.find("did not exit") == npos);
  CHECK(took > 4);
  CHECK(w.ws("list").out.find("not mounted") != npos);
  CHECK(w.ws("log").out.find("new.txt") != npos); // nothing was lost either
}

TEST_CASE("umount: --force of a view nobody is in waits for a slow daemon, never says detached") {
  TestRepo repo;
  MountedWorkspace w(repo);
  int pid = w.daemon_pid();
  REQUIRE(pid > 0);
  // A daemon slow to finish after the unmount (a machine under heavy load): stopped for 4 s
  // the moment the view leaves the mount table. It serves no one; --force once took it for a
  // daemon serving processes inside a detached view, and ws mount then refused to mount.
  TempDir tmp;
  pid_t stopper =
      start_job(py() + " -c " +
                    q("import os, signal, sys, time\n"
                      "view, pid = ' ' + sys.argv[1] + ' ', int(sys.argv[2])\n"
                      "open(sys.argv[3], 'w').close()\n"
                      "end = time.time() + 30\n"
                      "while view in open('/proc/self/mountinfo').read() and time.time() < end:\n"
                      "    time.sleep(0.001)\n"
                      "os.kill(pid, signal.SIGSTOP)\n"
                      "time.sleep(4)\n"
                      "os.kill(pid, signal.SIGCONT)\n") +
                    " " + q(w.view().string()) + " " + std::to_string(pid) + " " +
                    q((tmp.path() / "watching").string()),
                "/", tmp.path() / "err");
  REQUIRE(wait_for(tmp.path() / "watching", 100));
  Run r = w.ws("umount --force");
  wait_job(stopper, 20);
  CHECK_MESSAGE(r.status == 0, r.err);
  CHECK(r.err.find("detached") == npos);
  CHECK(r.err.find("waiting for the daemon (pid " + std::to_string(pid) + ") to finish") != npos);
  CHECK(w.ws("list").out.find("not mounted") != npos);
  w.mount();
  CHECK(w.in_view("ls README.md").out == "README.md\n");
}

TEST_CASE("umount: --force with a shell inside detaches at once, and ws list says so") {
  TestRepo repo;
  MountedWorkspace w(repo);
  TempDir tmp;
  pid_t shell =
      start_job("cd " + q(w.view().string()) + " && exec sleep 60", "/", tmp.path() / "err");
  REQUIRE(w.in_view("sleep 0.3; echo ok").out == "ok\n");
  Run busy = w.ws("umount");
  CHECK(busy.status != 0);
  CHECK(busy.err.find("busy") != npos);
  auto start = std::chrono::steady_clock::now();
  Run forced = w.ws("umount --force");
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK_MESSAGE(forced.status == 0, forced.err);
  CHECK(took < 5);
  CHECK(forced.err.find("detached") != npos);
  CHECK(forced.err.find("keeps serving the processes still inside") != npos);
  Run list = w.ws("list");
  CHECK(list.out.find("detached (in use)") != npos);
  CHECK(list.out.find("starting") == npos);
  Run again = w.ws("mount");
  CHECK(again.status != 0);
  CHECK(again.err.find("detached") != npos);
  CHECK(again.err.find("hint:") != npos);
  ::kill(-shell, SIGKILL);
  wait_job(shell, 5);
  bool exited = false;
  for (int i = 0; i < 100 && !exited; ++i) {
    exited = w.ws("list").out.find("not mounted") != npos;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK(exited);
  w.mount();
  CHECK(w.in_view("ls README.md").out == "README.md\n");
}
