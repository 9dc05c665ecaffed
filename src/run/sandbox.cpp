// ws run's confinement, by bubblewrap: a private mount namespace where the project's own path
// is the view, everything else read-only, state and views hidden, /tmp private. Why bwrap
// rather than our own namespace calls: docs/run.md.
#include "src/run/sandbox.hpp"

#include "src/cli/error.hpp"
#include "src/run/seccomp_filter.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace ws {

namespace fs = std::filesystem;

std::string find_bwrap() {
  if (const char* env = std::getenv("WS_BWRAP"); env && *env) {
    return env; // tests point this at a missing program to check that ws fails closed
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    std::string dir = dirs.substr(start, end == std::string::npos ? end : end - start);
    fs::path candidate = fs::path(dir.empty() ? "." : dir) / "bwrap";
    if (::access(candidate.c_str(), X_OK) == 0) {
      return candidate.string();
    }
    if (end == std::string::npos) {
      break;
    }
    start = end + 1;
  }
  throw Error("cannot confine the agent: bubblewrap (bwrap) is not installed",
              "install it (Debian: apt-get install bubblewrap), or run unconfined on purpose "
              "with 'ws run --no-confine'");
}

std::vector<std::string> bwrap_command(const std::string& bwrap, const SandboxSpec& spec,
                                       int seccomp_fd, int info_fd) {
  std::vector<std::string> a{bwrap};
  auto add = [&](std::initializer_list<std::string> args) { a.insert(a.end(), args); };
  if (::geteuid() == 0) {
    // Root keeps no capability inside: it could otherwise remount / writable or unmount
    // the view to reach the real tree.
    add({"--cap-drop", "ALL"});
  } else {
    // A user namespace to mount in; no nested ones (they are how confinement escapes start).
    add({"--unshare-user", "--disable-userns"});
  }
  add({"--unshare-pid", "--unshare-ipc", "--die-with-parent"});
  if (!spec.network) {
    add({"--unshare-net"}); // a new network namespace holds only its own loopback
  }
  add({"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"});
  add({"--tmpfs", "/tmp", "--tmpfs", "/var/tmp"});
  // Writable paths first: the hidden directories and the view are mounted over them, so a
  // writable parent of the project (say, $HOME) can never expose the real tree or the state.
  for (const auto& w : spec.writable) {
    add({"--bind", w.string(), w.string()});
  }
  for (const auto& h : spec.hidden) {
    add({"--tmpfs", h.string()});
  }
  // Last: a project under /tmp or a hidden directory still shows (bwrap creates the
  // mountpoint inside the tmpfs).
  add({"--bind", spec.view.string(), spec.project.string()});
  for (const auto& [k, v] : spec.env) {
    add({"--setenv", k, v});
  }
  if (info_fd >= 0) {
    add({"--info-fd", std::to_string(info_fd)});
  }
  add({"--chdir", spec.cwd.string(), "--seccomp", std::to_string(seccomp_fd), "--"});
  a.insert(a.end(), spec.command.begin(), spec.command.end());
  return a;
}

namespace {

/// Runs argv in a child and waits. The terminal's SIGINT/SIGQUIT go to the whole foreground
/// process group, the agent included: ws itself ignores them while waiting, so the agent
/// decides what Ctrl-C means and ws still prints its summary.
/// `keep_ignored`: the child keeps SIGINT/SIGQUIT ignored too (bwrap: see run_confined).
int spawn_and_wait(const std::vector<std::string>& argv, std::vector<int> keep_fds, int report_fd,
                   const std::function<void(pid_t)>& after_fork = {}, bool keep_ignored = false) {
  std::vector<char*> args;
  for (const auto& s : argv) {
    args.push_back(const_cast<char*>(s.c_str()));
  }
  args.push_back(nullptr);
  struct sigaction ignore {
  }, old_int{}, old_quit{};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGINT, &ignore, &old_int);
  ::sigaction(SIGQUIT, &ignore, &old_quit);
  pid_t pid = ::fork();
  if (pid < 0) {
    int e = errno;
    ::sigaction(SIGINT, &old_int, nullptr);
    ::sigaction(SIGQUIT, &old_quit, nullptr);
    throw Error(std::string("cannot start the agent: fork: ") + std::strerror(e));
  }
  if (pid == 0) {
    if (!keep_ignored) {
      ::sigaction(SIGINT, &old_int, nullptr);
      ::sigaction(SIGQUIT, &old_quit, nullptr);
    }
    for (int fd : keep_fds) {
      ::fcntl(fd, F_SETFD, 0);
    }
    if (report_fd >= 0) {
      ::dup2(report_fd, STDERR_FILENO); // only for the probe
    }
    ::execv(args[0], args.data());
    std::fprintf(stderr, "ws: cannot run %s: %s\n", args[0], std::strerror(errno));
    ::_exit(127);
  }
  if (after_fork) {
    after_fork(pid);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGQUIT, &old_quit, nullptr);
  if (WIFSIGNALED(status)) {
    return 128 + WTERMSIG(status);
  }
  return WEXITSTATUS(status);
}

/// bwrap's --info-fd output: {"child-pid": N, ...}. Waits up to 5 s for it.
pid_t read_child_pid(int fd) {
  std::string text;
  pollfd p{fd, POLLIN, 0};
  char buf[512];
  while (::poll(&p, 1, 5000) > 0) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) {
      break;
    }
    text.append(buf, static_cast<size_t>(n));
    if (text.find('}') != std::string::npos) {
      break;
    }
  }
  size_t at = text.find("\"child-pid\"");
  if (at == std::string::npos) {
    return 0;
  }
  at = text.find(':', at);
  return at == std::string::npos ? 0 : static_cast<pid_t>(std::atoi(text.c_str() + at + 1));
}

/// Checks, before the agent starts, that this machine lets bwrap build the sandbox; throws
/// Error with bwrap's own complaint and what to do.
void probe(const std::string& bwrap, const SandboxSpec& spec, int seccomp_fd) {
  SandboxSpec p = spec;
  p.command = {"/bin/true"};
  char name[] = "/tmp/ws-probe-XXXXXX";
  int fd = ::mkstemp(name);
  if (fd < 0) {
    return; // cannot capture bwrap's words; the real run will still fail closed
  }
  ::unlink(name);
  int rc = spawn_and_wait(bwrap_command(bwrap, p, seccomp_fd), {seccomp_fd}, fd);
  ::lseek(seccomp_fd, 0, SEEK_SET);
  std::string why(4096, '\0');
  ssize_t n = ::pread(fd, why.data(), why.size(), 0);
  ::close(fd);
  why.resize(n > 0 ? static_cast<size_t>(n) : 0);
  while (!why.empty() && why.back() == '\n') {
    why.pop_back();
  }
  if (rc == 0) {
    return;
  }
  std::string hint = "check that unprivileged user namespaces are enabled "
                     "(sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0; "
                     "AppArmor: kernel.apparmor_restrict_unprivileged_userns=0), or run "
                     "unconfined on purpose with 'ws run --no-confine'";
  throw Error("cannot confine the agent: bubblewrap could not build the sandbox" +
                  (why.empty() ? std::string() : " (" + why + ")"),
              hint);
}

} // namespace

int run_confined(const SandboxSpec& spec, const OnStarted& started) {
  std::string bwrap = find_bwrap();
  fuse::UniqueFd filter = terminal_injection_filter();
  probe(bwrap, spec, filter.get());
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    throw Error(std::string("cannot start the agent: pipe: ") + std::strerror(errno));
  }
  fuse::UniqueFd info_read(pipe_fds[0]), info_write(pipe_fds[1]);
  // bwrap and the sandbox's first process keep SIGINT/SIGQUIT ignored: a Ctrl-C must reach
  // the agent, not kill the sandbox around it. The agent is started through `ws __exec`
  // (this very binary, by fd: it may live where the sandbox hides), which restores them.
  fuse::UniqueFd self(::open("/proc/self/exe", O_PATH));
  if (!self) {
    throw Error(std::string("cannot start the agent: open /proc/self/exe: ") +
                std::strerror(errno));
  }
  SandboxSpec inner = spec;
  inner.command = {"/proc/self/fd/" + std::to_string(self.get()), "__exec", "--"};
  inner.command.insert(inner.command.end(), spec.command.begin(), spec.command.end());
  return spawn_and_wait(
      bwrap_command(bwrap, inner, filter.get(), info_write.get()),
      {filter.get(), info_write.get(), self.get()}, -1,
      [&](pid_t) {
        info_write.reset(); // ours; bwrap holds its own copy
        pid_t child = read_child_pid(info_read.get());
        if (child > 0 && started) {
          started(child);
        }
      },
      true);
}

int run_unconfined(const SandboxSpec& spec) {
  std::vector<std::string> argv{"/usr/bin/env", "-C", spec.cwd.string()};
  for (const auto& [k, v] : spec.env) {
    argv.push_back(k + "=" + v);
  }
  argv.insert(argv.end(), spec.command.begin(), spec.command.end());
  return spawn_and_wait(argv, {}, -1);
}

} // namespace ws
