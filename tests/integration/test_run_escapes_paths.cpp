// ws run escape tests, escapes 6-10: --writable/--read, agent config, bwrap, other workspaces,
// limits; options. Known ways out of `ws run`'s sandbox, each tried for real through the real
// binary and real bubblewrap, as root and as an unprivileged user ("nobody" when these tests run as
// root). "escape N:" follows the numbered list of what the sandbox must hold (docs/run.md); what
// the test asserts is what a person would check afterwards: files on the host, exit codes,
// messages.
#include "tests/integration/run_escapes_common.hpp"

#include <doctest/doctest.h>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace ws::test;
namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// 6. What --writable and --read refuse.

namespace {

void check_refusals(const std::string& user) {
  Person p(user);
  // Run a copy of ws from a directory of its own, so that refusing the binary's directory
  // cannot be confused with refusing the build tree.
  p.use_own_ws_copy();
  REQUIRE(p.ws("run -- true").status == 0); // the workspace and its state exist

  fs::path parent = p.project().parent_path();
  fs::path link = p.base() / "link-to-parent";
  fs::create_directory_symlink(parent, link);
  fs::path state = p.data() / "ws";
  REQUIRE(fs::is_directory(state));
  std::vector<fs::path> paths{p.project(), p.project() / ".git",
                              parent,      parent.parent_path(),
                              "/",         "/usr",
                              "/usr/bin",  link,
                              state,       p.data(),
                              p.binary,    p.binary.parent_path(),
                              real_bwrap()};
  fs::path alias = p.base() / "alias-of-parent";
  bool bound = false;
  if (::geteuid() == 0) {
    fs::create_directories(alias);
    bound = sh("mount --bind " + q(parent.string()) + " " + q(alias.string())).status == 0;
    CHECK_MESSAGE(bound, "cannot bind-mount the project's parent");
    if (bound) {
      paths.push_back(alias);
    }
  }
  Finally unbind{[&] {
    if (bound) {
      sh("umount -l " + q(alias.string()));
    }
  }};

  int n = 0;
  std::vector<std::pair<std::string, std::string>> markers; // marker, "FLAG PATH"
  for (const std::string flag : {"--writable", "--read"}) {
    for (const auto& path : paths) {
      std::string marker = "ran-" + std::to_string(++n) + ".txt";
      markers.emplace_back(marker, flag + " " + path.string());
      Run r =
          p.ws("run " + flag + " " + q(path.string()) + " -- sh -c " + q("echo ran > " + marker));
      std::error_code ec;
      std::string canonical = fs::canonical(path, ec).string();
      INFO("as " << p.label() << ": ws run " << flag << " " << path << ": " << r.status << "\n"
                 << r.err);
      CHECK(r.status == 1);
      CHECK(r.err.find("ws: error:") != npos);
      CHECK((r.err.find(path.string()) != npos || r.err.find(canonical) != npos));
    }
  }
  // The agent never ran: none of its markers is in the view (one look for all of them).
  Run listing = p.sh_as("ls -a", p.view());
  REQUIRE(listing.out.find("README.md\n") != npos);
  for (const auto& entry : markers) {
    // Named copies, not structured bindings: clang 14 cannot capture those in
    // doctest's message lambdas.
    const auto& marker = entry.first;
    const auto& what = entry.second;
    CHECK_MESSAGE(listing.out.find(marker + "\n") == npos, "the agent ran with " << what);
  }
  CHECK(fs::exists(p.project() / ".git" / "HEAD"));

  // A harmless path still works, both ways.
  fs::path fresh = p.base() / "fresh";
  fs::create_directories(fresh);
  p.own(fresh);
  for (const std::string flag : {"--writable", "--read"}) {
    Run ok = p.ws("run " + flag + " " + q(fresh.string()) + " -- sh -c 'echo ok > ok.txt'");
    INFO(flag << " " << fresh << ": " << ok.status << " " << ok.err);
    CHECK(ok.status == 0);
    CHECK(p.view_file("ok.txt") == "ok\n");
  }
}

void check_grandparent(const std::string& user) {
  Person p(user);
  REQUIRE(p.ws("run -- true").status == 0);
  fs::path parent = p.project().parent_path();
  fs::path grandparent = parent.parent_path();
  fs::path moved = grandparent / "proj.moved";
  std::string before = sh("find . -printf '%y %m %s %p\\n' | LC_ALL=C sort", p.project()).out;
  Finally put_back{[&] {
    if (fs::exists(moved)) {
      std::error_code ec;
      fs::remove_all(parent, ec);
      fs::rename(moved, parent, ec);
    }
  }};
  // With the grandparent writable, move the real tree aside and plant a repository where the
  // project was: what `ws apply` and the person's next `git` would then work on.
  std::string agent = "mv " + q(parent.string()) + " " + q(moved.string()) + " && mkdir -p " +
                      q(p.project().string()) + " && cd " + q(p.project().string()) +
                      " && git init -q && echo planted > planted.txt && echo swapped";
  Run r = p.ws("run --writable " + q(grandparent.string()) + " -- sh -c " + q(agent));
  INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
  CHECK(r.status == 1);
  CHECK(r.err.find("ws: error:") != npos);
  CHECK(r.err.find(grandparent.string()) != npos);
  CHECK(r.out.find("swapped") == npos);
  CHECK_MESSAGE(!fs::exists(moved), "the real tree was moved away");
  CHECK(!fs::exists(p.project() / "planted.txt"));
  CHECK(sh("find . -printf '%y %m %s %p\\n' | LC_ALL=C sort", p.project()).out == before);
}

} // namespace

TEST_CASE("escape 6: --writable and --read refuse the project, its parents, the state, ws, "
          "bwrap and aliases") {
  as_each(check_refusals);
}

TEST_CASE("escape 6: a writable grandparent cannot swap the project for a planted repository") {
  as_each(check_grandparent);
}

// ---------------------------------------------------------------------------------------------
// 8. Agent configuration that runs code on the host: ~/.claude, ~/.codex.

namespace {

/// Each KEY=PATH: writes PATH (making its directory first); KEY=OK or the errno's name.
const std::string k_writes = "import errno, os, sys\n"
                             "for a in sys.argv[1:]:\n"
                             "    k, path = a.split('=', 1)\n"
                             "    try:\n"
                             "        os.makedirs(os.path.dirname(path), exist_ok=True)\n"
                             "        with open(path, 'a') as f:\n"
                             "            f.write('agent\\n')\n"
                             "        print(k + '=OK')\n"
                             "    except OSError as e:\n"
                             "        print(k + '=' + errno.errorcode.get(e.errno, '?'))\n";

void check_agent_config(const std::string& user) {
  Person p(user);
  fs::path claude = p.home() / ".claude", codex = p.home() / ".codex";
  fs::create_directories(claude);
  fs::create_directories(codex);
  std::ofstream(claude / "settings.json") << "{}";
  std::ofstream(codex / "config.toml") << "model = \"o3\"\n";
  p.own(p.home());
  struct Attempt {
    std::string key;
    fs::path path;
    fs::path protected_path; ///< what must not be at its place afterwards ("" = may persist)
  };
  const std::vector<Attempt> attempts{
      {"settings", claude / "settings.json", claude / "settings.json"},
      {"hook", claude / "hooks" / "x", claude / "hooks"},
      {"local", claude / "settings.local.json", claude / "settings.local.json"},
      {"plugin", claude / "plugins" / "evil" / "index.js", claude / "plugins"},
      {"transcript", claude / "projects" / "p" / "t.jsonl", {}},
      {"codex_config", codex / "config.toml", codex / "config.toml"},
      {"codex_package", codex / "packages" / "x" / "index.js", codex / "packages"},
      {"codex_session", codex / "sessions" / "x.jsonl", {}}};
  std::string args;
  for (const auto& a : attempts) {
    args += " " + q(a.key + "=" + a.path.string());
  }
  Run r = p.ws("run --writable " + q(claude.string()) + " --writable " + q(codex.string()) +
               " -- " + py() + " -c " + q(k_writes) + args);
  INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
  CHECK(r.status == 0);
  // Existing settings: the write fails and the file is as it was.
  CHECK(refused(field(r.out, "settings")));
  CHECK(slurp(claude / "settings.json") == "{}");
  CHECK(refused(field(r.out, "codex_config")));
  CHECK(slurp(codex / "config.toml") == "model = \"o3\"\n");
  // New hooks, local settings, plugins, packages: not at their place after the session; if the
  // agent could make them inside, the summary names what was moved aside.
  for (const auto& a : attempts) {
    if (a.protected_path.empty() || a.key == "settings" || a.key == "codex_config") {
      continue;
    }
    CHECK_MESSAGE(!fs::exists(a.path), a.path << " is on the host after the session");
    // Gone, or at most an empty directory (which runs nothing).
    std::error_code ec;
    CHECK_MESSAGE((!lexists(a.protected_path) ||
                   (fs::is_directory(a.protected_path, ec) && fs::is_empty(a.protected_path, ec))),
                  a.protected_path << " was left in place");
    if (field(r.out, a.key) == "OK") {
      std::string rel = a.protected_path.lexically_relative(p.home()).string();
      CHECK_MESSAGE(r.err.find(rel) != npos, "the summary does not name ~/" << rel);
    }
  }
  // Ordinary files are the agent's to keep.
  CHECK(field(r.out, "transcript") == "OK");
  CHECK(slurp(claude / "projects" / "p" / "t.jsonl") == "agent\n");
  CHECK(field(r.out, "codex_session") == "OK");
  CHECK(slurp(codex / "sessions" / "x.jsonl") == "agent\n");
}

} // namespace

TEST_CASE("escape 8: with --writable ~/.claude and ~/.codex, settings, hooks and plugins stay "
          "protected") {
  as_each(check_agent_config);
}

// ---------------------------------------------------------------------------------------------
// 9. Which bubblewrap.

namespace {

/// A fake bwrap at `path`: notes that it ran in `marker`, then execs the real one.
void fake_bwrap(const fs::path& path, const fs::path& marker) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << "#!/bin/sh\necho ran >> " << q(marker.string()) << "\nexec "
                      << q(real_bwrap().string()) << " \"$@\"\n";
  ::chmod(path.c_str(), 0755);
}

void check_bwrap_from_path(const std::string& user) {
  Person p(user);
  REQUIRE(p.ws("run -- true").status == 0);
  fs::path fakebin = p.base() / "fakebin";
  fs::path marker = p.scratch() / "fake-bwrap-ran";
  fs::path outside = p.base() / "outside";
  fake_bwrap(fakebin / "bwrap", marker);
  fs::create_directories(outside);
  p.own(fakebin);
  p.own(outside);
  const char* path = std::getenv("PATH");
  std::string env = "PATH=" + q(fakebin.string() + ":" + (path ? path : "/usr/bin:/bin"));
  // (--writable of that directory is refused: it is on PATH. test_run_path_guard.cpp)
  Run r = p.ws("run -- sh -c " + q("touch " + (outside / "escaped").string() +
                                   " 2>/dev/null; echo x > inside.txt"),
               env);
  INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
  CHECK(r.status == 0);
  CHECK_MESSAGE(!fs::exists(marker), "ws ran the bwrap it found first in PATH");
  CHECK_MESSAGE(!fs::exists(outside / "escaped"), "the agent was not confined");
  CHECK(p.view_file("inside.txt") == "x\n");
}

void check_ws_bwrap(const std::string& user) {
  Person p(user);
  REQUIRE(p.ws("run -- true").status == 0);
  fs::path marker = p.scratch() / "fake-bwrap-ran";
  std::vector<std::pair<std::string, fs::path>> fakes;
  // Owned by someone other than root: the person (or nobody, for root).
  fs::path owned = p.base() / "by-user" / "bwrap";
  fake_bwrap(owned, marker);
  if (::geteuid() == 0) {
    std::string owner = p.user().empty() ? "nobody" : p.user();
    if (sh("chown " + q(owner) + " " + q(owned.string())).status == 0) {
      fakes.emplace_back("owned by " + owner, owned);
    }
  } else {
    fakes.emplace_back("owned by this user", owned);
  }
  if (::geteuid() == 0) {
    fs::path world = p.base() / "world-writable" / "bwrap";
    fake_bwrap(world, marker);
    ::chmod(world.c_str(), 0777);
    fakes.emplace_back("world-writable", world);
    fs::path group = p.base() / "group-writable" / "bwrap";
    fake_bwrap(group, marker);
    ::chmod(group.c_str(), 0775);
    fakes.emplace_back("group-writable", group);
  } else {
    MESSAGE("not root: no root-owned, group- or world-writable WS_BWRAP to try");
  }
  p.own(p.scratch());
  REQUIRE(!fakes.empty());
  int n = 0;
  for (const auto& entry : fakes) {
    // Named copies, not structured bindings: clang 14 cannot capture those in
    // doctest's message lambdas.
    const auto& what = entry.first;
    const auto& fake = entry.second;
    std::string ran = "ran-" + std::to_string(++n) + ".txt";
    Run r = p.ws("run -- sh -c " + q("echo ran > " + ran), "WS_BWRAP=" + q(fake.string()));
    INFO("as " << p.label() << ": WS_BWRAP " << what << ": ws run " << r.status << "\n" << r.err);
    CHECK(r.status != 0);
    CHECK(r.err.find("ws: error:") != npos);
    CHECK(r.err.find(fake.string()) != npos);
    CHECK_MESSAGE(!fs::exists(marker), "ws ran the WS_BWRAP " << what);
    CHECK_MESSAGE(!p.view_has(ran), "the agent ran");
    fs::remove(marker);
  }
}

} // namespace

TEST_CASE("escape 9: a bwrap first in PATH or in a writable directory is never run") {
  as_each(check_bwrap_from_path);
}

TEST_CASE("escape 9: WS_BWRAP must be root-owned and writable by no one else") {
  as_each(check_ws_bwrap);
}

// ---------------------------------------------------------------------------------------------
// 10. Other workspaces, disk, processes.

namespace {

/// Paths on stdin: "found=N", then a connection to each unix socket under one of the
/// directories in the arguments (the test's own: no poking at other daemons on this machine),
/// PATH=OK or the errno's name.
const std::string k_connect_found =
    "import errno, socket, sys\n"
    "paths = [l.strip() for l in sys.stdin if l.strip()]\n"
    "print('found=' + str(len(paths)))\n"
    "for path in paths:\n"
    "    if not any(path.startswith(d + '/') for d in sys.argv[1:]):\n"
    "        continue\n"
    "    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
    "    s.settimeout(5)\n"
    "    try:\n"
    "        s.connect(path)\n"
    "        s.sendall(b'drop-all x\\n')\n"
    "        reply = s.recv(256)\n"
    "        print(path + ('=REFUSED' if reply.startswith(b'error') or not reply else '=OK'))\n"
    "    except OSError as e:\n"
    "        print(path + '=' + errno.errorcode.get(e.errno, '?'))\n";

void check_other_control_socket(const std::string& user) {
  Person p(user);
  REQUIRE(p.ws("run -- true").status == 0);
  // The other workspace: its state under an XDG_DATA_HOME outside /tmp and the home.
  OutsideDir other(::geteuid() == 0 ? std::vector<std::string>{"/srv", "/var/lib", "/opt"}
                                    : std::vector<std::string>{p.base().string()});
  fs::path repo = other.path() / "project";
  fs::create_directories(other.path() / "run");
  fs::create_directories(other.path() / "data");
  ::chmod((other.path() / "run").c_str(), 0700);
  REQUIRE(sh("git init -q -b main " + q(repo.string()) + " && cd " + q(repo.string()) +
             " && echo other > other.txt && git add -A && git -c user.name=T -c "
             "user.email=t@example.com commit -q -m init")
              .status == 0);
  p.own(other.path());
  std::string env = "XDG_DATA_HOME=" + q((other.path() / "data").string()) +
                    " XDG_RUNTIME_DIR=" + q((other.path() / "run").string());
  auto other_ws = [&](const std::string& args) { return sh(p.as(p.ws_line(args, env)), repo); };
  REQUIRE(other_ws("new").status == 0);
  Run mounted = other_ws("mount");
  REQUIRE(mounted.status == 0);
  Finally unmount{[&] { other_ws("umount --force"); }};
  fs::path other_view = trim(mounted.out);
  REQUIRE(p.sh_as("echo keep > keep.txt", other_view).status == 0);
  REQUIRE(other_ws("status").out == "A keep.txt\n");
  REQUIRE(!sh("find " + q(other.path().string()) + " -name control.sock -type s").out.empty());

  std::string agent = "timeout 30 find / \\( -path /proc -o -path /sys -o -path /dev \\) -prune "
                      "-o -name control.sock -type s -print 2>/dev/null | " +
                      py() + " -c " + q(k_connect_found) + " " + q(other.path().string()) + " " +
                      q(p.base().string());
  Run r = p.ws("run -- sh -c " + q(agent));
  INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
  CHECK(r.status == 0);
  CHECK(field(r.out, "found") != "<missing>");
  // A socket in a directory the sandbox shows read-only can be connected to (a read-only
  // mount does not stop connect()); the daemon answers no peer from a sandbox.
  CHECK_MESSAGE(r.out.find("=OK") == npos, "a workspace's daemon obeyed the agent");
  Run status = other_ws("status");
  CHECK(status.status == 0);
  CHECK(status.out == "A keep.txt\n");
  CHECK(p.sh_as("cat keep.txt", other_view).out == "keep\n");
}

void check_max_disk(const std::string& user) {
  Person p(user);
  Run big = p.ws("run --max-disk 10M -- dd if=/dev/zero of=big bs=1M count=20");
  INFO("as " << p.label() << ": ws run " << big.status << "\n" << big.out << big.err);
  CHECK(big.status != 0);
  CHECK(big.err.find("No space left on device") != npos);
  Run status = p.ws("status");
  CHECK_MESSAGE(status.status == 0, "the daemon died: " << status.err);
  Run rm = p.ws("run --max-disk 10M -- rm big");
  CHECK_MESSAGE(rm.status == 0, rm.err);
  Run small = p.ws("run --max-disk 10M -- dd if=/dev/zero of=small bs=1M count=5");
  CHECK_MESSAGE(small.status == 0, "the space was not freed: " << small.err);
}

void check_many_writers(const std::string& user) {
  Person p(user);
  REQUIRE(p.ws("run -- true").status == 0);
  TempDir logs;
  // 2000 writers alive at once need a limit above them: under the default 1024 the shell
  // meets EAGAIN while the daemon still has creates queued, ends, and the session's end kills
  // the writers still waiting (which ones is timing), so only the limit's own test would run.
  pid_t job = start_job(
      p.as(p.ws_line("run --max-procs 4096 -- sh -c " +
                     q("for i in $(seq 2000); do (echo $i > f$i) & done; wait; echo finished"))),
      p.project(), logs.path() / "err");
  int status = wait_job(job, 180);
  INFO("as " << p.label() << ": ws run " << status << "\n" << slurp(logs.path() / "err"));
  CHECK(status == 0);
  Run st = p.ws("status");
  CHECK_MESSAGE(st.status == 0, "the daemon died: " << st.err);
  Run count = p.sh_as("ls | grep -c '^f[0-9]*$'; cat f1 f2000", p.view());
  CHECK(count.out == "2000\n1\n2000\n");
  CHECK(p.ws("run -- sh -c 'echo alive > alive.txt'").status == 0);
  CHECK(p.view_file("alive.txt") == "alive\n");
}

} // namespace

TEST_CASE("escape 10: another workspace's control socket is out of reach") {
  as_each(check_other_control_socket);
}

TEST_CASE("escape 10: --max-disk ends a runaway write with ENOSPC and the daemon lives") {
  as_each(check_max_disk);
}

TEST_CASE("escape 10: 2000 concurrent writers do not kill the daemon") {
  as_each(check_many_writers);
}

TEST_CASE("escape 10: a fork bomb meets a process limit and the daemon and host survive") {
  std::string user;
  if (::geteuid() == 0) {
    std::vector<std::string> all = people();
    if (all.size() < 2) {
      MESSAGE("no unprivileged user to run it as: skipped");
      return;
    }
    user = all[1];
  }
  Person p(user);
  REQUIRE(p.ws("run -- true").status == 0);
  // 4 processes fork at once children of 15 threads each (tasks: what a process limit
  // counts), at most 500 children (8000 tasks, so that a sandbox without any limit cannot
  // exhaust the host's pids); a fork takes ~2.5 ms on a small machine (support/forkbomb.cpp).
  REQUIRE(p.sh_as("cp " + q(WS_FORKBOMB) + " forkbomb", p.view()).status == 0);
  TempDir logs;
  pid_t job = start_job(p.as(p.ws_line("run -- timeout 10 ./forkbomb 4 500 15 6 > " +
                                       q((p.scratch() / "out").string()))),
                        p.project(), logs.path() / "err");
  int status = wait_job(job, 60);
  std::string out = slurp(p.scratch() / "out");
  INFO("as " << p.label() << ": ws run " << status << "\n" << out << slurp(logs.path() / "err"));
  CHECK(status != -1);
  CHECK(field(out, "forks") != "<missing>");
  CHECK_MESSAGE(field(out, "error") == "EAGAIN", "no process limit stopped the fork bomb");
  Run st = p.ws("status");
  CHECK_MESSAGE(st.status == 0, "the daemon died: " << st.err);
  CHECK(sh("echo host-alive").out == "host-alive\n");
}

// ---------------------------------------------------------------------------------------------
// Command line and sessions.

namespace {

void check_global_options(const std::string& user) {
  Person p(user);
  p.uses("try2");
  Run r = p.ws("run -w try2 -- sh -c 'echo x > t.txt'");
  INFO("as " << p.label() << ": ws run -w try2: " << r.status << "\n" << r.err);
  CHECK(r.status == 0);
  CHECK(p.ws("-w try2 status").out == "A t.txt\n");
  CHECK(p.ws("status").out.find("t.txt") == npos);

  // -C before -- from elsewhere: the project named, not the cwd.
  Run c = sh(p.as(p.ws_line("run -C " + q(p.project().string()) + " -- sh -c 'echo c > c.txt'")),
             p.scratch());
  INFO("ws run -C: " << c.status << "\n" << c.err);
  CHECK(c.status == 0);
  CHECK(p.ws("status").out.find("A c.txt\n") != npos);
  // After --, -w is the agent's.
  Run after = p.ws("run -- sh -c 'echo \"$0 $1\" > args.txt' -w try2");
  CHECK(after.status == 0);
  CHECK(p.view_file("args.txt") == "-w try2\n");
}

void check_session_identity(const std::string& user) {
  Person p(user);
  Run first = p.ws("run -- sh -c 'echo a > a.txt'");
  std::string id = session_of(first.err);
  INFO("as " << p.label() << ": first session: " << first.err);
  REQUIRE(!id.empty());
  Run one = p.ws("log --session " + q(id));
  REQUIRE(one.status == 0);
  CHECK(one.out.find("a.txt") != npos);
  for (int i = 1; i <= 5; ++i) {
    REQUIRE(p.ws("run -- sh -c 'echo b > b" + std::to_string(i) + ".txt'").status == 0);
  }
  Run two = p.ws("log --session " + q(id));
  INFO("ws log --session " << id << " before:\n" << one.out << "after:\n" << two.out);
  CHECK(two.out == one.out);
  CHECK(two.out.find("b1.txt") == npos);
}

} // namespace

TEST_CASE("run: -w and -C before -- pick the workspace and project - after -- they are the "
          "agent's") {
  as_each(check_global_options);
}

TEST_CASE("run: ws log --session gives the same output after later sessions ran") {
  as_each(check_session_identity);
}

TEST_CASE("run: ws run --help and ws shell --help show COMMAND, -- and every option") {
  for (const std::string cmd : {"run", "shell"}) {
    Run r = sh(q(ws_binary().string()) + " " + cmd + " --help");
    INFO("ws " << cmd << " --help: " << r.status << "\n" << r.out << r.err);
    CHECK(r.status == 0);
    if (cmd == "run") {
      CHECK(r.out.find("COMMAND") != npos);
      CHECK(r.out.find(" -- ") != npos);
    }
    for (const std::string option :
         {"--writable", "--read", "--env", "--network", "--max-disk", "--no-confine"}) {
      CHECK_MESSAGE(r.out.find(option) != npos, option);
    }
  }
}

TEST_CASE("run: the README's ws run usage names every option") {
  std::string readme = slurp(fs::path(WS_SOURCE_DIR) / "README.md");
  size_t at = readme.find("## Confining the agent");
  REQUIRE(at != npos);
  std::string section = readme.substr(at, readme.find("\n## ", at + 1) - at);
  for (const std::string option :
       {"--writable", "--read", "--env", "--network", "--max-disk", "--no-confine"}) {
    CHECK_MESSAGE(section.find(option) != npos, option << " is not in the README's section");
  }
  // docs/run.md no longer says the agent can read the home (row 5: it is private).
  std::string doc = slurp(fs::path(WS_SOURCE_DIR) / "docs" / "run.md");
  std::replace(doc.begin(), doc.end(), '\n', ' ');
  CHECK_MESSAGE(doc.find("`~/.ssh` included") == npos,
                "docs/run.md still says the agent can read ~/.ssh");
}
