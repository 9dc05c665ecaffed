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
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

namespace ws::network {

namespace {

/// slirp4netns's network (its default --cidr, which ws keeps): the sandbox's own link.
const Prefix k_slirp_network = [] {
  Prefix p = Prefix::host("10.0.2.0");
  p.length = 24;
  return p;
}();
/// Its gateway (the host's loopback, refused by --disable-host-loopback), its DNS forwarder
/// (port 53 only) and the sandbox's own address: routes for them would cut the sandbox off.
const std::vector<Prefix> k_slirp_addresses = {Prefix::host("10.0.2.2"), Prefix::host("10.0.2.3"),
                                               Prefix::host("10.0.2.100")};

const Prefix k_ipv4_loopback = [] {
  Prefix p = Prefix::host("127.0.0.0");
  p.length = 8;
  return p;
}();
const Prefix k_ipv6_loopback = Prefix::host("::1");
const Prefix k_ipv6_link_local = [] {
  Prefix p = Prefix::host("fe80::");
  p.length = 10;
  return p;
}();
const Prefix k_ipv4_link_local = [] {
  Prefix p = Prefix::host("169.254.0.0");
  p.length = 16;
  return p;
}();

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

void fence_off_host(pid_t sandbox_pid) {
  std::vector<Prefix> fence = host_destinations(routes_of_this_namespace());
  auto fail = [](const std::string& what, int err) {
    return Error("cannot keep the sandbox off this machine's addresses: " + what + ": " +
                     std::strerror(err),
                 "use --network=allow:HOST,... (ws's proxy) or --network=off");
  };
  // Built before the fork: the child only sends them.
  std::vector<std::vector<char>> requests;
  std::vector<int> families;
  for (size_t i = 0; i < fence.size(); ++i) {
    requests.push_back(unreachable_route_request(fence[i], static_cast<uint32_t>(i + 1)));
    families.push_back(fence[i].family);
  }
  std::string ns = "/proc/" + std::to_string(sandbox_pid) + "/ns/net";
  fuse::UniqueFd netns(::open(ns.c_str(), O_RDONLY | O_CLOEXEC));
  if (!netns) {
    throw fail(ns, errno);
  }
  // The user namespace that owns the sandbox's network namespace (bwrap's outer one).
  fuse::UniqueFd userns(::ioctl(netns.get(), NS_GET_USERNS));
  if (!userns) {
    throw fail("the owner of " + ns, errno);
  }
  int pipe[2];
  if (::pipe2(pipe, O_CLOEXEC) != 0) {
    throw fail("pipe", errno);
  }
  fuse::UniqueFd mine(pipe[0]), theirs(pipe[1]);
  pid_t c = ::fork();
  if (c < 0) {
    throw fail("fork", errno);
  }
  if (c == 0) {
    child(theirs.get(), userns.get(), netns.get(), requests, families);
  }
  theirs.reset();
  ChildResult r{static_cast<int>(fence.size()), EPIPE};
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
    throw fail("no answer from the child that joins the sandbox's network", ETIMEDOUT);
  }
  if (r.index >= 0) {
    throw fail(static_cast<size_t>(r.index) < fence.size()
                   ? "route unreachable " + fence[static_cast<size_t>(r.index)].text()
                   : "join the sandbox's network namespace",
               r.err);
  }
}

} // namespace ws::network
