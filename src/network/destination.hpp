#pragma once

#include <sys/socket.h>

#include <map>
#include <string>
#include <vector>

namespace ws::network {

/// One address to connect to (IPv4 or IPv6, with the port).
struct Address {
  sockaddr_storage storage{};
  socklen_t length = 0;
  const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&storage); }
  /// "203.0.113.7" or "2001:db8::1" (no port).
  std::string text() const;
};

/// The address for IP literal `ip` (canonical text, IPv6 without brackets) and `port`;
/// length 0 if `ip` is not one.
Address address_of(const std::string& ip, uint16_t port);

/// What kind of address outside the public internet `a` is ("loopback", "private",
/// "link-local", "unspecified", "multicast", "reserved", "shared (CGNAT)"), or "" if it is a
/// public one. IPv4 in IPv6 (mapped, compatible, NAT64, 6to4) is judged by its IPv4 address.
/// A name the agent asks for that resolves to one of these is refused (the host's own
/// services, the LAN, the cloud metadata service at 169.254.169.254), unless the person
/// mapped the name on purpose (ResolveOverride). Pure.
std::string non_public_kind(const Address& a);

/// The person's own name-to-address map for the proxy (`WS_NETWORK_RESOLVE`, like curl's
/// --resolve): "NAME=ADDR[,NAME=ADDR...]" (an ADDR per entry; a name may repeat). The agent
/// cannot set it: the proxy runs outside the sandbox, in the person's `ws run`. Names mapped
/// here may resolve to loopback or private addresses: the person said so.
class ResolveOverride {
public:
  /// Throws ws::Error naming the bad entry.
  static ResolveOverride parse(const std::string& text);
  /// The addresses mapped to `name` (lowercase), with `port`; empty if none.
  std::vector<Address> lookup(const std::string& name, uint16_t port) const;
  bool empty() const { return m_map.empty(); }

private:
  std::map<std::string, std::vector<std::string>> m_map; ///< name -> canonical IPs
};

} // namespace ws::network
