// ws run's confinement: bubblewrap builds the namespaces and mounts (sandbox.hpp, docs/run.md);
// ws run supervises: the agent's pty, signals, the network stack, the end of the session.
// Why bwrap rather than our own namespace calls: docs/run.md.
#include "src/run/sandbox.hpp"

#include "src/cli/error.hpp"
#include "src/run/output_relay.hpp"
#include "src/run/process_limit.hpp"
#include "src/run/seccomp_filter.hpp"
#include "src/run/startup_trace.hpp"
#include "src/run/terminal_relay.hpp"
#include "src/run/trusted_program.hpp"
#include "src/run/user_network.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>

namespace ws {

namespace fs = std::filesystem;

namespace {

std::vector<char*> c_args(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& s : argv) {
    args.push_back(const_cast<char*>(s.c_str()));
  }
  args.push_back(nullptr);
  return args;
}

/// bwrap's --info-fd output: {"child-pid": N, ...}. Waits up to 10 s for it; 0 if bwrap
/// failed before making the sandbox.
pid_t read_child_pid(int fd) {
  std::string text;
  pollfd p{fd, POLLIN, 0};
  char buf[512];
  while (::poll(&p, 1, 10000) > 0) {
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

int status_code(int status) {
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

/// What a successful probe depends on: this boot, this bwrap, this user. Kept in the
/// runtime directory (hidden from every sandbox) so later sessions skip the probe.
std::string probe_key(const std::string& bwrap) {
  std::string boot;
  if (FILE* f = std::fopen("/proc/sys/kernel/random/boot_id", "r")) {
    char buf[64] = {};
    if (std::fgets(buf, sizeof buf, f)) {
      boot = buf;
    }
    std::fclose(f);
  }
  struct stat st {};
  ::stat(bwrap.c_str(), &st);
  return boot + bwrap + " " + std::to_string(st.st_ino) + " " + std::to_string(st.st_mtime) +
         " uid " + std::to_string(::geteuid()) + "\n";
}

/// Checks, before the agent starts, that this machine lets bwrap build the sandbox; throws
/// Error with bwrap's own complaint and what to do. Once it passed (same boot, bwrap and
/// user: `cache`), later sessions skip it; the real run still fails closed on its own.
void probe(const std::string& bwrap, const SandboxSpec& spec, int seccomp_fd,
           const fs::path& cache) {
  std::string key = probe_key(bwrap);
  if (!cache.empty()) {
    if (FILE* f = std::fopen(cache.c_str(), "r")) {
      std::string seen(512, '\0');
      size_t n = std::fread(seen.data(), 1, seen.size(), f);
      std::fclose(f);
      if (seen.substr(0, n) == key) {
        return;
      }
    }
  }
  char name[] = "/tmp/ws-probe-XXXXXX";
  int fd = ::mkstemp(name);
  if (fd < 0) {
    return; // cannot capture bwrap's words; the real run will still fail closed
  }
  ::unlink(name);
  std::vector<std::string> argv = bwrap_command(bwrap, spec, seccomp_fd, -1, {}, -1, true);
  std::vector<char*> args = c_args(argv);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    ::fcntl(seccomp_fd, F_SETFD, 0);
    int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, 0);
    ::dup2(null, 1);
    ::dup2(fd, 2);
    ::execv(args[0], args.data());
    std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
    ::_exit(127);
  }
  int status = 0;
  while (pid > 0 && ::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::lseek(seccomp_fd, 0, SEEK_SET);
  std::string why(4096, '\0');
  ssize_t n = ::pread(fd, why.data(), why.size(), 0);
  ::close(fd);
  why.resize(n > 0 ? static_cast<size_t>(n) : 0);
  while (!why.empty() && why.back() == '\n') {
    why.pop_back();
  }
  if (pid > 0 && status_code(status) == 0) {
    if (!cache.empty()) {
      if (FILE* f = std::fopen(cache.c_str(), "w")) {
        std::fputs(key.c_str(), f);
        std::fclose(f);
      }
    }
    return;
  }
  throw HostError("cannot confine the agent: bubblewrap could not build the sandbox" +
                      (why.empty() ? std::string() : " (" + why + ")"),
                  "check that unprivileged user namespaces are enabled "
                  "(sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0; "
                  "AppArmor: kernel.apparmor_restrict_unprivileged_userns=0), or run "
                  "unconfined on purpose with 'ws run --no-confine'");
}

/// Signals ws run handles itself while the sandbox runs (blocked, read from a signalfd).
sigset_t supervised_signals() {
  sigset_t s;
  sigemptyset(&s);
  for (int sig : {SIGCHLD, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGWINCH}) {
    sigaddset(&s, sig);
  }
  return s;
}

fuse::UniqueFd data_fd(const std::string& name, const std::string& content) {
  fuse::UniqueFd fd(::memfd_create(name.c_str(), MFD_CLOEXEC));
  if (!fd ||
      ::write(fd.get(), content.data(), content.size()) != static_cast<ssize_t>(content.size())) {
    throw Error(std::string("cannot build the sandbox: memfd: ") + std::strerror(errno));
  }
  ::lseek(fd.get(), 0, SEEK_SET);
  return fd;
}

} // namespace

int run_confined(const SandboxSpec& spec, const OnStarted& created, const OnStarted& started,
                 std::vector<std::string>* read_only_failures) {
  std::string bwrap = trusted_program("bwrap", "bubblewrap", "WS_BWRAP");
  std::string slirp = spec.network ? UserNetwork::program() : std::string();
  fuse::UniqueFd filter = terminal_injection_filter();
  fuse::UniqueFd socket_filter = socket_supervision_filter();
  startup_step("seccomp filter built");
  probe(bwrap, spec, filter.get(), spec.probe_cache);
  startup_step("sandbox probed (once per boot)");

  std::optional<TerminalRelay> relay = TerminalRelay::open_if_terminal();
  std::optional<OutputRelay> errors = OutputRelay::open_if_not_terminal();
  // Writes to a pipe whose reader died must fail with EPIPE here, not kill ws run.
  ::signal(SIGPIPE, SIG_IGN);
  // info: bwrap's --info-fd. ready: the sandbox's pid 1 says it runs (bwrap has finished
  // building everything). go: ws run lets it start the agent (network up, session recorded).
  int info[2], ready[2], go[2];
  if (::pipe2(info, O_CLOEXEC) != 0 || ::pipe2(ready, O_CLOEXEC) != 0 ||
      ::pipe2(go, O_CLOEXEC) != 0) {
    throw Error(std::string("cannot start the agent: pipe: ") + std::strerror(errno));
  }
  fuse::UniqueFd info_read(info[0]), info_write(info[1]);
  fuse::UniqueFd ready_read(ready[0]), ready_write(ready[1]);
  fuse::UniqueFd go_read(go[0]), go_write(go[1]);
  fuse::UniqueFd resolv;
  if (!spec.resolv_conf.empty()) {
    resolv = data_fd("ws-resolv", spec.resolv_conf);
  }
  std::vector<fuse::UniqueFd> generated;
  std::vector<int> generated_fds;
  for (const auto& [path, content] : spec.host.generated) {
    generated.push_back(data_fd("ws-generated", content));
    generated_fds.push_back(generated.back().get());
  }
  ProcessLimit limit(spec.max_procs);
  std::vector<std::string> argv =
      bwrap_command(bwrap, spec, filter.get(), info_write.get(),
                    {go_read.get(), ready_write.get(), socket_filter.get()},
                    resolv ? resolv.get() : -1, false, generated_fds);
  std::vector<char*> args = c_args(argv);

  sigset_t handled = supervised_signals(), original;
  ::sigprocmask(SIG_BLOCK, &handled, &original);
  struct RestoreMask {
    sigset_t mask;
    ~RestoreMask() { ::sigprocmask(SIG_SETMASK, &mask, nullptr); }
  } restore_mask{original};
  fuse::UniqueFd signals(::signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK));

  pid_t bwrap_pid = ::fork();
  if (bwrap_pid < 0) {
    throw Error(std::string("cannot start the agent: fork: ") + std::strerror(errno));
  }
  if (bwrap_pid == 0) {
    // Its own process group: the terminal's signals are ws run's to forward, and bwrap
    // must not die of a Ctrl-C meant for the agent.
    ::setpgid(0, 0);
    ::signal(SIGINT, SIG_IGN);
    ::signal(SIGQUIT, SIG_IGN);
    ::sigprocmask(SIG_SETMASK, &original, nullptr);
    limit.join_self();
    if (relay) {
      for (int fd = 0; fd < 3; ++fd) {
        if (relay->agent_fd(fd) != fd) {
          ::dup2(relay->agent_fd(fd), fd);
        }
      }
    }
    if (errors) {
      for (int fd : {1, 2}) {
        if (errors->takes(fd)) {
          ::dup2(errors->agent_end(), fd);
        }
      }
    }
    for (int fd : {filter.get(), info_write.get(), go_read.get(), ready_write.get(),
                   socket_filter.get(), resolv ? resolv.get() : -1}) {
      if (fd >= 0) {
        ::fcntl(fd, F_SETFD, 0);
      }
    }
    for (int fd : generated_fds) {
      ::fcntl(fd, F_SETFD, 0);
    }
    ::execv(args[0], args.data());
    std::fprintf(stderr, "ws: cannot run %s: %s\n", args[0], std::strerror(errno));
    ::_exit(127);
  }
  startup_step("bwrap forked");
  info_write.reset();
  go_read.reset();
  ready_write.reset();
  if (relay) {
    relay->close_slave();
  }
  if (errors) {
    errors->close_agent_end();
  }
  // Never lets the agent start: pid 1 first (the whole pid namespace dies with it), then
  // bwrap, and only then may the go pipe close (pid 1 starts nothing on EOF either).
  pid_t child = 0;
  auto kill_sandbox = [&] {
    if (child > 0) {
      ::kill(child, SIGKILL);
    }
    ::kill(bwrap_pid, SIGKILL);
    ::waitpid(bwrap_pid, nullptr, 0);
  };
  child = read_child_pid(info_read.get());
  startup_step("bwrap made the namespaces");
  if (child <= 0) {
    int status = 0;
    ::waitpid(bwrap_pid, &status, 0);
    throw HostError("cannot confine the agent: bubblewrap could not build the sandbox (exit " +
                        std::to_string(status_code(status)) + ")",
                    "run unconfined on purpose with 'ws run --no-confine'");
  }
  // While bwrap builds the mounts (the longest step of the start-up, on the other core).
  try {
    if (created) {
      created(child);
    }
  } catch (...) {
    kill_sandbox();
    throw;
  }
  startup_step("session recorded (bwrap still building)");
  // pid 1 runs once bwrap has built everything (mounts, loopback): nothing of bwrap's
  // set-up races the network stack attaching to the namespace.
  pollfd rp{ready_read.get(), POLLIN, 0};
  char r = 0;
  if (::poll(&rp, 1, 10000) <= 0 || ::read(ready_read.get(), &r, 1) != 1) {
    kill_sandbox();
    throw HostError("cannot confine the agent: bubblewrap could not build the sandbox (see its "
                    "message above)",
                    "run unconfined on purpose with 'ws run --no-confine'");
  }
  startup_step("bwrap built the sandbox, pid 1 ready");
  std::optional<UserNetwork> net;
  try {
    if (spec.network) {
      net.emplace(slirp, child);
    }
    if (started) {
      started(child);
    }
  } catch (...) {
    kill_sandbox();
    throw;
  }
  if (::write(go_write.get(), "g", 1) != 1) {
    kill_sandbox();
    throw Error(std::string("cannot start the agent: ") + std::strerror(errno));
  }
  go_write.reset();
  startup_step("agent let go");
  if (relay) {
    relay->enter_raw();
  }

  // Supervise until bwrap (and with it the sandbox's pid 1) exits.
  using Clock = std::chrono::steady_clock;
  bool kill_armed = false;
  Clock::time_point kill_at{};
  int stop_signal = 0;
  int status = -1;
  bool output_open = relay.has_value();
  while (status < 0) {
    pollfd fds[4];
    nfds_t n = 0;
    fds[n++] = {signals.get(), POLLIN, 0};
    if (errors && errors->fd() >= 0) {
      fds[n++] = {errors->fd(), POLLIN, 0};
    }
    if (relay && relay->input() >= 0) {
      fds[n++] = {relay->input(), POLLIN, 0};
    }
    if (output_open) {
      short ev = POLLIN;
      if (relay->input_pending()) {
        ev = static_cast<short>(ev | POLLOUT);
      }
      fds[n++] = {relay->master(), ev, 0};
    }
    int timeout = -1;
    if (kill_armed) {
      auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(kill_at - Clock::now()).count();
      timeout = left > 0 ? static_cast<int>(left) : 0;
    }
    int polled = ::poll(fds, n, timeout);
    if (kill_armed && Clock::now() >= kill_at) {
      ::kill(child, SIGKILL); // pid 1: the whole pid namespace goes with it
      kill_armed = false;
    }
    if (polled <= 0) {
      continue;
    }
    for (nfds_t i = 1; i < n; ++i) {
      if (!fds[i].revents) {
        continue;
      }
      if (errors && fds[i].fd == errors->fd()) {
        errors->pump();
      } else if (relay && fds[i].fd == relay->input()) {
        relay->pump_input();
      } else if (relay && fds[i].fd == relay->master()) {
        if (fds[i].revents & POLLOUT) {
          relay->flush_input();
        }
        if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) && !relay->pump_output()) {
          output_open = false;
        }
      }
    }
    signalfd_siginfo si{};
    while (::read(signals.get(), &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
      int sig = static_cast<int>(si.ssi_signo);
      if (sig == SIGWINCH) {
        if (relay) {
          relay->forward_size();
        }
      } else if (sig == SIGCHLD) {
        int st = 0;
        if (::waitpid(bwrap_pid, &st, WNOHANG) == bwrap_pid) {
          status = status_code(st);
        }
      } else {
        ::kill(child, sig); // pid 1 forwards it to the agent's process group
        if (sig == SIGTERM || sig == SIGHUP) {
          stop_signal = sig;
          if (!kill_armed) {
            kill_armed = true;
            kill_at = Clock::now() + std::chrono::seconds(5);
          }
        }
      }
    }
  }
  if (relay && output_open) {
    relay->pump_output(); // what the agent wrote last
  }
  if (errors) {
    errors->drain(); // what the agent wrote last
  }
  if (read_only_failures) {
    read_only_failures->clear();
    for (const auto* seen : {relay ? &relay->read_only_failures() : nullptr,
                             errors ? &errors->read_only_failures() : nullptr}) {
      for (const auto& p : seen ? *seen : std::vector<std::string>()) {
        if (std::find(read_only_failures->begin(), read_only_failures->end(), p) ==
            read_only_failures->end()) {
          read_only_failures->push_back(p);
        }
      }
    }
  }
  if (stop_signal && status == 0) {
    status = 128 + stop_signal;
  }
  return status;
}

int run_unconfined(const SandboxSpec& spec) {
  std::vector<std::string> argv{"/usr/bin/env", "-C", spec.cwd.string()};
  for (const auto& [k, v] : spec.env) {
    argv.push_back(k + "=" + v);
  }
  argv.insert(argv.end(), spec.command.begin(), spec.command.end());
  std::vector<char*> args = c_args(argv);
  struct sigaction ignore {
  }, old_int{}, old_quit{};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGINT, &ignore, &old_int);
  ::sigaction(SIGQUIT, &ignore, &old_quit);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::sigaction(SIGINT, &old_int, nullptr);
    ::sigaction(SIGQUIT, &old_quit, nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  while (pid > 0 && ::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGQUIT, &old_quit, nullptr);
  return status_code(status);
}

} // namespace ws
