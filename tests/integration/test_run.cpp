// ws run through the real binary and real bubblewrap: what the confined agent can and cannot
// reach, as root and as an unprivileged user; sessions, signals, exit status, failing closed.
#include "tests/integration/run_support.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <thread>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

constexpr auto npos = std::string::npos;

/// A write outside the project fails: read-only, not allowed, or (a private home, /home as
/// root) not even there.
bool refused_or_absent(const std::string& errname) {
  return refused(errname) || errname == "ENOENT";
}

/// Someone who runs ws: a user (empty: this process's) with a home and ws's directories in it.
struct Agent {
  std::string user;
  fs::path home, project;
  fs::path data() const { return home / ".local" / "share"; }
  fs::path runtime() const { return home / ".run"; }
  std::string env() const {
    return "env HOME=" + q(home.string()) + " XDG_DATA_HOME=" + q(data().string()) +
           " XDG_RUNTIME_DIR=" + q(runtime().string()) + " ";
  }
  Run ws(const std::string& args) const {
    std::string cmd = env() + q(ws_binary().string()) + " " + args;
    return sh(user.empty() ? cmd : "runuser -u " + user + " -- " + cmd, project);
  }
};

/// Connects to the host's 127.0.0.1:PORT: prints what the server said, or the error's name.
const std::string k_connect =
    "import errno, socket, sys\n"
    "try:\n"
    "    c = socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=5)\n"
    "    print('net=' + c.recv(5).decode())\n"
    "except OSError as e:\n"
    "    print('net=' + errno.errorcode.get(e.errno or 0, 'timeout'))\n";

/// The agent's probe: KEY=PATH arguments; prints KEY=OK or KEY=ERRNO-NAME per write.
const std::string k_probe =
    "import errno, os, sys\n"
    "a = dict(x.split('=', 1) for x in sys.argv[1:])\n"
    "def attempt(key, path):\n"
    "    try:\n"
    "        with open(path, 'a') as f: f.write('agent\\n')\n"
    "        print(key + '=OK')\n"
    "    except OSError as e:\n"
    "        print(key + '=' + errno.errorcode[e.errno])\n"
    "attempt('project', a['project'] + '/agent.txt')\n"
    "attempt('readme', a['project'] + '/README.md')\n"
    "attempt('home', os.environ['HOME'] + '/agent.txt')\n"
    "attempt('etc', '/etc/ws-run-agent.txt')\n"
    "attempt('other', a['other'] + '/agent.txt')\n"
    "attempt('tmp', a['inside'])\n"
    "print('hosttmp=' + str(os.path.exists(a['host'])))\n"
    "for key in ('state', 'views'):\n"
    "    d = a[key]\n"
    "    print(key + '=' + (','.join(os.listdir(d)) if os.path.isdir(d) else 'absent'))\n"
    "print('cwd=' + os.getcwd())\n"
    "print('uid=' + str(os.getuid()))\n";

/// The confinement as `user` sees it ("" = this process's user; as root, "nobody" is made
/// the owner of the project and of its own home outside /tmp).
void check_confinement(const std::string& user) {
  OutsideDir base(outside_tmp_bases()); // not /tmp: a private tmpfs inside the sandbox
  TestRepo repo;
  Agent a{user, base.path() / "home", repo.path()};
  fs::create_directories(a.runtime());
  fs::create_directories(a.data());
  ::chmod(a.runtime().c_str(), 0700);
  fs::path other = base.path() / "other-project";
  REQUIRE(sh("git init -q " + q(other.string()) + " && chmod 755 " + q(other.string())).status ==
          0);
  if (!user.empty()) {
    REQUIRE(sh("chmod 755 " + q(repo.path().parent_path().string()) + " && chown -R " + user + " " +
               q(a.home.string()) + " " + q(repo.path().string()))
                .status == 0);
  }
  char host_tmp[] = "/tmp/ws-run-host-XXXXXX";
  REQUIRE(::mkdtemp(host_tmp) != nullptr);
  fs::path inside_tmp = "/tmp/ws-run-inside-" + std::to_string(::getpid()) + "-" + user;
  std::string before = repo.snapshot();
  struct Cleanup {
    const Agent& a;
    std::string host, inside;
    ~Cleanup() {
      a.ws("umount --force 2>/dev/null");
      sh("rm -rf " + q(host) + " " + q(inside));
    }
  } cleanup{a, host_tmp, inside_tmp.string()};

  Run r = a.ws("run -- " + py() + " -c " + q(k_probe) + " project=" + q(repo.path().string()) +
               " other=" + q(other.string()) + " inside=" + q(inside_tmp.string()) +
               " host=" + q(host_tmp) + " state=" + q((a.data() / "ws").string()) +
               " views=" + q((a.runtime() / "ws").string()));
  INFO("ws run as '" << user << "': " << r.out << r.err);
  CHECK(r.status == 0);
  CHECK(field(r.out, "project") == "OK");
  CHECK(field(r.out, "readme") == "OK");
  CHECK(field(r.out, "home") == "OK"); // a private home: writable, gone after the session
  CHECK(refused_or_absent(field(r.out, "etc")));
  CHECK(refused_or_absent(field(r.out, "other")));
  CHECK(field(r.out, "tmp") == "OK");        // /tmp is writable inside...
  CHECK(!fs::exists(inside_tmp));            // ...but private: not the host's /tmp
  CHECK(field(r.out, "hosttmp") == "False"); // and the host's /tmp does not show inside
  CHECK(field(r.out, "state") == "");        // $XDG_DATA_HOME/ws: an empty tmpfs
  CHECK(field(r.out, "views") == "");        // $XDG_RUNTIME_DIR/ws: the same
  CHECK(field(r.out, "cwd") == repo.path().string());
  CHECK(field(r.out, "uid") + "\n" == sh("id -u " + user).out); // the agent runs as the user
  // The writes landed in the view; the real tree, home, /etc and the other project are as
  // they were.
  CHECK(repo.snapshot() == before);
  CHECK(!fs::exists(a.home / "agent.txt"));
  CHECK(!fs::exists("/etc/ws-run-agent.txt"));
  CHECK(!fs::exists(other / "agent.txt"));
  Run st = a.ws("status");
  CHECK(st.out.find("A agent.txt\n") != npos);
  CHECK(st.out.find("M README.md\n") != npos);
  // The state is on the host all the same (so hiding it inside is what kept it away).
  CHECK(!fs::is_empty(a.data() / "ws"));

  // The network namespace is always private: the host's loopback services are out of reach
  // with the network on (slirp4netns, host loopback refused) as with it off.
  LoopbackServer server;
  REQUIRE(!server.port.empty());
  std::string connect = py() + " -c " + q(k_connect) + " " + server.port;
  Run on = a.ws("run --network=on -- " + connect);
  CHECK_MESSAGE(field(on.out, "net") == "ECONNREFUSED", on.out << on.err);
  Run off = a.ws("run --network=off -- " + connect);
  CHECK_MESSAGE(field(off.out, "net") == "ECONNREFUSED", off.out << off.err);
  CHECK(off.status == 0);
}

std::string ws_env(const MountedWorkspace& w) {
  return "XDG_DATA_HOME=" + q((w.state_root() / "data").string()) +
         " XDG_RUNTIME_DIR=" + q((w.state_root() / "run").string()) + " ";
}

} // namespace

TEST_CASE("run: as root the project path is the view and the rest is read-only or private") {
  if (::geteuid() != 0) {
    MESSAGE("not root: nothing to check as root");
    return;
  }
  check_confinement("");
}

TEST_CASE("run: as an unprivileged user the same confinement holds") {
  if (::geteuid() == 0 &&
      sh("id nobody && command -v runuser && command -v fusermount3").status != 0) {
    MESSAGE("no user 'nobody', runuser or fusermount3");
    return;
  }
  check_confinement(::geteuid() == 0 ? "nobody" : "");
}

TEST_CASE("run: as root inside no remount or unmount reaches the real tree") {
  if (::geteuid() != 0) {
    return;
  }
  TestRepo repo;
  MountedWorkspace w(repo);
  Run r = w.ws("run -- sh -c " +
               q("id -u; mount -o remount,rw / 2>/dev/null; echo remount=$?; "
                 "umount -l " +
                 q(repo.path().string()) +
                 " 2>/dev/null; echo umount=$?; "
                 "touch /usr/ws-run-agent 2>/dev/null; echo usr=$?; echo still > still.txt"));
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  CHECK(r.out.find("0\n") == 0); // still root (uid 0), only without capabilities
  CHECK(field(r.out, "remount") != "0");
  CHECK(field(r.out, "umount") != "0");
  CHECK(field(r.out, "usr") != "0");
  CHECK(!fs::exists("/usr/ws-run-agent"));
  CHECK(slurp(w.view() / "still.txt") == "still\n");
  CHECK(!fs::exists(repo.path() / "still.txt"));
}

TEST_CASE("run: --writable keeps a path writable and refuses paths inside the project") {
  OutsideDir base(outside_tmp_bases()); // not /tmp: a private tmpfs inside the sandbox
  TestRepo repo;
  MountedWorkspace w(repo);
  fs::path cache = base.path() / "cache";
  fs::create_directories(cache);
  std::string write = " -- sh -c 'echo w >> " + cache.string() + "/w.txt'";
  Run ro = w.ws("run" + write);
  CHECK(ro.status != 0); // read-only, or (under /home) not even there: the home is private
  CHECK(!fs::exists(cache / "w.txt"));
  Run rw = w.ws("run --writable " + q(cache.string()) + write);
  CHECK_MESSAGE(rw.status == 0, rw.err);
  CHECK(slurp(cache / "w.txt") == "w\n");

  // A writable parent of the state (say, all of $HOME) is refused.
  Run parent = w.ws("run --writable " + q(w.state_root().string()) + " -- sh -c 'echo ran'");
  CHECK(parent.status == 1);
  CHECK(parent.out.empty());
  CHECK_MESSAGE(parent.err.find("contains the workspace state") != npos, parent.err);

  for (const std::string& inside :
       std::vector<std::string>{"src", ".", repo.path().string() + "/docs/guide"}) {
    Run r = w.ws("run --writable " + q(inside) + " -- sh -c 'echo ran > ran.txt'");
    CHECK_MESSAGE(r.status == 1, inside);
    CHECK_MESSAGE(r.err.find(" the project (") != npos, r.err);
    CHECK(!fs::exists(w.view() / "ran.txt"));
  }
  Run missing = w.ws("run --writable /nonexistent/ws-run -- true");
  CHECK(missing.status == 1);
  CHECK(missing.err.find("--writable /nonexistent/ws-run") != npos);
}

TEST_CASE("run: two concurrent sessions on one workspace see each other's writes") {
  TestRepo repo;
  MountedWorkspace w(repo);
  // Each waits (up to 10 s) for the other's file rather than sleeping a fixed time.
  auto first = std::async(std::launch::async, [&] {
    // Written aside and renamed: the other side must never see a created, still empty file.
    return w.ws("run -- sh -c 'echo a > a.tmp && mv a.tmp a.txt; i=0; while [ ! -e b.txt ] && [ $i "
                "-lt 100 ]; "
                "do sleep 0.1; i=$((i+1)); done; cat b.txt'");
  });
  Run second = w.ws("run -- sh -c 'i=0; while [ ! -e a.txt ] && [ $i -lt 100 ]; do sleep 0.1; "
                    "i=$((i+1)); done; cat a.txt; echo b > b.tmp && mv b.tmp b.txt'");
  Run one = first.get();
  CHECK_MESSAGE(one.status == 0, one.err);
  CHECK_MESSAGE(second.status == 0, second.err);
  CHECK(one.out == "b\n");
  CHECK(second.out == "a\n");
  CHECK(w.ws("status").out == "A a.txt\nA b.txt\n");
  CHECK(!fs::exists(repo.path() / "a.txt"));
}

TEST_CASE("run: Ctrl-C reaches the agent and ws prints its summary") {
  TestRepo repo;
  MountedWorkspace w(repo);
  TempDir tmp;
  // The agent cleans up on SIGINT (it takes a moment, as real clean-ups do), then exits 5.
  std::string agent = "trap 'sleep 0.5; echo got-int > int.txt; exit 5' INT; "
                      "echo ready > ready.txt; i=0; while [ $i -lt 200 ]; do sleep 0.1; "
                      "i=$((i+1)); done; echo no-int > int.txt";
  pid_t job =
      start_job("exec env " + ws_env(w) + q(ws_binary().string()) + " run -- sh -c " + q(agent),
                repo.path(), tmp.path() / "err");
  REQUIRE(wait_for(w.view() / "ready.txt"));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ::kill(-job, SIGINT); // what the terminal does on Ctrl-C: the whole foreground group
  int status = wait_job(job, 30);
  std::string err = slurp(tmp.path() / "err");
  INFO("ws stderr: " << err);
  CHECK(slurp(w.view() / "int.txt") == "got-int\n");
  CHECK(status == 5);
  CHECK(err.find("ended (exit " + std::to_string(status) + ")") != npos); // ws survived
  CHECK(err.find("review: ws diff") != npos);
}

TEST_CASE("run: the agent's exit status passes through") {
  TestRepo repo;
  MountedWorkspace w(repo);
  Run seven = w.ws("run -- sh -c 'exit 7'");
  CHECK(seven.status == 7);
  CHECK(seven.err.find("ended (exit 7)") != npos);
  Run zero = w.ws("run -- true");
  CHECK(zero.status == 0);
  Run killed = w.ws("run -- sh -c 'kill -TERM $$'");
  CHECK(killed.status == 128 + SIGTERM);
}

TEST_CASE("run: a session that cannot be confined fails closed") {
  TestRepo repo;
  MountedWorkspace w(repo);
  TempDir host;
  // Unconfined, the command would leave a marker in the view and one in the host's /tmp.
  std::string cmd =
      " run -- sh -c " + q("echo ran > ran.txt; echo ran > " + (host.path() / "ran").string());
  // bwrap never comes from PATH; WS_BWRAP must name a trusted (root-owned) one.
  for (std::string env : {"WS_BWRAP=/nonexistent", "WS_BWRAP=/nonexistent PATH=/nonexistent"}) {
    Run r = sh("env " + env + " " + ws_env(w) + q(ws_binary().string()) + cmd, repo.path());
    INFO(env << ": " << r.err);
    CHECK(r.status != 0);
    CHECK(r.err.find("ws: error: cannot confine the agent") != npos);
    CHECK(r.err.find("--no-confine") != npos);
    CHECK(!fs::exists(w.view() / "ran.txt"));
    CHECK(!fs::exists(host.path() / "ran"));
    CHECK(!fs::exists(repo.path() / "ran.txt"));
  }
}

TEST_CASE("run: the journal attributes a session's writes to it") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("echo host > host.txt").status == 0);
  // Unsetting WS_SESSION does not hide a write: the session is the pid namespace.
  Run r = w.ws("run -- sh -c 'echo $WS_SESSION > session.txt; echo x > s1.txt; "
               "env -u WS_SESSION sh -c \"echo y > s1b.txt\"'");
  REQUIRE(r.status == 0);
  std::string id = slurp(w.view() / "session.txt");
  REQUIRE(id.size() > 1);
  id.pop_back();
  CHECK(id.find("default-") == 0);
  CHECK(r.err.find("session " + id + " ended") != npos);
  REQUIRE(w.ws("run -- sh -c 'echo z > s2.txt'").status == 0);

  // path<TAB>session per entry of ws log --json.
  static const std::string k_parse = "import json, sys\n"
                                     "for e in json.load(sys.stdin):\n"
                                     "    print(e['path'] + '\\t' + e.get('session', ''))\n";
  Run json = w.ws("log --json | " + py() + " -c " + q(k_parse));
  INFO(json.out << json.err);
  CHECK(json.status == 0);
  CHECK(json.out.find("s1.txt\t" + id + "\n") != npos);
  CHECK(json.out.find("s1b.txt\t" + id + "\n") != npos);
  CHECK(json.out.find("session.txt\t" + id + "\n") != npos);
  CHECK(json.out.find("host.txt\t\n") != npos);
  CHECK(json.out.find("s2.txt\tdefault-") != npos);
  CHECK(json.out.find("s2.txt\t" + id + "\n") == npos);

  Run only = w.ws("log --session " + q(id));
  CHECK(only.status == 0);
  CHECK(only.out.find("s1.txt") != npos);
  CHECK(only.out.find("s1b.txt") != npos);
  CHECK(only.out.find("(session " + id + ")") != npos);
  CHECK(only.out.find("host.txt") == npos);
  CHECK(only.out.find("s2.txt") == npos);
}

TEST_CASE("run: the end of a session prints a summary and saves a checkpoint") {
  TestRepo repo;
  MountedWorkspace w(repo);
  Run r = w.ws("run -- sh -c 'echo x > feature.txt; mkdir -p node_modules/m; "
               "echo y > node_modules/m/i.js; echo all: >> Makefile; exit 3'");
  INFO(r.err);
  CHECK(r.status == 3);
  CHECK(r.err.find("ws: session default-") != npos);
  // "ended (exit 3); checkpoint 1 saved", or ", checkpoint 1" where that passes 80 columns
  // (a longer pid in the session's name).
  CHECK(r.err.find("ended (exit 3)") != npos);
  CHECK(r.err.find(" checkpoint 1") != npos);
  CHECK(r.err.find("A  feature.txt\n") != npos);
  CHECK(r.err.find("M  Makefile  runs code on your machine") != npos);
  CHECK(r.err.find("WITHHELD") != npos);
  CHECK(r.err.find("node_modules/m/i.js") != npos);
  CHECK(r.err.find("under node_modules/") != npos);
  CHECK(r.err.find("FLAGGED") != npos);
  CHECK(r.err.find("runs code on your machine") != npos);
  CHECK(r.err.find("review: ws diff    apply: ws apply    throw away: ws reset") != npos);
  Run cps = w.ws("checkpoints --json");
  CHECK(cps.out.find("\"message\": \"end of ws run: sh -c ") != npos);
  Run list = w.ws("checkpoints");
  CHECK(list.out.find("end of ws run") != npos);

  // Named workspaces are named in the commands; an empty session says so.
  MountedWorkspace other(repo, "other");
  Run quiet = other.ws("run -- true");
  CHECK(quiet.err.find("ws: no changes in workspace 'other'") != npos);
  Run named = other.ws("run -- sh -c 'echo n > n.txt'");
  // In 80 columns: the three commands in full take 84.
  CHECK(named.err.find("review: ws -w other diff, then ws -w other apply (or reset)\n") != npos);
}

TEST_CASE("run: the summary fits 24 lines whatever the workspace holds") {
  TestRepo repo;
  MountedWorkspace w(repo);
  // Nothing folds: 150 new files and 150 new scripts (withheld, one per directory, so no
  // directory is all one verdict) and 40 flagged Makefiles.
  std::string make = "import os\n"
                     "for i in range(150):\n"
                     "    d = 'd%d' % i\n"
                     "    os.makedirs(d)\n"
                     "    open(d + '/f.txt', 'w').write('x')\n"
                     "    open(d + '/run.sh', 'w').write('#!/bin/sh')\n"
                     "    os.chmod(d + '/run.sh', 0o755)\n"
                     "    if i < 40: open(d + '/Makefile', 'w').write('all:')\n"
                     "d = 'aa-very-long-directory-name-for-a-too-wide-line/generated/output'\n"
                     "os.makedirs(d)\n"
                     "open(d + '/run.sh', 'w').write('#!/bin/sh')\n"
                     "os.chmod(d + '/run.sh', 0o755)\n";
  REQUIRE(w.in_view("python3 -c " + q(make)).status == 0);
  Run r = w.ws("run -- true");
  INFO(r.err);
  size_t from = r.err.find("ws: session ");
  size_t to = r.err.find("review: ws diff");
  REQUIRE(from != npos);
  REQUIRE(to != npos);
  std::string summary = r.err.substr(from, r.err.find('\n', to) + 1 - from);
  CHECK(std::count(summary.begin(), summary.end(), '\n') <= 24);
  CHECK(summary.find("341 changed paths") != npos);
  // And 80 columns: a path too long is cut in the middle, its letter and reason kept.
  std::istringstream lines(summary);
  bool cut = false;
  for (std::string line; std::getline(lines, line);) {
    CHECK_MESSAGE(line.size() <= 80, line);
    cut = cut || (line.starts_with("  A  aa-very-long-") && line.find("...") != npos &&
                  line.ends_with("output/run.sh  new executable"));
  }
  CHECK(cut);
  // Each kind of verdict still shows, with how many more there are and where to see them.
  CHECK(summary.find("  A  d0/f.txt\n") != npos);
  CHECK(summary.find("FLAGGED") != npos);
  CHECK(summary.find("WITHHELD") != npos);
  CHECK(summary.find("new executable") != npos);
  CHECK(summary.find(" more (ws status)\n") != npos);
}

TEST_CASE("run: ws run creates the workspace if needed") {
  TestRepo repo;
  TempDir state;
  fs::create_directories(state.path() / "r");
  ::chmod((state.path() / "r").c_str(), 0700);
  std::string ws = "env XDG_DATA_HOME=" + q((state.path() / "d").string()) +
                   " XDG_RUNTIME_DIR=" + q((state.path() / "r").string()) + " " +
                   q(ws_binary().string()) + " ";
  Run r = sh(ws + "run -- sh -c 'echo made > made.txt'", repo.path());
  CHECK_MESSAGE(r.status == 0, r.err);
  CHECK(r.err.find("ws: created workspace 'default' for " + repo.path().string()) != npos);
  CHECK(sh(ws + "status", repo.path()).out == "A made.txt\n");
  CHECK(sh(ws + "list", repo.path()).out.find("* default") == 0);
  CHECK(!fs::exists(repo.path() / "made.txt"));
  Run again = sh(ws + "run -- true", repo.path());
  CHECK(again.err.find("created workspace") == npos);
  CHECK(sh(ws + "umount", repo.path()).status == 0);
}

TEST_CASE("run: terminal input injection fails with EPERM") {
  if (sh("command -v script").status != 0) {
    MESSAGE("no script(1) to give the agent a terminal");
    return;
  }
  TestRepo repo;
  MountedWorkspace w(repo);
  static const std::string k_inject = "import errno, fcntl, os, termios\n"
                                      "print('tty=' + str(os.isatty(0)))\n"
                                      "try:\n"
                                      "    fcntl.ioctl(0, termios.TIOCSTI, b'x')\n"
                                      "    print('tiocsti=injected')\n"
                                      "except OSError as e:\n"
                                      "    print('tiocsti=' + errno.errorcode[e.errno])\n";
  std::string inner =
      "env " + ws_env(w) + q(ws_binary().string()) + " run -- " + py() + " -c " + q(k_inject);
  Run r = sh("script -qc " + q(inner) + " /dev/null", repo.path());
  INFO(r.out << r.err);
  std::string out = r.out;
  std::erase(out, '\r');
  // script(1) passes its stdin's end on as a NUL byte, which the agent's pty echoes as ^@.
  for (size_t at; (at = out.find("^@")) != npos;) {
    out.erase(at, 2);
  }
  CHECK(field(out, "tty") == "True");
  CHECK(field(out, "tiocsti") == "EPERM");
}

TEST_CASE("run: sessions do not nest") {
  TestRepo repo;
  MountedWorkspace w(repo);
  // The build's binary may live under /tmp, which is private inside: take a copy in.
  REQUIRE(sh("cp " + q(ws_binary().string()) + " " + q((w.view() / "ws-copy").string())).status ==
          0);
  Run r = w.ws("run -- sh -c './ws-copy run -- true'");
  CHECK(r.status == 1);
  CHECK(r.err.find("already inside ws session") != npos);
}

TEST_CASE("run: ws shell runs the person's shell in the same confinement") {
  TestRepo repo;
  MountedWorkspace w(repo);
  Run r = w.ws("shell <<'EOF'\n"
               "echo \"$WS_SESSION\" > shell.txt\n"
               "touch /etc/ws-shell-test 2>/dev/null && echo escaped > escaped.txt\n"
               "exit 3\n"
               "EOF");
  CHECK(r.status == 3);
  CHECK(w.in_view("cat shell.txt").out.rfind("default-", 0) == 0);
  CHECK(!fs::exists(w.view() / "escaped.txt"));
  CHECK(!fs::exists("/etc/ws-shell-test"));
  CHECK(!fs::exists(repo.path() / "shell.txt"));
}

TEST_CASE("run: a resized terminal is seen by the agent") {
  if (sh("command -v tmux").status != 0) {
    MESSAGE("tmux is not installed: skipped");
    return;
  }
  TestRepo repo;
  MountedWorkspace w(repo);
  TempDir tmux_dir;
  std::string sock = q((tmux_dir.path() / "tmux.sock").string());
  // The agent reports its terminal's size when told it changed (SIGWINCH).
  std::string agent = "trap 'stty size > winch.txt' WINCH; echo ready > ready.txt; "
                      "i=0; while [ ! -e winch.txt ] && [ $i -lt 100 ]; do sleep 0.1; "
                      "i=$((i+1)); done";
  std::string cmd = "cd " + q(repo.path().string()) + " && env " + ws_env(w) +
                    q(ws_binary().string()) + " run -- bash -c " + q(agent) + "; sleep 30";
  REQUIRE(sh("tmux -S " + sock + " -f /dev/null new-session -d -x 80 -y 24 " + q(cmd)).status == 0);
  auto wait_for = [&](const fs::path& p) {
    for (int i = 0; i < 100 && !fs::exists(p); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return fs::exists(p);
  };
  CHECK(wait_for(w.view() / "ready.txt"));
  CHECK(sh("tmux -S " + sock + " resize-window -x 132 -y 40").status == 0);
  CHECK(wait_for(w.view() / "winch.txt"));
  CHECK(w.in_view("cat winch.txt").out == "40 132\n");
  sh("tmux -S " + sock + " kill-server");
}

TEST_CASE("run: a daemon that dies during the session is said loudly, and ws run fails") {
  TestRepo repo;
  MountedWorkspace w(repo);
  TempDir tmp;
  // The agent writes, waits to be told the daemon is gone, then tries again.
  std::string agent = "echo before > before.txt; i=0; while [ ! -e " +
                      q((tmp.path() / "killed").string()) +
                      " ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done; "
                      "echo after > after.txt 2>/dev/null; exit 0";
  auto session = std::async(std::launch::async, [&] { return w.ws("run -- sh -c " + q(agent)); });
  REQUIRE(wait_for(w.view() / "before.txt"));
  int pid = w.daemon_pid();
  REQUIRE(pid > 0);
  ::kill(pid, SIGKILL);
  std::ofstream(tmp.path() / "killed") << "x";
  Run r = session.get();
  INFO(r.err);
  CHECK(r.status != 0); // the agent itself exited 0
  CHECK(r.err.find("the workspace's daemon died during the session") != npos);
  // The next command serves the view again; what was written before is kept.
  Run st = w.ws("status");
  CHECK(st.status == 0);
  CHECK(st.out.find("A before.txt") != npos);
}
