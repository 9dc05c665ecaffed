// slirp4netns for --network=on (user_network.hpp).
#include "src/run/user_network.hpp"

#include "fuse/unique_fd.hpp"
#include "src/cli/error.hpp"
#include "src/network/host_fence.hpp"
#include "src/run/startup_trace.hpp"
#include "src/run/trusted_program.hpp"

#include <fcntl.h>
#include <linux/nsfs.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace ws {

std::string UserNetwork::program() {
  std::string slirp = trusted_program("slirp4netns", "slirp4netns", "WS_SLIRP4NETNS");
  // slirp4netns makes the sandbox's interface through the tun device; some machines ship it
  // 0600 (root only), where a normal user's session would fail later with less to go on.
  if (::access("/dev/net/tun", R_OK | W_OK) != 0) {
    throw HostError(std::string("cannot give the sandbox a network: /dev/net/tun: ") +
                        std::strerror(errno),
                    "as root: chmod 0666 /dev/net/tun (its usual mode), or use --network=off");
  }
  return slirp;
}

UserNetwork::UserNetwork(const std::string& slirp, pid_t sandbox_pid) {
  // slirp4netns connects from the host: its addresses and networks first become unreachable.
  m_fence = std::make_unique<network::HostFence>(sandbox_pid);
  startup_step("host fenced off (routes in the sandbox)");
  int ready[2], exit_pipe[2], err[2];
  if (::pipe2(ready, O_CLOEXEC) != 0 || ::pipe2(exit_pipe, O_CLOEXEC) != 0 ||
      ::pipe2(err, O_CLOEXEC) != 0) {
    throw Error(std::string("cannot start the sandbox's network: pipe: ") + std::strerror(errno));
  }
  std::string ns = "/proc/" + std::to_string(sandbox_pid) + "/ns/";
  // The user namespace that owns the sandbox's network namespace: bwrap's outer one (the
  // sandbox's processes sit in a nested one, made by --disable-userns, which owns nothing).
  fuse::UniqueFd netns(::open((ns + "net").c_str(), O_RDONLY | O_CLOEXEC));
  fuse::UniqueFd owner(netns ? ::ioctl(netns.get(), NS_GET_USERNS) : -1);
  if (!owner) {
    throw Error("cannot give the sandbox a network: the owner of its network namespace: " +
                    std::string(std::strerror(errno)),
                "use --network=off for an agent that needs no network");
  }
  std::vector<std::string> argv{slirp,
                                "--configure",
                                "--mtu=65520",
                                "--disable-host-loopback",
                                "--enable-seccomp",
                                "--ready-fd=" + std::to_string(ready[1]),
                                "--exit-fd=" + std::to_string(exit_pipe[0]),
                                "--netns-type=path",
                                "--userns-path=/proc/self/fd/" + std::to_string(owner.get()),
                                ns + "net",
                                "tap0"};
  if (::geteuid() == 0) {
    // Its own mount namespace and no capability but binding ports: only where it is root
    // in the sandbox's user namespace (a normal user's maps no uid 0 to set up with).
    argv.insert(argv.begin() + 1, "--enable-sandbox");
  }
  std::vector<char*> args;
  for (auto& a : argv) {
    args.push_back(a.data());
  }
  args.push_back(nullptr);
  m_pid = ::fork();
  if (m_pid == 0) {
    ::setpgid(0, 0); // not in the terminal's foreground group: Ctrl-C is ws run's to forward
    ::signal(SIGINT, SIG_IGN);
    ::fcntl(ready[1], F_SETFD, 0);
    ::fcntl(exit_pipe[0], F_SETFD, 0);
    ::fcntl(owner.get(), F_SETFD, 0);
    int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, 0);
    ::dup2(err[1], 1);
    ::dup2(err[1], 2);
    ::execv(args[0], args.data());
    std::fprintf(stderr, "cannot run %s: %s", args[0], std::strerror(errno));
    ::_exit(127);
  }
  ::close(ready[1]);
  ::close(exit_pipe[0]);
  ::close(err[1]);
  m_exit_fd = exit_pipe[1];
  pollfd p{ready[0], POLLIN, 0};
  char c = 0;
  bool up = ::poll(&p, 1, 10000) > 0 && ::read(ready[0], &c, 1) == 1;
  ::close(ready[0]);
  if (!up) {
    std::string why(2048, '\0');
    ::fcntl(err[0], F_SETFL, O_NONBLOCK);
    ssize_t n = ::read(err[0], why.data(), why.size());
    why.resize(n > 0 ? static_cast<size_t>(n) : 0);
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) {
      why.pop_back();
    }
    ::close(err[0]);
    ::close(m_exit_fd);
    ::kill(m_pid, SIGKILL);
    ::waitpid(m_pid, nullptr, 0);
    throw HostError("cannot give the sandbox a network: slirp4netns failed" +
                        (why.empty() ? std::string() : " (" + why + ")"),
                    "use --network=off for an agent that needs no network");
  }
  ::close(err[0]);
}

UserNetwork::~UserNetwork() {
  if (m_exit_fd >= 0) {
    ::close(m_exit_fd);
  }
  if (m_pid > 0) {
    int status = 0;
    for (int i = 0; i < 50; ++i) {
      if (::waitpid(m_pid, &status, WNOHANG) == m_pid) {
        return;
      }
      ::usleep(10000);
    }
    ::kill(m_pid, SIGKILL);
    ::waitpid(m_pid, &status, 0);
  }
}

} // namespace ws
