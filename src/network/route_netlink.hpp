#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ws::network {

/// An IP prefix: `family` AF_INET or AF_INET6, the address in network byte order (the first
/// 4 bytes for IPv4), and how many leading bits count.
struct Prefix {
  int family = 0;
  std::array<uint8_t, 16> bytes{};
  int length = 0;

  /// "192.0.2.0/24", "fd00::2/128".
  std::string text() const;
  /// "192.0.2.7/32" or "fd00::1/128" (empty prefix if `ip` is not an IP literal).
  static Prefix host(const std::string& ip);
  /// "192.0.2.0/24" read back (empty prefix if it is not one).
  static Prefix parse(const std::string& text);
  /// True if every address of `other` is in this prefix (same family).
  bool contains(const Prefix& other) const;
  bool operator==(const Prefix& o) const {
    return family == o.family && bytes == o.bytes && length == o.length;
  }
  bool operator<(const Prefix& o) const;
};

/// A route of this network namespace, as much of it as fencing the host off needs.
struct Route {
  Prefix destination;
  unsigned type = 0; ///< RTN_LOCAL, RTN_UNICAST, ...
  bool via_gateway = false;
};

/// Every IPv4 and IPv6 route of the calling thread's network namespace, all tables (one
/// RTM_GETROUTE dump over a NETLINK_ROUTE socket; no privilege needed). Throws ws::Error.
std::vector<Route> routes_of_this_namespace();

/// The RTM_NEWROUTE request (flags: request, ack, create) for an `unreachable` route to
/// `destination` in the main table, with sequence number `seq`: what `ip route add
/// unreachable PREFIX` sends.
std::vector<char> unreachable_route_request(const Prefix& destination, uint32_t seq);

} // namespace ws::network
