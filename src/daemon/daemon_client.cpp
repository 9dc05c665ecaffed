// The CLI's side of the daemon: probe, start (double fork, ready pipe), stop.
#include "src/daemon/daemon_client.hpp"

#include "src/cli/build_info.hpp"
#include "src/cli/error.hpp"
#include "src/daemon/control_socket.hpp"
#include "src/daemon/daemon.hpp"
#include "src/workspace/agent_git_state.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

extern char** environ;

namespace ws {

namespace fs = std::filesystem;

namespace {

/// The daemon holding the workspace lock, as its lock file says (daemon_main.cpp): "PID\n",
/// then "BUILD\n" from a ws that records its build.
struct LockHolder {
  pid_t pid = 0; ///< 0: none holds it; -1: one holds it, its pid not written yet
  std::string build;
  bool build_recorded = false;
};

LockHolder read_lock_holder(const Workspace& w) {
  LockHolder h;
  int fd = ::open(w.layout.lock_file().c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return h;
  }
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
    char buf[512] = {};
    ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    h.pid = n > 0 ? static_cast<pid_t>(std::atoi(buf)) : -1;
    std::string text(buf, n > 0 ? static_cast<size_t>(n) : 0);
    if (size_t nl = text.find('\n'); nl != std::string::npos && nl + 1 < text.size()) {
      h.build = text.substr(nl + 1, text.find('\n', nl + 1) - nl - 1);
      h.build_recorded = true;
    }
  }
  ::close(fd);
  return h;
}

/// Whether `pid` still runs, rather than being gone, dead or on its way out: a daemon killed
/// a moment ago holds its lock until its exit has closed every fd (up to 256 more for the
/// files it made, the lock among them), and its view looks mounted meanwhile. From
/// /proc/PID/stat: no such process, a zombie (Z, X), PF_EXITING in its flags (9th field), or
/// SIGKILL pending (31st field).
bool still_running(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  size_t name_end = std::getline(in, line) ? line.rfind(')') : std::string::npos;
  if (name_end == std::string::npos) {
    return false;
  }
  std::istringstream words(line.substr(name_end + 1));
  std::vector<std::string> field{"pid", "comm"}; // field[N - 1] is the Nth of proc(5)
  for (std::string word; field.size() < 31 && words >> word;) {
    field.push_back(word);
  }
  if (field.size() < 31) {
    return true; // not the format we know: no telling
  }
  char state = field[2].front();
  unsigned long flags = std::strtoul(field[8].c_str(), nullptr, 10);
  unsigned long pending = std::strtoul(field[30].c_str(), nullptr, 10);
  constexpr unsigned long k_pf_exiting = 0x4; // include/linux/sched.h
  constexpr unsigned long k_sigkill = 1UL << (SIGKILL - 1);
  return state != 'Z' && state != 'X' && (flags & k_pf_exiting) == 0 && (pending & k_sigkill) == 0;
}

/// True unless a live daemon is from another build than this process. A pid without a
/// build is a daemon from before builds were recorded; an empty lock file is one still
/// writing it (no telling yet).
bool of_this_build(const LockHolder& h) {
  return h.pid <= 0 || (h.build_recorded && h.build == build_identity());
}

/// The pid of the daemon holding the workspace lock, or 0 if none holds it.
pid_t lock_holder(const Workspace& w) {
  return read_lock_holder(w).pid;
}

enum class MountCheck { NotMounted, Mounted, Dead };

MountCheck check_mount(const fs::path& mnt) {
  struct stat st {
  }, parent{};
  if (::stat(mnt.c_str(), &st) != 0) {
    // ENOTCONN: the daemon is gone. ECONNABORTED: it is going, and this stat was in flight
    // when its exit closed /dev/fuse (the kernel ends pending requests so).
    return errno == ENOTCONN || errno == ECONNABORTED ? MountCheck::Dead : MountCheck::NotMounted;
  }
  if (::stat(mnt.parent_path().c_str(), &parent) != 0) {
    return MountCheck::NotMounted;
  }
  return st.st_dev != parent.st_dev ? MountCheck::Mounted : MountCheck::NotMounted;
}

struct CommandResult {
  int status = -1;
  std::string output;
};

CommandResult run_command(const std::vector<std::string>& argv) {
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) {
    return {};
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
  std::vector<char*> args;
  for (auto& a : argv) {
    args.push_back(const_cast<char*>(a.c_str()));
  }
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(pipefd[1]);
  CommandResult r;
  if (rc != 0) {
    ::close(pipefd[0]);
    r.output = argv[0] + ": " + std::strerror(rc);
    return r;
  }
  char buf[512];
  ssize_t n;
  while ((n = ::read(pipefd[0], buf, sizeof buf)) > 0) {
    r.output.append(buf, static_cast<size_t>(n));
  }
  ::close(pipefd[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  while (!r.output.empty() && r.output.back() == '\n') {
    r.output.pop_back();
  }
  return r;
}

/// Unmounts `mnt`; returns "" on success, else the reason.
std::string do_unmount(const fs::path& mnt, bool lazy) {
  if (::geteuid() == 0) {
    if (::umount2(mnt.c_str(), lazy ? MNT_DETACH : 0) == 0) {
      return {};
    }
    return std::strerror(errno);
  }
  std::vector<std::string> argv = {"fusermount3", "-u"};
  if (lazy) {
    argv.emplace_back("-z");
  }
  argv.emplace_back("--");
  argv.push_back(mnt.string());
  CommandResult r = run_command(argv);
  return r.status == 0 ? std::string() : (r.output.empty() ? "fusermount3 failed" : r.output);
}

fs::path self_exe() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) {
    throw Error("cannot find the ws executable: /proc/self/exe: " + ec.message());
  }
  return p;
}

/// The last thing libfuse or fusermount3 said on the daemon's stderr (its log) after
/// `from`: why the kernel or fusermount3 refused the mount ("fusermount3: mount failed:
/// Operation not permitted"), which libfuse tells no caller. "" when it said nothing.
std::string libfuse_complaint(const fs::path& log, std::uintmax_t from) {
  std::ifstream in(log);
  in.seekg(static_cast<std::streamoff>(from));
  std::string said;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("fusermount3: ", 0) == 0 || line.rfind("fuse: ", 0) == 0) {
      said = line;
    }
  }
  return said;
}

bool wait_for(std::chrono::milliseconds limit, const std::function<bool()>& done) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) {
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

} // namespace

void check_fuse_available() {
  if (::access("/dev/fuse", F_OK) != 0) {
    throw HostError(
        "FUSE is not available: /dev/fuse does not exist",
        "load the module (modprobe fuse); in a container, pass the device (--device /dev/fuse)");
  }
  if (::access("/dev/fuse", R_OK | W_OK) != 0) {
    if (::geteuid() != 0) {
      // Distributions ship /dev/fuse 0666; fusermount3 (setuid) opens it for us only if
      // libfuse is allowed to fall back to it, which it does not for EACCES.
      throw HostError(std::string("cannot open /dev/fuse: ") + std::strerror(errno),
                      "as root, give it its usual mode: chmod 0666 /dev/fuse");
    }
  }
  if (::geteuid() != 0 && run_command({"fusermount3", "-V"}).status != 0) {
    throw HostError("fusermount3 is not installed: a normal user cannot mount FUSE without it",
                    "install it (apt-get install fuse3)");
  }
}

/// A daemon listens on its control socket from its mount until its session ends.
bool daemon_answers(const Workspace& w) {
  try {
    return control_call(w.layout.dir, {"ping"}).has_value();
  } catch (const std::exception&) {
    return true; // it answered, if only with an error
  }
}

ViewStatus probe_view(const Workspace& w) {
  ViewStatus s;
  LockHolder holder = read_lock_holder(w);
  if (holder.pid > 0 && !still_running(holder.pid)) {
    holder = {}; // killed: no daemon serves the view, whatever the lock says a moment longer
  }
  s.pid = holder.pid;
  s.build = holder.build;
  s.this_build = of_this_build(holder);
  MountCheck m = check_mount(w.mountpoint);
  if (s.pid != 0) {
    s.state = m == MountCheck::Mounted ? ViewState::Mounted
              : daemon_answers(w)      ? ViewState::Detached // mounted is no longer true
                                       : ViewState::Starting;
  } else {
    s.state = m == MountCheck::NotMounted ? ViewState::Unmounted : ViewState::Stale;
  }
  return s;
}

namespace {
/// What warn_if_other_build says, for a daemon of build `build` ("" when unrecorded).
std::string other_build_warning(const Workspace& w, pid_t pid, const std::string& build) {
  std::string flag = w.name == "default" ? "" : " -w " + w.name;
  std::error_code ec;
  // A profile's config layer (its lower is the agent's config directory, no repository)
  // is served again by the next ws run once no session uses it.
  bool layer = !fs::exists(fs::symlink_status(w.repo / ".git", ec));
  return "ws: warning: workspace '" + w.name + "' is served by a daemon (pid " +
         std::to_string(pid) + ") of another build of ws: " +
         (build.empty() ? "an older one, which does not record its build" : build) +
         "; this ws is " + build_identity() +
         ". What changed since does not apply to the view until it is served again\n" +
         (layer ? "hint: end the ws run sessions that use it; the next one serves it with this "
                  "ws ('ws profile umount' unmounts it now)\n"
                : "hint: ws umount" + flag + " && ws mount" + flag + "   (ws umount" + flag +
                      " --force if a process is still inside the view)\n");
}

} // namespace

void warn_if_other_build(const Workspace& w) {
  static std::set<fs::path> warned; // once per workspace and command
  if (warned.count(w.layout.dir) != 0) {
    return;
  }
  LockHolder holder = read_lock_holder(w);
  if (of_this_build(holder)) {
    return;
  }
  warned.insert(w.layout.dir);
  std::fputs(other_build_warning(w, holder.pid, holder.build).c_str(), stderr);
}

fs::path ensure_mounted(const Workspace& w, bool debug) {
  if (!w.exists()) {
    throw Error("no workspace '" + w.name + "' for " + w.repo.string(),
                "create it with 'ws new" + (w.name == "default" ? std::string() : " " + w.name) +
                    "'");
  }
  ViewStatus s = probe_view(w);
  if (s.state == ViewState::Starting) {
    wait_for(std::chrono::seconds(10), [&] { return probe_view(w).state != ViewState::Starting; });
    s = probe_view(w);
  }
  if (s.state == ViewState::Mounted) {
    warn_if_other_build(w);
    return w.mountpoint;
  }
  if (s.state == ViewState::Detached) {
    throw Error("the workspace's view was detached (ws umount --force), and its daemon (pid " +
                    std::to_string(s.pid) + ") still serves processes that were inside it",
                "leave the old view (a shell whose cwd is there: cd elsewhere) and try again; or "
                "end it now: kill " +
                    std::to_string(s.pid) + " (those processes then get errors)");
  }
  if (s.state == ViewState::Stale) {
    std::string why = do_unmount(w.mountpoint, true);
    if (!why.empty()) {
      throw Error("the view at " + w.mountpoint.string() +
                      " belongs to a daemon that died, and cannot be cleaned up: " + why,
                  "unmount it by hand: fusermount3 -u -z " + w.mountpoint.string());
    }
    std::fprintf(
        stderr,
        "ws: the daemon of workspace '%s' had died; its view was cleaned up and is served again\n",
        w.name.c_str());
  }
  // A daemon killed a moment ago keeps its lock until its exit is done; the next must wait.
  if (pid_t killed = lock_holder(w);
      killed > 0 && !still_running(killed) &&
      !wait_for(std::chrono::seconds(10), [&] { return lock_holder(w) != killed; })) {
    throw Error("the daemon of workspace '" + w.name + "' (pid " + std::to_string(killed) +
                    ") is gone, but its lock is still held: " + w.layout.lock_file().string(),
                "wait for it to exit, then run ws mount again; 'fuser " +
                    w.layout.lock_file().string() + "' names what holds it");
  }
  check_fuse_available();
  init_agent_git(w); // a workspace made before the agent's git was its own gets one now
  std::error_code ec;
  fs::create_directories(w.mountpoint, ec);
  if (ec) {
    throw Error("cannot create the mountpoint " + w.mountpoint.string() + ": " + ec.message());
  }
  ::chmod(w.mountpoint.parent_path().c_str(), 0700);

  std::uintmax_t log_start = fs::file_size(w.layout.log_file(), ec);
  if (ec) {
    log_start = 0;
  }
  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) {
    throw Error(std::string("pipe: ") + std::strerror(errno));
  }
  std::vector<std::string> argv = {self_exe().string(), "__daemon",
                                   "--workspace-dir",   w.layout.dir.string(),
                                   "--lower",           w.repo.string(),
                                   "--mountpoint",      w.mountpoint.string(),
                                   "--ready-fd",        std::to_string(ready[1])};
  if (debug) {
    argv.emplace_back("--debug");
  }
  pid_t child = ::fork();
  if (child < 0) {
    throw Error(std::string("fork: ") + std::strerror(errno));
  }
  if (child == 0) {
    // Double fork: the daemon is nobody's child but init's, so no one has to reap it.
    ::setsid();
    if (::fork() != 0) {
      ::_exit(0);
    }
    ::fcntl(ready[1], F_SETFD, 0); // keep the ready pipe across exec
    int devnull = ::open("/dev/null", O_RDWR);
    ::dup2(devnull, 0);
    ::dup2(devnull, 1);
    int log = ::open(w.layout.log_file().c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    ::dup2(log >= 0 ? log : devnull, 2);
    std::vector<char*> args;
    for (auto& a : argv) {
      args.push_back(a.data());
    }
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(ready[1]);
  ::waitpid(child, nullptr, 0);
  std::string reply;
  char buf[1024];
  ssize_t n;
  while ((n = ::read(ready[0], buf, sizeof buf)) > 0) {
    reply.append(buf, static_cast<size_t>(n));
  }
  ::close(ready[0]);
  if (reply.rfind("ok", 0) == 0) {
    return w.mountpoint;
  }
  if (reply.empty()) {
    throw HostError("the ws daemon exited before mounting the view",
                    "see its log: " + w.layout.log_file().string());
  }
  std::string what = reply, hint;
  if (auto nl = reply.find('\n'); nl != std::string::npos) {
    what = reply.substr(0, nl);
    hint = reply.substr(nl + 1);
    while (!hint.empty() && hint.back() == '\n') {
      hint.pop_back();
    }
  }
  if (!hint.empty()) {
    throw Error(what, hint);
  }
  std::string log = "see the daemon's log: " + w.layout.log_file().string();
  // fuse/session.cpp's words when libfuse could not mount (it said why in the log)
  if (what.rfind("cannot mount the view", 0) == 0 ||
      what.rfind("cannot create the FUSE session", 0) == 0) {
    if (std::string cause = libfuse_complaint(w.layout.log_file(), log_start); !cause.empty()) {
      what += ": " + cause;
    }
    throw HostError(what, log);
  }
  throw Error(what, log);
}

bool unmount_view(const Workspace& w, bool force) {
  ViewStatus s = probe_view(w);
  if (s.state == ViewState::Unmounted) {
    return false;
  }
  if (s.state == ViewState::Detached) {
    std::fprintf(stderr,
                 "ws: the view of workspace '%s' is already detached; its daemon (pid %d) "
                 "exits when the processes still inside leave (kill %d ends it now)\n",
                 w.name.c_str(), static_cast<int>(s.pid), static_cast<int>(s.pid));
    return true;
  }
  // --force tries an ordinary unmount first: when that works nobody was inside, and a daemon
  // still running afterwards is only finishing (slow on a loaded machine), not serving anyone.
  bool lazy = s.state == ViewState::Stale;
  std::string why = do_unmount(w.mountpoint, lazy);
  bool left_inside = false; // detached with processes still inside
  if (!why.empty() && force && !lazy) {
    why = do_unmount(w.mountpoint, true);
    left_inside = why.empty();
  }
  if (!why.empty()) {
    bool busy = why.find("busy") != std::string::npos || why.find("Busy") != std::string::npos;
    throw Error("cannot unmount the view at " + w.mountpoint.string() + ": " + why,
                busy ? "a process still uses the view (a shell whose cwd is inside?): leave it, or "
                       "'ws umount "
                       "--force' to detach it anyway"
                     : "try 'ws umount --force'");
  }
  if (s.pid <= 0) {
    return true;
  }
  auto gone = [&] { return lock_holder(w) == 0; };
  if (wait_for(std::chrono::seconds(2), gone)) {
    return true;
  }
  if (left_inside && daemon_answers(w)) {
    // Detached with processes still inside (their cwd, their open files): the daemon serves
    // them until they leave. Waiting for that could take forever; say what is going on.
    std::fprintf(stderr,
                 "ws: the view is detached; its daemon (pid %d) keeps serving the processes "
                 "still inside it (a shell whose cwd is there?) and exits when they leave (kill "
                 "%d ends it now)\n",
                 static_cast<int>(s.pid), static_cast<int>(s.pid));
    return true;
  }
  // The session is over; the daemon is writing its last journal entries and closing its
  // databases, which a loaded machine can make slow. Wait for it, within reason.
  std::fprintf(stderr, "ws: waiting for the daemon (pid %d) to finish...\n",
               static_cast<int>(s.pid));
  if (!wait_for(std::chrono::seconds(60), gone)) {
    throw Error("the view is unmounted, but its daemon (pid " + std::to_string(s.pid) +
                    ") is still running a minute later",
                "see " + w.layout.log_file().string() + "; if it never exits, kill it: kill " +
                    std::to_string(s.pid));
  }
  return true;
}

void flush_journal(const Workspace& w) {
  pid_t pid = lock_holder(w);
  if (pid <= 0) {
    return;
  }
  fs::path marker = w.layout.dir / "journal.flushed";
  auto read_marker = [&] {
    std::ifstream in(marker);
    std::string v;
    std::getline(in, v);
    return v;
  };
  warn_if_other_build(w);
  std::string before = read_marker();
  if (::kill(pid, SIGUSR1) != 0) {
    return;
  }
  wait_for(std::chrono::seconds(2), [&] { return read_marker() != before; });
}

std::optional<WriterPause> pause_writers(const Workspace& w) {
  // A daemon listens on its control socket only once its view is mounted: one that holds
  // the lock without listening is starting (or stopping), and may serve writes any moment.
  warn_if_other_build(w); // before: a daemon of another build may not know the request
  std::optional<fuse::UniqueFd> conn;
  wait_for(std::chrono::seconds(5), [&] {
    conn = control_pause_writes(w.layout.dir, std::chrono::seconds(60));
    return conn || lock_holder(w) <= 0;
  });
  if (conn) {
    return WriterPause(std::move(*conn));
  }
  if (pid_t pid = lock_holder(w); pid > 0) {
    throw Error("the workspace's daemon (pid " + std::to_string(pid) +
                    ") does not answer on its control socket",
                "see its log: " + w.layout.log_file().string());
  }
  return std::nullopt;
}

} // namespace ws
