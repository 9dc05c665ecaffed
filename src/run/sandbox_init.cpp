// pid 1 of a `ws run` sandbox (see sandbox_init.hpp). Runs inside the sandbox, after bwrap
// has built it: every failure here is reported on stderr and ends the session, never the
// confinement.
#include "src/run/sandbox_init.hpp"

#include "src/run/landlock.hpp"
#include "src/run/socket_supervisor.hpp"

#include <linux/close_range.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ws {

namespace {

constexpr int k_forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

void close_fds(unsigned from, unsigned to) {
  if (from <= to && ::syscall(SYS_close_range, from, to, 0U) != 0) {
    for (unsigned fd = from; fd <= to && fd < 65536; ++fd) {
      ::close(static_cast<int>(fd));
    }
  }
}

/// Whatever ws run or bwrap held open must not reach the agent: it starts with 0, 1, 2. pid 1
/// keeps `keep` (its socket supervisor's listener) and nothing else either.
void close_inherited_fds(int keep = -1) {
  if (keep < 3) {
    close_fds(3, ~0U);
    return;
  }
  close_fds(3, static_cast<unsigned>(keep) - 1);
  close_fds(static_cast<unsigned>(keep) + 1, ~0U);
}

[[noreturn]] void exec_agent(char** argv, const sigset_t& original_mask) {
  ::setsid(); // its own session: nothing it does reaches ws run's process group
  if (::isatty(STDIN_FILENO)) {
    ::ioctl(STDIN_FILENO, TIOCSCTTY, 0); // the pty ws run made is its controlling terminal
  }
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) {
      ::signal(sig, SIG_DFL); // bwrap passes SIGINT/SIGQUIT ignored; the agent decides
    }
  }
  ::sigprocmask(SIG_SETMASK, &original_mask, nullptr);
  close_inherited_fds();
  ::execvp(argv[0], argv);
  int err = errno;
  std::fprintf(stderr, "ws: cannot run %s: %s\n", argv[0], std::strerror(err));
  ::_exit(err == ENOENT ? 127 : 126);
}

/// A path the agent chose, safe on the person's terminal.
std::string printable(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (c < 0x20 || c >= 0x7f || c == '\\') {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

void say_refused(const SocketSupervisor& sockets) {
  std::vector<std::string> refused = sockets.refused();
  for (std::size_t i = 0; i < refused.size() && i < 8; ++i) {
    std::fprintf(stderr,
                 "ws: refused the agent's connection to %s: a unix socket made outside the "
                 "sandbox\n",
                 printable(refused[i]).c_str());
  }
  if (refused.size() > 8) {
    std::fprintf(stderr, "ws: ... and %zu more unix sockets refused\n", refused.size() - 8);
  }
}

int status_code(int status) {
  if (WIFSIGNALED(status)) {
    return 128 + WTERMSIG(status);
  }
  return WEXITSTATUS(status);
}

} // namespace

int run_sandbox_init(int argc, char** argv) {
  int i = 2;
  long max_procs = 0;
  int go = -1, ready = -1, socket_filter = -1;
  std::vector<std::string> writable;
  for (; i < argc && std::string_view(argv[i]) != "--"; ++i) {
    if (std::string_view(argv[i]) == "--max-procs" && i + 1 < argc) {
      max_procs = std::atol(argv[++i]);
    } else if (std::string_view(argv[i]) == "--write" && i + 1 < argc) {
      writable.emplace_back(argv[++i]);
    } else if (std::string_view(argv[i]) == "--sockets" && i + 1 < argc) {
      socket_filter = std::atoi(argv[++i]);
    } else if (std::string_view(argv[i]) == "--sync" && i + 1 < argc) {
      std::sscanf(argv[++i], "%d,%d", &go, &ready);
    }
  }
  if (i + 1 >= argc) {
    std::fprintf(stderr, "ws: __exec: no command\n");
    return 127;
  }
  char** command = argv + i + 1;

  // Not dumpable: the agent (same uid, no capability) can neither ptrace nor read the
  // memory of the process that holds the sandbox together.
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  LandlockResult scope = restrict_sandbox(writable);
  if (!scope.why_not.empty() && std::getenv("WS_DEBUG_SANDBOX")) {
    std::fprintf(stderr, "ws: %s\n", scope.why_not.c_str());
  }
  if (max_procs > 0) {
    // Counted per user namespace (Linux 5.14+): only the sandbox's own processes count.
    rlimit lim{static_cast<rlim_t>(max_procs), static_cast<rlim_t>(max_procs)};
    ::setrlimit(RLIMIT_NPROC, &lim);
  }

  if (go >= 0 && ready >= 0) {
    // Tell ws run the sandbox is built, then wait for its word: it brings the network up
    // and records the session first. No word (ws run gave up): the agent never starts.
    char c = 'r';
    if (::write(ready, &c, 1) != 1 || ::read(go, &c, 1) != 1) {
      return 126;
    }
    ::close(go);
    ::close(ready);
  }

  // Blocked before any thread starts, so that they stay with the main thread's sigwaitinfo.
  sigset_t handled, original;
  sigemptyset(&handled);
  sigaddset(&handled, SIGCHLD);
  for (int sig : k_forwarded) {
    sigaddset(&handled, sig);
  }
  ::sigprocmask(SIG_BLOCK, &handled, &original);
  // pid 1's own inherited fds, before its supervisor's thread opens any.
  close_inherited_fds(socket_filter);
  // The supervisor's thread starts first (after Landlock: it connects in the sandbox's
  // domain); then this thread, and so the agent, goes under the filter. From Landlock ABI 9
  // the kernel itself refuses every pathname unix socket made outside: no call of the
  // agent's waits for pid 1 then.
  std::unique_ptr<SocketSupervisor> sockets;
  if (socket_filter >= 0 && !scope.unix_paths) {
    sockets = std::make_unique<SocketSupervisor>();
    std::string why = sockets->supervise_calling_thread(socket_filter);
    if (!why.empty()) {
      std::fprintf(stderr, "ws: cannot supervise the agent's sockets: %s\n", why.c_str());
      return 126;
    }
  }
  if (socket_filter >= 0) {
    ::close(socket_filter);
  }
  pid_t agent = ::fork();
  if (agent < 0) {
    std::fprintf(stderr, "ws: cannot start the agent: fork: %s\n", std::strerror(errno));
    return 126;
  }
  if (agent == 0) {
    exec_agent(command, original);
  }
  if (sockets) {
    // The supervisor holds the agent's sockets and passed descriptors while their calls
    // block: pid 1's own limit, not the agent's, goes up to what it may be.
    rlimit files{};
    if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
      files.rlim_cur = files.rlim_max;
      ::setrlimit(RLIMIT_NOFILE, &files);
    }
  }
  for (;;) {
    siginfo_t info{};
    if (::sigwaitinfo(&handled, &info) < 0) {
      continue;
    }
    if (info.si_signo != SIGCHLD) {
      // From ws run (the agent cannot signal its init). The agent's whole process group.
      if (::kill(-agent, info.si_signo) != 0) {
        ::kill(agent, info.si_signo);
      }
      continue;
    }
    int status = 0;
    pid_t pid;
    while ((pid = ::waitpid(-1, &status, WNOHANG | WUNTRACED)) > 0) {
      if (pid != agent) {
        continue; // an orphan reparented to us
      }
      if (WIFSTOPPED(status)) {
        // Stopped itself (SIGSTOP, or a terminal stop): nobody outside the sandbox can
        // resume it, and ws run must not hand the terminal back while it lives.
        ::kill(agent, SIGCONT);
        continue;
      }
      if (sockets) {
        say_refused(*sockets);
      }
      return status_code(status);
    }
  }
}

} // namespace ws
