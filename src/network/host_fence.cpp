// The sandbox's routes around this machine's addresses (host_fence.hpp).
#include "src/network/host_fence.hpp"

#include "fuse/unique_fd.hpp"
#include "src/cli/error.hpp"

#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/nsfs.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>

namespace ws::network {

namespace {

/// slirp4netns's network (its default --cidr, which ws keeps): the sandbox's own link.
const Prefix k_slirp_network = Prefix::parse("10.0.2.0/24");
/// Its gateway (the host's loopback, refused by --disable-host-loopback), its DNS forwarder
/// (port 53 only) and the sandbox's own address: routes for them would cut the sandbox off.
const std::vector<Prefix> k_slirp_addresses = {Prefix::host("10.0.2.2"), Prefix::host("10.0.2.3"),
                                               Prefix::host("10.0.2.100")};
const Prefix k_ipv4_loopback = Prefix::parse("127.0.0.0/8");
const Prefix k_ipv6_loopback = Prefix::host("::1");
const Prefix k_ipv6_link_local = Prefix::parse("fe80::/10");
const Prefix k_ipv4_link_local = Prefix::parse("169.254.0.0/16");

bool left_out(const Route& r, bool own) {
  const Prefix& d = r.destination;
  // A default route through a device, or the halves of one (wg-quick's 0.0.0.0/1 and
  // 128.0.0.0/1 dev wg0): the internet through a tunnel, not the host.
  if (!own && d.length < (d.family == AF_INET ? 8 : 16)) {
    return true;
  }
  if (d.length == 0) {
    return true;
  }
  if (k_ipv4_loopback.contains(d) || d.contains(k_ipv4_loopback) || d == k_ipv6_loopback) {
    return true;
  }
  if (!own && k_ipv6_link_local.contains(d)) {
    return true;
  }
  if (k_slirp_network.contains(d)) {
    return d.length != 32 || std::find(k_slirp_addresses.begin(), k_slirp_addresses.end(), d) !=
                                 k_slirp_addresses.end();
  }
  return false;
}

/// What the child reports: the index of the request that failed (-1: none) and its errno.
struct ChildResult {
  int index = -1;
  int err = 0;
};

/// The child: only system calls from here on (ws run may have threads).
[[noreturn]] void child(int report, int userns, int netns,
                        const std::vector<std::vector<char>>& requests,
                        const std::vector<int>& families) {
  ChildResult r;
  int nl = -1;
  if (::setns(userns, CLONE_NEWUSER) != 0 || ::setns(netns, CLONE_NEWNET) != 0 ||
      (nl = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE)) < 0) {
    r = {static_cast<int>(requests.size()), errno};
  }
  alignas(nlmsghdr) char answer[4096];
  for (size_t i = 0; nl >= 0 && r.index < 0 && i < requests.size(); ++i) {
    if (::send(nl, requests[i].data(), requests[i].size(), 0) < 0) {
      r = {static_cast<int>(i), errno};
      break;
    }
    ssize_t n = ::recv(nl, answer, sizeof answer, 0);
    const auto* h = reinterpret_cast<const nlmsghdr*>(answer);
    if (n < static_cast<ssize_t>(NLMSG_LENGTH(sizeof(nlmsgerr))) || h->nlmsg_type != NLMSG_ERROR) {
      r = {static_cast<int>(i), n < 0 ? errno : EPROTO};
      break;
    }
    int err = -static_cast<const nlmsgerr*>(NLMSG_DATA(h))->error;
    // EEXIST: there already (the same prefix twice). No IPv6 in this kernel: no IPv6 route
    // out of the sandbox either.
    if (err != 0 && err != EEXIST &&
        !(families[i] == AF_INET6 && (err == EAFNOSUPPORT || err == EOPNOTSUPP))) {
      r = {static_cast<int>(i), err};
    }
  }
  ::_exit(::write(report, &r, sizeof r) == sizeof r ? 0 : 1);
}

} // namespace

std::vector<Prefix> host_destinations(const std::vector<Route>& host_routes) {
  std::vector<Prefix> out;
  for (const auto& r : host_routes) {
    bool own = r.type == RTN_LOCAL || r.type == RTN_ANYCAST || r.type == RTN_BROADCAST;
    bool link = r.type == RTN_UNICAST && !r.via_gateway;
    if ((own || link) && !left_out(r, own)) {
      out.push_back(r.destination);
    }
  }
  out.push_back(k_ipv4_link_local);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

namespace {

Error fence_error(const std::string& what, int err) {
  return Error("cannot keep the sandbox off this machine's addresses: " + what + ": " +
                   std::strerror(err),
               "use --network=allow:HOST,... (ws's proxy) or --network=off");
}

} // namespace

HostFence::HostFence(pid_t sandbox_pid) {
  std::string ns = "/proc/" + std::to_string(sandbox_pid) + "/ns/net";
  m_netns.reset(::open(ns.c_str(), O_RDONLY | O_CLOEXEC));
  if (!m_netns) {
    throw fence_error(ns, errno);
  }
  // The user namespace that owns the sandbox's network namespace (bwrap's outer one).
  m_userns.reset(::ioctl(m_netns.get(), NS_GET_USERNS));
  if (!m_userns) {
    throw fence_error("the owner of " + ns, errno);
  }
  m_sandbox.reset(static_cast<int>(::syscall(SYS_pidfd_open, sandbox_pid, 0)));
  // Listening before the first look: a change in between is not missed.
  m_changes.reset(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE));
  sockaddr_nl groups{};
  groups.nl_family = AF_NETLINK;
  groups.nl_groups =
      RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE;
  if (!m_changes ||
      ::bind(m_changes.get(), reinterpret_cast<sockaddr*>(&groups), sizeof groups) != 0) {
    throw fence_error("listen to this machine's address changes", errno);
  }
  m_stop.reset(::eventfd(0, EFD_CLOEXEC));
  if (!m_stop) {
    throw fence_error("eventfd", errno);
  }
  update();
  m_watcher = std::thread([this] { watch(); });
}

HostFence::~HostFence() {
  uint64_t one = 1;
  if (::write(m_stop.get(), &one, sizeof one) < 0) {
    // the watcher then stops at its next wake-up
  }
  if (m_watcher.joinable()) {
    m_watcher.join();
  }
}

std::vector<Prefix> HostFence::update() {
  std::vector<Prefix> wanted = host_destinations(routes_of_this_namespace());
  std::vector<Prefix> added;
  std::set_difference(wanted.begin(), wanted.end(), m_fenced.begin(), m_fenced.end(),
                      std::back_inserter(added));
  if (added.empty()) {
    return added;
  }
  // Built before the fork: the child only sends them.
  std::vector<std::vector<char>> requests;
  std::vector<int> families;
  for (size_t i = 0; i < added.size(); ++i) {
    requests.push_back(unreachable_route_request(added[i], static_cast<uint32_t>(i + 1)));
    families.push_back(added[i].family);
  }
  int pipe[2];
  if (::pipe2(pipe, O_CLOEXEC) != 0) {
    throw fence_error("pipe", errno);
  }
  fuse::UniqueFd mine(pipe[0]), theirs(pipe[1]);
  pid_t c = ::fork();
  if (c < 0) {
    throw fence_error("fork", errno);
  }
  if (c == 0) {
    child(theirs.get(), m_userns.get(), m_netns.get(), requests, families);
  }
  theirs.reset();
  ChildResult r{static_cast<int>(added.size()), EPIPE};
  pollfd p{mine.get(), POLLIN, 0};
  bool answered = ::poll(&p, 1, 10000) > 0 &&
                  ::read(mine.get(), &r, sizeof r) == static_cast<ssize_t>(sizeof r);
  if (!answered) {
    ::kill(c, SIGKILL);
  }
  int status = 0;
  while (::waitpid(c, &status, 0) < 0 && errno == EINTR) {
  }
  if (!answered) {
    throw fence_error("no answer from the child that joins the sandbox's network", ETIMEDOUT);
  }
  if (r.index >= 0) {
    throw fence_error(static_cast<size_t>(r.index) < added.size()
                          ? "route unreachable " + added[static_cast<size_t>(r.index)].text()
                          : "join the sandbox's network namespace",
                      r.err);
  }
  std::vector<Prefix> all;
  std::set_union(m_fenced.begin(), m_fenced.end(), added.begin(), added.end(),
                 std::back_inserter(all));
  m_fenced = std::move(all);
  return added;
}

void HostFence::watch() {
  for (;;) {
    pollfd p[2] = {{m_changes.get(), POLLIN, 0}, {m_stop.get(), POLLIN, 0}};
    if (::poll(p, 2, -1) < 0 && errno != EINTR) {
      return;
    }
    if (p[1].revents != 0) {
      return;
    }
    // What changed does not matter: the routes are read again whole (ENOBUFS, a lost
    // message, included).
    char drain[8192];
    while (::recv(m_changes.get(), drain, sizeof drain, 0) > 0 || errno == ENOBUFS) {
    }
    try {
      update();
    } catch (const std::exception& e) {
      // Fail closed: an agent next to an address it should not reach is stopped.
      std::fprintf(stderr,
                   "\r\nws: error: this machine's addresses changed during the session and %s; "
                   "the session is stopped\r\n",
                   e.what());
      if (m_sandbox) {
        ::syscall(SYS_pidfd_send_signal, m_sandbox.get(), SIGKILL, nullptr, 0);
      }
      return;
    }
  }
}

} // namespace ws::network
