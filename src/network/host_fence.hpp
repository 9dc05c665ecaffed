#pragma once

#include "fuse/unique_fd.hpp"
#include "src/network/route_netlink.hpp"

#include <sys/types.h>

#include <thread>
#include <vector>

namespace ws::network {

/// What `--network=on` keeps the agent from: slirp4netns makes the agent's connections from
/// the host itself, so without a fence every service of the host's that listens on 0.0.0.0
/// or on one of its addresses (a dev database, Jupyter, a container's published port) would
/// answer the agent, and see the connection come from the host. Chosen from the host's own
/// routes (`host_routes`, all tables):
///   - every address the host answers on (local, anycast and broadcast routes: each address
///     of each interface, IPv4 and IPv6, and any range bound with `ip route add local`);
///   - every network directly on one of its interfaces (unicast routes without a gateway:
///     its LAN, a docker/podman/libvirt bridge whose containers only the host reaches, a
///     VPN's point-to-point link), but never a default route or a range wider than a /8
///     (IPv6: /16), which is the internet through a tunnel (wg-quick's 0.0.0.0/1);
///   - 169.254.0.0/16, the link-local range (the cloud metadata service at 169.254.169.254
///     hands out the machine's credentials to whoever asks from it).
/// Left out: loopback (the sandbox's own answers there), IPv6 link-local networks (the
/// sandbox's own link), and slirp4netns's own network 10.0.2.0/24 but for single host
/// addresses in it other than its gateway, DNS and the sandbox's address (a route there would
/// cut the sandbox off; slirp4netns refuses its gateway, 10.0.2.2, and lets only port 53
/// through its DNS address, 10.0.2.3). Sorted, without duplicates. Pure.
std::vector<Prefix> host_destinations(const std::vector<Route>& host_routes);

/// The fence of one `--network=on` session: an `unreachable` route for each of
/// host_destinations() in the sandbox's network namespace. Made before the agent starts
/// (throws ws::Error naming the route that failed: the session must then not start), then
/// kept up to date: a thread listens to the host's address and route changes (netlink) and
/// fences every address or network the host gains during the session (a new DHCP lease, a
/// VPN, a new container bridge) within milliseconds; if that fails, it prints why and kills
/// the sandbox. Routes are only added, never removed. Each update is a short-lived child
/// that joins the user namespace owning the sandbox's network namespace (bwrap's outer one,
/// where ws holds every capability and the agent none: it runs in a nested one and cannot
/// take the routes away) and sends them over netlink. Used by ws run's main thread (made,
/// destroyed) and its own watcher thread (everything else).
class HostFence {
public:
  /// `sandbox_pid`: the host pid of the sandbox's pid 1.
  explicit HostFence(pid_t sandbox_pid);
  ~HostFence();
  HostFence(const HostFence&) = delete;
  HostFence& operator=(const HostFence&) = delete;

private:
  /// Fences what the host has now and was not fenced yet; returns that. Throws ws::Error.
  std::vector<Prefix> update();
  void watch();

  fuse::UniqueFd m_netns, m_userns;
  fuse::UniqueFd m_sandbox;     ///< pidfd of its pid 1, to stop it (-1 where the kernel has none)
  fuse::UniqueFd m_changes;     ///< NETLINK_ROUTE, the host's address and route groups
  fuse::UniqueFd m_stop;        ///< eventfd: the watcher returns
  std::vector<Prefix> m_fenced; ///< sorted
  std::thread m_watcher;
};

} // namespace ws::network
