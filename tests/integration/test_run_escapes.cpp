// Known ways out of `ws run`'s sandbox, each tried for real through the real binary and real
// bubblewrap, as root and as an unprivileged user ("nobody" when these tests run as root).
// "escape N:" follows the numbered list of what the sandbox must hold (docs/run.md); what the
// test asserts is what a person would check afterwards: files on the host, exit codes,
// messages.
#include "tests/integration/run_support.hpp"

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

namespace {

constexpr auto npos = std::string::npos;

std::string label_of(const std::string& user) {
  if (!user.empty()) {
    return user;
  }
  return ::geteuid() == 0 ? "root" : "this user";
}

/// Runs `check` once per person who runs ws (root and nobody, or this user), each in a
/// subcase of its own so that one's failure does not hide the other's.
void as_each(const std::function<void(const std::string&)>& check) {
  for (const auto& user : people()) {
    std::string name = "as " + label_of(user);
    SUBCASE(name.c_str()) {
      check(user);
    }
  }
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) {
    s.pop_back();
  }
  return s;
}

/// "DEV:INO" of `p` on the host, as python's os.stat reports it inside.
std::string ident(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) {
    return "none";
  }
  return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
}

/// The session id in ws run's summary ("ws: session ID ended"), or "".
std::string session_of(const std::string& err) {
  size_t at = err.find("ws: session ");
  if (at == npos) {
    return "";
  }
  at += 12;
  size_t end = err.find(' ', at);
  return end == npos ? "" : err.substr(at, end - at);
}

/// The summary ws run prints when a session ends, whatever ended it.
bool has_summary(const std::string& err) {
  return err.find("ws: session ") != npos && err.find(" ended") != npos &&
         err.find("checkpoint") != npos;
}

/// A unique suffix for names shared across the host (abstract sockets, files in /run).
std::string unique() {
  std::random_device rd;
  return std::to_string(::getpid()) + "-" + std::to_string(rd() % 1000000);
}

/// Puts the host's core_pattern back if anything changed it.
class CorePattern {
public:
  static constexpr const char* k_path = "/proc/sys/kernel/core_pattern";
  CorePattern() : m_saved(slurp(k_path)) {}
  ~CorePattern() { restore(); }
  CorePattern(const CorePattern&) = delete;
  CorePattern& operator=(const CorePattern&) = delete;
  const std::string& saved() const { return m_saved; }
  std::string now() const { return slurp(k_path); }
  void restore() const {
    if (::geteuid() == 0 && !m_saved.empty() && now() != m_saved) {
      std::ofstream(k_path) << m_saved;
    }
  }

private:
  std::string m_saved;
};

/// Runs `fn` at the end of the scope.
struct Finally {
  std::function<void()> fn;
  ~Finally() { fn(); }
};

} // namespace

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
  fs::path bin = p.base() / "bin";
  fs::create_directories(bin);
  fs::copy_file(ws_binary(), bin / "ws");
  p.own(bin);
  p.binary = bin / "ws";
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

// ---------------------------------------------------------------------------------------------
// 5. Sockets, environment, private directories, network, home.

namespace {

/// Connects to each NAME=ADDRESS unix socket (ADDRESS "@name": abstract): NAME=OK or errno.
const std::string k_unix_connect =
    "import errno, socket, sys\n"
    "for spec in sys.argv[1:]:\n"
    "    name, addr = spec.split('=', 1)\n"
    "    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
    "    s.settimeout(5)\n"
    "    try:\n"
    "        s.connect('\\0' + addr[1:] if addr.startswith('@') else addr)\n"
    "        print(name + '=OK')\n"
    "    except OSError as e:\n"
    "        print(name + '=' + errno.errorcode.get(e.errno or 0, 'timeout'))\n"
    "    s.close()\n";

void check_unix_sockets(const std::string& user) {
  Person p(user);
  std::vector<std::pair<std::string, std::string>> socks{
      {"home", (p.home() / "agent.sock").string()}, {"abstract", "@ws-test-" + unique()}};
  std::unique_ptr<OutsideDir> run_dir, world_dir;
  if (::geteuid() == 0) {
    run_dir = std::make_unique<OutsideDir>(std::vector<std::string>{"/run"});
    socks.emplace_back("run", (run_dir->path() / "service.sock").string());
    world_dir = std::make_unique<OutsideDir>(std::vector<std::string>{"/srv", "/var/lib"});
  } else {
    MESSAGE("not root: no listener in /run");
  }
  fs::path world = world_dir ? world_dir->path() : p.base() / "shared";
  fs::create_directories(world);
  ::chmod(world.c_str(), 0755);
  socks.emplace_back("world", (world / "service.sock").string());
  UnixListeners listeners(socks);
  REQUIRE(listeners.ready());
  std::string args;
  for (const auto& [name, addr] : socks) {
    args += " " + q(name + "=" + addr);
  }
  // From the host, this person reaches every one of them (so a refusal inside is the sandbox's).
  Run host = p.sh_as(py() + " -c " + q(k_unix_connect) + args, p.scratch());
  INFO("as " << p.label() << ": from the host: " << host.out << host.err);
  for (const auto& [name, addr] : socks) {
    REQUIRE(field(host.out, name) == "OK");
  }
  std::string seen = listeners.accepted();
  for (const std::string net : {"on", "off"}) {
    Run r = p.ws("run --network=" + net + " -- " + py() + " -c " + q(k_unix_connect) + args);
    INFO("--network=" << net << ": ws run " << r.status << "\n" << r.out << r.err);
    CHECK(r.status == 0);
    for (const auto& [name, addr] : socks) {
      CHECK_MESSAGE(field(r.out, name) != "<missing>", name);
      CHECK_MESSAGE(field(r.out, name) != "OK", name << " (" << addr << ") was reachable");
    }
  }
  CHECK_MESSAGE(listeners.accepted() == seen, "a listener got a connection from inside");
}

/// Prints NAME=VALUE for each NAME (arguments) that is set.
const std::string k_env = "import os, sys\n"
                          "for k in sys.argv[1:]:\n"
                          "    if k in os.environ:\n"
                          "        print(k + '=' + os.environ[k])\n";

void check_environment(const std::string& user) {
  Person p(user);
  const std::vector<std::string> secrets{"SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS", "DOCKER_HOST",
                                         "GITHUB_TOKEN",  "AWS_SECRET_ACCESS_KEY",    "MY_API_KEY",
                                         "FOO_TOKEN"};
  std::string env = "SSH_AUTH_SOCK=/run/user/1000/ssh-agent.sock "
                    "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus "
                    "DOCKER_HOST=unix:///var/run/docker.sock GITHUB_TOKEN=ghp_testtoken "
                    "AWS_SECRET_ACCESS_KEY=aws-test-secret MY_API_KEY=my-test-key "
                    "FOO_TOKEN=foo-test-token TERM=xterm-256color LANG=C.UTF-8";
  std::string names = "PATH HOME TERM LANG BAR";
  for (const auto& s : secrets) {
    names += " " + s;
  }
  Run r = p.ws("run -- " + py() + " -c " + q(k_env) + " " + names, env);
  INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
  CHECK(r.status == 0);
  for (const auto& s : secrets) {
    CHECK_MESSAGE(field(r.out, s) == "<missing>", s << " reached the agent");
  }
  CHECK(field(r.out, "PATH") != "<missing>");
  CHECK(field(r.out, "HOME") == p.home().string());
  CHECK(field(r.out, "TERM") != "<missing>"); // (the agent's own terminal may be another type)
  CHECK(field(r.out, "LANG") != "<missing>");

  Run chosen =
      p.ws("run --env FOO_TOKEN --env BAR=baz -- " + py() + " -c " + q(k_env) + " " + names, env);
  INFO("with --env: ws run " << chosen.status << "\n" << chosen.out << chosen.err);
  CHECK(chosen.status == 0);
  CHECK(field(chosen.out, "FOO_TOKEN") == "foo-test-token");
  CHECK(field(chosen.out, "BAR") == "baz");
  CHECK(field(chosen.out, "GITHUB_TOKEN") == "<missing>");
}

/// KEY=PATH arguments: prints KEY=True or KEY=False (whether PATH exists).
const std::string k_exists = "import os, sys\n"
                             "for a in sys.argv[1:]:\n"
                             "    k, path = a.split('=', 1)\n"
                             "    print(k + '=' + str(os.path.lexists(path)))\n";

void check_private_dirs(const std::string& user) {
  Person p(user);
  std::vector<std::pair<std::string, fs::path>> files;
  std::vector<std::string> dirs{"/tmp", "/var/tmp", "/dev/shm"};
  if (::geteuid() == 0) {
    dirs.push_back("/run");
  } else {
    MESSAGE("not root: no host file in /run");
  }
  for (const auto& d : dirs) {
    std::string t = d + "/ws-host-file-XXXXXX";
    int fd = ::mkstemp(t.data());
    REQUIRE_MESSAGE(fd >= 0, "cannot make a file in " << d);
    ::close(fd);
    ::chmod(t.c_str(), 0644);
    files.emplace_back(d, t);
  }
  files.emplace_back("XDG_RUNTIME_DIR", p.runtime() / "host-file");
  std::ofstream(p.runtime() / "host-file") << "host\n";
  p.own(p.runtime());
  Finally cleanup{[&files] {
    for (const auto& [d, f] : files) {
      std::error_code ec;
      fs::remove(f, ec);
    }
  }};
  std::string args;
  for (const auto& [d, f] : files) {
    args += " " + q(d + "=" + f.string());
  }
  Run r = p.ws("run -- " + py() + " -c " + q(k_exists) + args);
  INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
  CHECK(r.status == 0);
  for (const auto& [d, f] : files) {
    CHECK_MESSAGE(field(r.out, d) == "False", d << ": the host's " << f << " is visible inside");
  }
}

/// The network as the agent sees it: its interfaces, then HOST=hello or the error's name for a
/// TCP connection to each HOST:PORT (arguments: PORT HOST...).
const std::string k_net =
    "import errno, socket, sys\n"
    "print('ifaces=' + ','.join(sorted(n for _, n in socket.if_nameindex())))\n"
    "for host in sys.argv[2:]:\n"
    "    try:\n"
    "        c = socket.create_connection((host, int(sys.argv[1])), timeout=3)\n"
    "        print(host + '=' + c.recv(5).decode())\n"
    "    except OSError as e:\n"
    "        print(host + '=' + errno.errorcode.get(e.errno or 0, 'timeout'))\n";

/// An HTTPS GET of the npm registry: npm=STATUS or npm=ERROR.
const std::string k_npm = "import urllib.request\n"
                          "try:\n"
                          "    r = urllib.request.urlopen('https://registry.npmjs.org/', "
                          "timeout=5)\n"
                          "    print('npm=' + str(r.status))\n"
                          "except Exception as e:\n"
                          "    print('npm=' + type(e).__name__)\n";

void check_network(const std::string& user) {
  Person p(user);
  LoopbackServer server;
  REQUIRE(!server.port.empty());
  // The server answers on the host (so silence inside is the sandbox's doing).
  Run host = sh(py() + " -c " + q(k_net) + " " + server.port + " 127.0.0.1");
  REQUIRE(field(host.out, "127.0.0.1") == "hello");
  int clients = server.clients();

  Run off =
      p.ws("run --network=off -- " + py() + " -c " + q(k_net) + " " + server.port + " 127.0.0.1");
  INFO("as " << p.label() << ": --network=off: " << off.status << "\n" << off.out << off.err);
  CHECK(off.status == 0);
  CHECK(field(off.out, "ifaces") == "lo");
  CHECK(field(off.out, "127.0.0.1") != "hello");

  Run on = p.ws("run --network=on -- " + py() + " -c " + q(k_net) + " " + server.port +
                " 127.0.0.1 10.0.2.2");
  INFO("--network=on: " << on.status << "\n" << on.out << on.err);
  CHECK(on.status == 0);
  std::string ifaces = field(on.out, "ifaces");
  CHECK(ifaces != "<missing>");
  CHECK_MESSAGE(ifaces != "lo", "no way out with --network=on");
  CHECK_MESSAGE(field(on.out, "127.0.0.1") != "hello", "the host's 127.0.0.1 is reachable");
  CHECK_MESSAGE(field(on.out, "10.0.2.2") != "hello", "the host's loopback is reachable at "
                                                      "10.0.2.2");
  CHECK(server.clients() == clients);

  // The way out works for what agents need (a package registry), if the host has it.
  Run host_npm = sh(py() + " -c " + q(k_npm));
  if (field(host_npm.out, "npm").rfind("2", 0) != 0) {
    MESSAGE("registry.npmjs.org is not reachable from the host (" << host_npm.out
                                                                  << "): not checked inside");
    return;
  }
  Run npm = p.ws("run --network=on -- " + py() + " -c " + q(k_npm));
  INFO("npm inside: " << npm.out << npm.err);
  CHECK(field(npm.out, "npm").rfind("2", 0) == 0);
}

/// The home as the agent sees it. Arguments: secret paths relative to $HOME.
const std::string k_home =
    "import errno, os, sys\n"
    "home = os.environ['HOME']\n"
    "print('home=' + home)\n"
    "for rel in sys.argv[1:]:\n"
    "    print('secret ' + rel + '=' + str(os.path.lexists(os.path.join(home, rel))))\n"
    "def write(key, path, mode='a'):\n"
    "    try:\n"
    "        with open(path, mode) as f:\n"
    "            f.write('agent\\n')\n"
    "        print(key + '=OK')\n"
    "    except OSError as e:\n"
    "        print(key + '=' + errno.errorcode.get(e.errno, '?'))\n"
    "try:\n"
    "    print('gitconfig=' + open(home + '/.gitconfig').read().replace('\\n', '|'))\n"
    "except OSError as e:\n"
    "    print('gitconfig=' + errno.errorcode.get(e.errno, '?'))\n"
    "write('gitconfig_write', home + '/.gitconfig')\n"
    "write('home_write', home + '/agent-was-here.txt', 'w')\n";

void check_home(const std::string& user) {
  Person p(user);
  const std::vector<std::string> secrets{".ssh/id_rsa",
                                         ".aws/credentials",
                                         ".netrc",
                                         ".git-credentials",
                                         ".bash_history",
                                         ".config/gh/hosts.yml",
                                         ".docker/config.json",
                                         ".kube/config",
                                         ".claude/.credentials.json",
                                         ".gnupg/x",
                                         "notes/n.txt"};
  for (const auto& s : secrets) {
    fs::create_directories((p.home() / s).parent_path());
    std::ofstream(p.home() / s) << "secret of " << s << "\n";
  }
  const std::string gitconfig = "[user]\n\tname = Person\n\temail = person@example.com\n";
  std::ofstream(p.home() / ".gitconfig") << gitconfig;
  p.own(p.home());
  std::string args;
  for (const auto& s : secrets) {
    args += " " + q(s);
  }
  Run r = p.ws("run -- " + py() + " -c " + q(k_home) + args);
  INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
  CHECK(r.status == 0);
  CHECK(field(r.out, "home") == p.home().string()); // the same path...
  for (const auto& s : secrets) {
    CHECK_MESSAGE(field(r.out, "secret " + s) == "False", "~/" << s << " is visible inside");
  }
  std::string shown = gitconfig;
  std::replace(shown.begin(), shown.end(), '\n', '|');
  CHECK(field(r.out, "gitconfig") == shown);
  CHECK(refused(field(r.out, "gitconfig_write")));
  CHECK(slurp(p.home() / ".gitconfig") == gitconfig);
  // ...but private: what the agent writes there stays in the session.
  CHECK(field(r.out, "home_write") == "OK");
  CHECK(!fs::exists(p.home() / "agent-was-here.txt"));
  Run again = p.ws("run -- sh -c 'test -e \"$HOME/agent-was-here.txt\"; echo again=$?'");
  CHECK(field(again.out, "again") == "1");
  CHECK(!fs::exists(p.home() / "agent-was-here.txt"));

  // --read shows one more path, read-only.
  fs::path notes = p.home() / "notes";
  Run read = p.ws("run --read " + q(notes.string()) + " -- " + py() + " -c " +
                  q("import errno, sys\n"
                    "print('note=' + open(sys.argv[1] + '/n.txt').read().strip())\n"
                    "try:\n"
                    "    open(sys.argv[1] + '/n.txt', 'a').write('agent')\n"
                    "    print('write=OK')\n"
                    "except OSError as e:\n"
                    "    print('write=' + errno.errorcode.get(e.errno, '?'))\n") +
                  " " + q(notes.string()));
  INFO("--read: ws run " << read.status << "\n" << read.out << read.err);
  CHECK(read.status == 0);
  CHECK(field(read.out, "note") == "secret of notes/n.txt");
  CHECK(field(read.out, "write") == "EROFS");
  CHECK(slurp(notes / "n.txt") == "secret of notes/n.txt\n");
}

} // namespace

TEST_CASE("escape 5: no unix socket of the host is reachable, by path or abstract name") {
  as_each(check_unix_sockets);
}

TEST_CASE("escape 5: secrets in the environment stay outside - --env passes one on purpose") {
  as_each(check_environment);
}

TEST_CASE("escape 5: /tmp, /var/tmp, /run, /dev/shm and $XDG_RUNTIME_DIR hold nothing of the "
          "host's") {
  as_each(check_private_dirs);
}

TEST_CASE("escape 5: the network namespace is private - the host's loopback is out of reach") {
  as_each(check_network);
}

TEST_CASE("escape 5: the home is private: secrets absent, .gitconfig read-only, --read adds a "
          "path") {
  as_each(check_home);
}

// ---------------------------------------------------------------------------------------------
// 6. What --writable and --read refuse.

namespace {

void check_refusals(const std::string& user) {
  Person p(user);
  // Run a copy of ws from a directory of its own, so that refusing the binary's directory
  // cannot be confused with refusing the build tree.
  fs::path bin = p.base() / "bin";
  fs::create_directories(bin);
  fs::copy_file(ws_binary(), bin / "ws");
  p.own(bin);
  p.binary = bin / "ws";
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
                              p.binary,    bin,
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
  for (const auto& [marker, what] : markers) {
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
  Run r =
      p.ws("run --writable " + q(fakebin.string()) + " -- sh -c " +
               q("touch " + (outside / "escaped").string() + " 2>/dev/null; echo x > inside.txt"),
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
  for (const auto& [what, fake] : fakes) {
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
  pid_t job = start_job(
      p.as(p.ws_line("run -- sh -c " +
                     q("for i in $(seq 2000); do (echo $i > f$i) & done; wait; echo finished"))),
      p.project(), logs.path() / "err");
  int status = wait_job(job, 120);
  INFO("as " << p.label() << ": ws run " << status << "\n" << slurp(logs.path() / "err"));
  CHECK(status != -1);
  Run st = p.ws("status");
  CHECK_MESSAGE(st.status == 0, "the daemon died: " << st.err);
  CHECK(st.out.find("A f1\n") != npos);
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
