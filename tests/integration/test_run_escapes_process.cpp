// ws run escape tests, escapes 1-4: kernel knobs, fds, signals, pid 1, the terminal.
// Known ways out of `ws run`'s sandbox, each tried for real through the real binary and real
// bubblewrap, as root and as an unprivileged user ("nobody" when these tests run as root).
// "escape N:" follows the numbered list of what the sandbox must hold (docs/run.md); what the
// test asserts is what a person would check afterwards: files on the host, exit codes,
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
// 1. Kernel knobs: core_pattern, sysctls, /sys, modules.

namespace {

/// The agent: writes core_pattern = "|HOST_VIEW/escape.sh" (a script it leaves in the view that
/// writes MARKER on the host), crashes a shell, tries other sysctls and /sys files (opened for
/// writing, nothing written), and a module load. KEY=OK or the errno's name per attempt.
const std::string k_kernel =
    "import ctypes, errno, os, resource, subprocess, sys\n"
    "host_view, marker = sys.argv[1], sys.argv[2]\n"
    "with open('escape.sh', 'w') as f:\n"
    "    f.write('#!/bin/sh\\necho escaped > ' + marker + '\\n')\n"
    "os.chmod('escape.sh', 0o755)\n"
    "def attempt(key, path, data=None):\n"
    "    if not os.path.exists(path):\n"
    "        return\n"
    "    try:\n"
    "        fd = os.open(path, os.O_WRONLY)\n"
    "        try:\n"
    "            if data is not None:\n"
    "                os.write(fd, data)\n"
    "        finally:\n"
    "            os.close(fd)\n"
    "        print(key + '=OK')\n"
    "    except OSError as e:\n"
    "        print(key + '=' + errno.errorcode.get(e.errno, str(e.errno)))\n"
    "attempt('core_pattern', '/proc/sys/kernel/core_pattern',\n"
    "        ('|' + host_view + '/escape.sh').encode())\n"
    "attempt('sysctl_drop_caches', '/proc/sys/vm/drop_caches')\n"
    "attempt('sysctl_modprobe', '/proc/sys/kernel/modprobe')\n"
    "attempt('sysctl_overcommit', '/proc/sys/vm/overcommit_memory')\n"
    "attempt('sysrq_trigger', '/proc/sysrq-trigger')\n"
    "attempt('sys_thp', '/sys/kernel/mm/transparent_hugepage/enabled')\n"
    "attempt('sys_ksm', '/sys/kernel/mm/ksm/run')\n"
    "attempt('sys_uevent_helper', '/sys/kernel/uevent_helper')\n"
    "try:\n"
    "    hard = resource.getrlimit(resource.RLIMIT_CORE)[1]\n"
    "    resource.setrlimit(resource.RLIMIT_CORE, (hard, hard))\n"
    "except (ValueError, OSError):\n"
    "    pass\n"
    "print('segv=' + str(subprocess.run(['sh', '-c', 'kill -SEGV $$']).returncode))\n"
    "nr = {'x86_64': 313, 'aarch64': 273}.get(os.uname().machine)\n"
    "if nr:\n"
    "    libc = ctypes.CDLL(None, use_errno=True)\n"
    "    fd = os.open('/dev/null', os.O_RDONLY)\n"
    "    r = libc.syscall(nr, fd, b'', 0)\n"
    "    print('module=' + ('loaded' if r == 0 else errno.errorcode.get(ctypes.get_errno(), "
    "'?')))\n"
    "print('uid=' + str(os.getuid()))\n"
    "print('uid_map=' + ' '.join(open('/proc/self/uid_map').read().split()))\n";

void check_kernel_knobs(const std::string& user) {
  Person p(user);
  CorePattern core;
  REQUIRE(p.ws("run -- true").status == 0);
  fs::path view = p.view();
  fs::path marker = p.scratch() / "core-pattern-escaped";
  Run r = p.ws("run -- " + py() + " -c " + q(k_kernel) + " " + q(view.string()) + " " +
               q(marker.string()));
  std::string after = core.now();
  core.restore(); // at once: the host must not run the agent's script for its own crashes
  INFO("as " << p.label() << ": ws run: " << r.status << "\n" << r.out << r.err);
  CHECK(r.status == 0);
  // The real escape: the host's core_pattern, and the pipe helper the kernel would run as root.
  CHECK(field(r.out, "core_pattern") != "<missing>");
  CHECK(refused(field(r.out, "core_pattern")));
  CHECK_MESSAGE(after == core.saved(), "the host's core_pattern became: " << after);
  if (after != core.saved()) {
    wait_for(marker, 30);
  }
  CHECK_MESSAGE(!fs::exists(marker), "the kernel ran the agent's core_pattern script on the host");
  CHECK(field(r.out, "segv") != "<missing>"); // the crash happened
  // Every other sysctl and /sys file that exists here refuses a writer.
  int tried = 0;
  for (const std::string key : {"sysctl_drop_caches", "sysctl_modprobe", "sysctl_overcommit",
                                "sysrq_trigger", "sys_thp", "sys_ksm", "sys_uevent_helper"}) {
    std::string v = field(r.out, key);
    if (v != "<missing>") {
      ++tried;
      CHECK_MESSAGE(refused(v), key << "=" << v);
    }
  }
  CHECK(tried >= 2);
  // finit_module: EPERM without CAP_SYS_MODULE (ENOSYS: this kernel has no modules at all).
  std::string module = field(r.out, "module");
  CHECK_MESSAGE((module == "EPERM" || module == "ENOSYS" || module == "<missing>"),
                "module=" << module);
  if (p.is_root()) {
    // Root inside is uid 0 of a user namespace, not the host's root.
    CHECK(field(r.out, "uid") == "0");
    CHECK_MESSAGE(field(r.out, "uid_map") != "0 0 4294967295",
                  "the agent is the host's root (uid_map " << field(r.out, "uid_map") << ")");
  }
}

} // namespace

TEST_CASE("escape 1: the agent cannot set the host's core_pattern, a sysctl, /sys or load a "
          "module") {
  as_each(check_kernel_knobs);
}

// ---------------------------------------------------------------------------------------------
// 2. Inherited file descriptors; the ws binary through /proc.

namespace {

/// The agent: its open fds (without the one python lists them with), which of them (and
/// /proc/1/exe) is a known binary (NAME=DEV:INO arguments), and a chmod 04755 through each
/// such path. 04755, not 04777: if the chmod goes through, bwrap on the host is then at worst
/// setuid root (an install bwrap supports), never world-writable; the guard restores it.
const std::string k_fds =
    "import errno, os, sys\n"
    "known = dict(reversed(a.split('=', 1)) for a in sys.argv[1:])\n"
    "fds = []\n"
    "for x in os.listdir('/proc/self/fd'):\n"
    "    try:\n"
    "        os.fstat(int(x)); fds.append(int(x))\n"
    "    except OSError:\n"
    "        pass\n"
    "fds.sort()\n"
    "print('fds=' + ','.join(map(str, fds)))\n"
    "for fd in fds:\n"
    "    print('fd%d=%s' % (fd, os.readlink('/proc/self/fd/%d' % fd)))\n"
    "def ident(path):\n"
    "    try:\n"
    "        st = os.stat(path)\n"
    "        return '%d:%d' % (st.st_dev, st.st_ino)\n"
    "    except OSError:\n"
    "        return None\n"
    "for path in ['/proc/self/fd/%d' % fd for fd in fds] + ['/proc/1/exe']:\n"
    "    name = known.get(ident(path))\n"
    "    if name is None:\n"
    "        continue\n"
    "    print('refers ' + path + '=' + name)\n"
    "    try:\n"
    "        os.chmod(path, 0o4755)\n"
    "        print('chmod ' + path + '=OK')\n"
    "    except OSError as e:\n"
    "        print('chmod ' + path + '=' + errno.errorcode.get(e.errno, '?'))\n";

void check_fds(const std::string& user) {
  Person p(user);
  // A copy of ws that this person owns, outside /tmp: an fd to it leaking into the sandbox
  // would let the agent chmod (as its owner) or rewrite it for the person's next run.
  p.use_own_ws_copy();
  ModeGuard ws_mode(p.binary);
  ModeGuard bwrap_mode(real_bwrap());
  Run r = p.ws("run -- " + py() + " -c " + q(k_fds) + " ws=" + ident(p.binary) +
               " bwrap=" + ident(real_bwrap()));
  INFO("as " << p.label() << ": ws run: " << r.status << "\n" << r.out << r.err);
  CHECK(r.status == 0);
  CHECK(field(r.out, "fds") == "0,1,2");
  CHECK_MESSAGE(r.out.find("refers /proc/self/fd/") == npos, "an fd of the agent is a binary");
  CHECK_MESSAGE(r.out.find("=OK") == npos, "a chmod went through");
  CHECK(ws_mode.mode() == ws_mode.original());
  CHECK(bwrap_mode.mode() == bwrap_mode.original());
}

} // namespace

TEST_CASE("escape 2: the agent starts with fds 0, 1, 2 only and cannot chmod the ws binary") {
  as_each(check_fds);
}

// ---------------------------------------------------------------------------------------------
// 3. Signals and processes.

namespace {

void check_kill_all(const std::string& user) {
  Person p(user);
  REQUIRE(p.ws("run -- true").status == 0);
  // kill(-1) outside a pid namespace of its own would reach every process this person may
  // signal (as root: the whole machine): make sure it has one first.
  Run ns = p.ws("run -- readlink /proc/self/ns/pid");
  std::error_code ec;
  std::string host_ns = fs::read_symlink("/proc/self/ns/pid", ec).string();
  INFO("as " << p.label() << ": pid namespace inside: " << ns.out << ns.err);
  REQUIRE_MESSAGE(trim(ns.out) != host_ns, "the agent shares the host's pid namespace");

  for (const std::string target : {"0", "-1"}) {
    fs::path t = p.scratch();
    fs::remove(t / "sleep.pid");
    fs::remove(t / "ws.status");
    // As a terminal runs a script: its own process group, a background job, then ws run.
    std::string script = "sleep 60 & echo $! > " + q((t / "sleep.pid").string()) + "; " +
                         p.ws_line("run -- sh -c " + q("kill -9 " + target)) + "; echo $? > " +
                         q((t / "ws.status").string());
    TempDir logs;
    pid_t job = start_job(p.as("sh -c " + q(script)), p.project(), logs.path() / "err");
    int status = wait_job(job, 30);
    std::string err = slurp(logs.path() / "err");
    pid_t sleeper = std::atoi(slurp(t / "sleep.pid").c_str());
    Finally stop_sleep{[sleeper] {
      if (sleeper > 0) {
        ::kill(sleeper, SIGKILL);
      }
    }};
    INFO("kill -9 " << target << ": script exit " << status << "; ws stderr: " << err);
    CHECK(status != -1);
    REQUIRE(sleeper > 0);
    CHECK_MESSAGE(alive(sleeper), "the script's background job was killed");
    CHECK_MESSAGE(fs::exists(t / "ws.status"), "the calling script was killed");
    CHECK_MESSAGE(has_summary(err), "ws run was killed before its summary");
  }
}

void check_terminate(const std::string& user) {
  Person p(user);
  REQUIRE(p.ws("run -- true").status == 0);
  for (int sig : {SIGTERM, SIGHUP}) {
    p.sh_as("rm -f ready.txt tick.txt", p.view());
    std::string agent = "echo ready > ready.txt; i=0; while [ $i -lt 300 ]; do echo $i > tick.txt; "
                        "sleep 0.1; i=$((i+1)); done";
    TempDir logs;
    // exec all the way down: the job's pid is ws run's.
    pid_t ws =
        start_job(p.as(p.ws_line("run -- sh -c " + q(agent))), p.project(), logs.path() / "err");
    bool ready = p.wait_in_view("ready.txt", 15);
    ::kill(ws, sig);
    int status = wait_job(ws, 20);
    std::string err = slurp(logs.path() / "err");
    INFO("as " << p.label() << ", signal " << sig << ": ws run exit " << status
               << "; stderr: " << err);
    CHECK(ready);
    CHECK(status != -1); // ws run returned
    CHECK(status != 0);
    CHECK_MESSAGE(has_summary(err), "no summary or checkpoint after the signal");
    // The agent is gone: its tick stands still.
    std::string tick = p.view_file("tick.txt");
    CHECK(!tick.empty());
    CHECK(tick != "<absent>");
    std::this_thread::sleep_for(std::chrono::seconds(1));
    CHECK_MESSAGE(p.view_file("tick.txt") == tick, "the agent still runs after ws run returned");
  }
}

/// The agent: PTRACE_ATTACH to pid 1 (detaching at once if it got through), then SIGSTOP to it.
const std::string k_pid1 =
    "import ctypes, errno, os, signal\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]\n"
    "if libc.ptrace(16, 1, None, None) == 0:\n"
    "    print('ptrace=attached', flush=True)\n"
    "    try:\n"
    "        os.waitpid(1, 0x40000000)\n"
    "    except OSError:\n"
    "        pass\n"
    "    libc.ptrace(17, 1, None, None)\n"
    "else:\n"
    "    print('ptrace=' + errno.errorcode.get(ctypes.get_errno(), '?'), flush=True)\n"
    "try:\n"
    "    os.kill(1, signal.SIGSTOP)\n"
    "    print('stop=sent')\n"
    "except OSError as e:\n"
    "    print('stop=' + errno.errorcode.get(e.errno, '?'))\n";

void check_pid1(const std::string& user) {
  Person p(user);
  REQUIRE(p.ws("run -- true").status == 0);
  TempDir logs;
  pid_t job = start_job(p.as(p.ws_line("run -- " + py() + " -c " + q(k_pid1) + " > " +
                                       q((p.scratch() / "out").string()))),
                        p.project(), logs.path() / "err");
  int status = wait_job(job, 20);
  std::string out = slurp(p.scratch() / "out");
  INFO("as " << p.label() << ": ws run exit " << status << "\n"
             << out << slurp(logs.path() / "err"));
  CHECK_MESSAGE(status != -1, "ws run did not return after the agent stopped pid 1 and exited");
  CHECK(field(out, "ptrace") != "<missing>");
  CHECK(field(out, "ptrace") != "attached");
}

void check_leftover(const std::string& user) {
  Person p(user);
  Run r = p.ws("run -- sh -c '(sleep 3; echo x > leaked.txt) &'");
  INFO("as " << p.label() << ": " << r.status << " " << r.err);
  CHECK(r.status == 0);
  std::this_thread::sleep_for(std::chrono::seconds(4));
  CHECK_MESSAGE(!p.view_has("leaked.txt"), "a process the agent left behind outlived the session");
}

} // namespace

TEST_CASE("escape 3: kill(0) and kill(-1) by the agent spare ws run and the caller's other jobs") {
  as_each(check_kill_all);
}

TEST_CASE("escape 3: SIGTERM or SIGHUP to ws run ends the agent, then ws run checkpoints") {
  as_each(check_terminate);
}

TEST_CASE("escape 3: the agent cannot ptrace or stop the sandbox's pid 1") {
  as_each(check_pid1);
}

TEST_CASE("escape 3: a process the agent leaves behind dies with the session") {
  as_each(check_leftover);
}

// ---------------------------------------------------------------------------------------------
// 4. The terminal.

namespace {

/// A tmux server (its own socket) with one 100x30 window running `command`; killed at the end.
class Tmux {
public:
  explicit Tmux(const std::string& command) {
    ::chmod(m_dir.path().c_str(), 0755);
    m_ok = sh(tmux("-f /dev/null new-session -d -x 100 -y 30 " + q(command))).status == 0;
  }
  ~Tmux() { sh(tmux("kill-server") + " 2>/dev/null"); }
  Tmux(const Tmux&) = delete;
  Tmux& operator=(const Tmux&) = delete;
  bool ok() const { return m_ok; }
  std::string tmux(const std::string& args) const {
    return "tmux -S " + q((m_dir.path() / "sock").string()) + " " + args;
  }
  void type(const std::string& line) const {
    sh(tmux("send-keys -l " + q(line)));
    sh(tmux("send-keys Enter"));
  }
  std::string pane_tty() const { return trim(sh(tmux("display -p '#{pane_tty}'")).out); }
  std::string screen() const { return sh(tmux("capture-pane -p -S -100")).out; }

private:
  TempDir m_dir;
  bool m_ok = false;
};

/// The person's interactive shell (job control on), for tmux.
std::string person_shell(const Person& p) {
  return p.as("env PS1='$ ' bash --norc --noprofile -i");
}

/// Writes `script` where the person can source it; returns its path.
fs::path person_script(const Person& p, const std::string& script) {
  fs::path f = p.scratch() / "person.sh";
  std::ofstream(f) << script;
  p.own(f);
  return f;
}

/// The agent's terminal: what fd 0 is (path, DEV:RDEV) and whether it is a terminal.
const std::string k_tty = "import os\n"
                          "st = os.stat('/proc/self/fd/0')\n"
                          "print('tty=' + os.readlink('/proc/self/fd/0'))\n"
                          "print('ttydev=%d:%d' % (st.st_dev, st.st_rdev))\n"
                          "print('isatty=' + str(os.isatty(0)))\n";

void check_own_terminal(const std::string& user) {
  if (sh("command -v tmux").status != 0) {
    MESSAGE("tmux is not installed: skipped");
    return;
  }
  Person p(user);
  REQUIRE(p.ws("run -- true").status == 0);
  fs::path t = p.scratch();
  // The agent reports its terminal, prints, reads a line typed in the pane, and leaves its
  // terminal raw and without echo as a crashed full-screen program would.
  std::string agent = py() + " -c " + q(k_tty) + " > tty.txt; echo agent-says-hello; " +
                      "echo reading > reading.txt; read -r -t 20 line; " +
                      "printf '%s\\n' \"$line\" > typed.txt; stty raw -echo";
  fs::path script = person_script(p, "stty -g > " + q((t / "stty.before").string()) + "\n" + "cd " +
                                         q(p.project().string()) + "\n" +
                                         p.ws_line("run -- bash -c " + q(agent)) + "\n" +
                                         "stty -g > " + q((t / "stty.after").string()) + "\n" +
                                         "echo done > " + q((t / "done").string()) + "\n");
  Tmux tmux(person_shell(p));
  REQUIRE(tmux.ok());
  tmux.type(". " + script.string());
  bool reading = p.wait_in_view("reading.txt", 15);
  std::string pane = tmux.pane_tty();
  struct stat pane_st {};
  ::stat(pane.c_str(), &pane_st);
  std::string pane_dev = std::to_string(pane_st.st_dev) + ":" + std::to_string(pane_st.st_rdev);
  tmux.type("typed-line-42");
  bool done = wait_for(t / "done", 150);
  std::string tty = p.view_file("tty.txt");
  INFO("as " << p.label() << ": pane " << pane << " (" << pane_dev << "); agent: " << tty
             << "screen:\n"
             << tmux.screen());
  CHECK(reading);
  CHECK(done);
  CHECK(field(tty, "isatty") == "True");
  CHECK(field(tty, "tty").rfind("/dev/pts/", 0) == 0);
  CHECK_MESSAGE(field(tty, "ttydev") != pane_dev, "the agent's terminal is the person's own");
  CHECK(p.view_file("typed.txt") == "typed-line-42\n");
  CHECK(tmux.screen().find("agent-says-hello") != npos);
  std::string before = slurp(t / "stty.before");
  CHECK(!before.empty());
  CHECK_MESSAGE(slurp(t / "stty.after") == before, "the person's terminal was left changed");
}

void check_stop(const std::string& user) {
  if (sh("command -v tmux").status != 0) {
    MESSAGE("tmux is not installed: skipped");
    return;
  }
  Person p(user);
  REQUIRE(p.ws("run -- true").status == 0);
  fs::path view = p.view();
  fs::path marker = p.scratch() / "marker";
  // The person's next command tells whether it ran before or after the agent finished.
  std::string agent = "echo stopping > stopping.txt; kill -STOP $$; echo resumed > resumed.txt";
  fs::path script = person_script(
      p, "cd " + q(p.project().string()) + "\n" + p.ws_line("run -- bash -c " + q(agent)) + "\n" +
             "if [ -e " + q((view / "resumed.txt").string()) + " ]; then echo after > " +
             q(marker.string()) + "; else echo before > " + q(marker.string()) + "; fi\n");
  Tmux tmux(person_shell(p));
  REQUIRE(tmux.ok());
  tmux.type(". " + script.string());
  bool stopping = p.wait_in_view("stopping.txt", 15);
  bool marked = wait_for(marker, 150);
  INFO("as " << p.label() << ": screen:\n" << tmux.screen());
  CHECK(stopping);
  CHECK_MESSAGE(marked, "ws run never returned: the stopped agent was not resumed");
  CHECK(p.view_has("resumed.txt"));
  if (marked) {
    CHECK_MESSAGE(slurp(marker) == "after\n",
                  "the person's shell got its prompt back while the agent was stopped");
  }
}

} // namespace

TEST_CASE("escape 4: the agent runs on a terminal of its own - the person's is restored") {
  as_each(check_own_terminal);
}

TEST_CASE("escape 4: an agent that stops itself does not hand the prompt back") {
  as_each(check_stop);
}