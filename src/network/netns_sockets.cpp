// Sockets made inside the sandbox's network namespace, held outside (netns_sockets.hpp).
#include "src/network/netns_sockets.hpp"

#include "src/cli/error.hpp"

#include <fcntl.h>
#include <linux/nsfs.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include <arpa/inet.h>
#include <netinet/in.h>

namespace ws::network {

namespace {

/// What the child reports when it fails: which step, and errno.
struct ChildError {
  int step = 0;
  int err = 0;
};

constexpr const char* k_steps[] = {"",
                                   "join the user namespace",
                                   "join the network namespace",
                                   "make the proxy's socket",
                                   "listen on 127.0.0.1",
                                   "make the DNS socket",
                                   "bind 127.0.0.1:53",
                                   "hand the sockets back"};

/// A socket bound to 127.0.0.1:`port` (listening for TCP); -1 with errno set on failure.
int bound_socket(int type, uint16_t port) {
  int fd = ::socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return -1;
  }
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      (type == SOCK_STREAM && ::listen(fd, 128) != 0)) {
    int e = errno;
    ::close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

/// The child: only system calls from here on (ws run may have threads).
[[noreturn]] void child(int channel, int userns, int netns, uint16_t port, bool dns) {
  ChildError e;
  int fds[2] = {-1, -1};
  int count = dns ? 2 : 1;
  if (::setns(userns, CLONE_NEWUSER) != 0) {
    e = {1, errno};
  } else if (::setns(netns, CLONE_NEWNET) != 0) {
    e = {2, errno};
  } else if ((fds[0] = bound_socket(SOCK_STREAM, port)) < 0) {
    e = {4, errno};
  } else if (dns && (fds[1] = bound_socket(SOCK_DGRAM, 53)) < 0) {
    e = {6, errno};
  }
  char control[CMSG_SPACE(sizeof(int) * 2)] = {};
  iovec iov{&e, sizeof e};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (e.step == 0) {
    msg.msg_control = control;
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * static_cast<size_t>(count));
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * static_cast<size_t>(count));
    std::memcpy(CMSG_DATA(c), fds, sizeof(int) * static_cast<size_t>(count));
  }
  ::_exit(::sendmsg(channel, &msg, MSG_NOSIGNAL) < 0 ? 1 : 0);
}

} // namespace

NamespaceSockets open_in_network_of(pid_t pid, uint16_t proxy_port, bool dns) {
  auto fail = [](const std::string& what, int err) {
    return Error("cannot connect the sandbox to ws's network proxy: " + what + ": " +
                     std::strerror(err),
                 "use --network=on (a full outside route) or --network=off");
  };
  std::string ns = "/proc/" + std::to_string(pid) + "/ns/net";
  fuse::UniqueFd netns(::open(ns.c_str(), O_RDONLY | O_CLOEXEC));
  if (!netns) {
    throw fail(ns, errno);
  }
  // The user namespace that owns the sandbox's network namespace (bwrap's outer one).
  fuse::UniqueFd userns(::ioctl(netns.get(), NS_GET_USERNS));
  if (!userns) {
    throw fail("the owner of " + ns, errno);
  }
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
    throw fail("socketpair", errno);
  }
  fuse::UniqueFd mine(pair[0]), theirs(pair[1]);
  pid_t c = ::fork();
  if (c < 0) {
    throw fail("fork", errno);
  }
  if (c == 0) {
    child(theirs.get(), userns.get(), netns.get(), proxy_port, dns);
  }
  theirs.reset();
  ChildError e{7, EPIPE};
  char control[CMSG_SPACE(sizeof(int) * 2)] = {};
  iovec iov{&e, sizeof e};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  pollfd p{mine.get(), POLLIN, 0};
  ssize_t n = ::poll(&p, 1, 10000) > 0 ? ::recvmsg(mine.get(), &msg, MSG_CMSG_CLOEXEC) : -1;
  int status = 0;
  if (n < 0) {
    ::kill(c, SIGKILL);
  }
  while (::waitpid(c, &status, 0) < 0 && errno == EINTR) {
  }
  NamespaceSockets out;
  for (cmsghdr* h = n > 0 ? CMSG_FIRSTHDR(&msg) : nullptr; h; h = CMSG_NXTHDR(&msg, h)) {
    if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS) {
      int fds[2] = {-1, -1};
      size_t count = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      std::memcpy(fds, CMSG_DATA(h), sizeof(int) * std::min<size_t>(count, 2));
      out.proxy.reset(fds[0]);
      out.dns.reset(fds[1]);
    }
  }
  if (n != static_cast<ssize_t>(sizeof e) || e.step != 0 || !out.proxy || (dns && !out.dns)) {
    if (e.step == 0) {
      e = {7, EPIPE};
    }
    throw fail(k_steps[e.step < 8 ? e.step : 7], e.err);
  }
  return out;
}

} // namespace ws::network
