// Where the proxy may connect (destination.hpp).
#include "src/network/destination.hpp"

#include "src/cli/error.hpp"
#include "src/network/allowlist.hpp"

#include <cstring>

#include <arpa/inet.h>
#include <netinet/in.h>

namespace ws::network {

namespace {

std::string ipv4_kind(uint32_t a) { // host byte order
  auto in = [a](uint32_t net, int bits) {
    uint32_t mask = bits == 0 ? 0 : ~uint32_t{0} << (32 - bits);
    return (a & mask) == net;
  };
  if (in(0x00000000, 8)) {
    return "unspecified";
  }
  if (in(0x7f000000, 8)) {
    return "loopback";
  }
  if (in(0x0a000000, 8) || in(0xac100000, 12) || in(0xc0a80000, 16)) {
    return "private";
  }
  if (in(0xa9fe0000, 16)) {
    return "link-local";
  }
  if (in(0x64400000, 10)) {
    return "shared (CGNAT)";
  }
  if (in(0xe0000000, 4)) {
    return "multicast";
  }
  // 240/4 and the broadcast address. (Documentation and benchmarking ranges are left
  // alone: some networks hand them out for real hosts, e.g. fake-IP DNS in 198.18/15.)
  if (in(0xf0000000, 4)) {
    return "reserved";
  }
  return "";
}

} // namespace

std::string Address::text() const {
  char buf[INET6_ADDRSTRLEN] = {};
  if (storage.ss_family == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&storage)->sin_addr, buf,
                sizeof buf);
  } else if (storage.ss_family == AF_INET6) {
    ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&storage)->sin6_addr, buf,
                sizeof buf);
  }
  return buf;
}

Address address_of(const std::string& ip, uint16_t port) {
  Address a;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&a.storage);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&a.storage);
  if (::inet_pton(AF_INET, ip.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    a.length = sizeof(sockaddr_in);
  } else if (::inet_pton(AF_INET6, ip.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    a.length = sizeof(sockaddr_in6);
  }
  return a;
}

std::string non_public_kind(const Address& a) {
  if (a.storage.ss_family == AF_INET) {
    return ipv4_kind(ntohl(reinterpret_cast<const sockaddr_in*>(&a.storage)->sin_addr.s_addr));
  }
  if (a.storage.ss_family != AF_INET6) {
    return "reserved";
  }
  const uint8_t* b = reinterpret_cast<const sockaddr_in6*>(&a.storage)->sin6_addr.s6_addr;
  auto v4_at = [b](int at) {
    return static_cast<uint32_t>(b[at]) << 24 | static_cast<uint32_t>(b[at + 1]) << 16 |
           static_cast<uint32_t>(b[at + 2]) << 8 | b[at + 3];
  };
  static const uint8_t zero[16] = {};
  if (std::memcmp(b, zero, 15) == 0 && (b[15] == 0 || b[15] == 1)) {
    return b[15] == 0 ? "unspecified" : "loopback";
  }
  static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  static const uint8_t nat64[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
  if (std::memcmp(b, mapped, 12) == 0 || std::memcmp(b, zero, 12) == 0 ||
      std::memcmp(b, nat64, 12) == 0) {
    std::string k = ipv4_kind(v4_at(12));
    return k.empty() && std::memcmp(b, zero, 12) == 0 ? "reserved" : k;
  }
  if (b[0] == 0x20 && b[1] == 0x02) { // 6to4: 2002:AABB:CCDD::/48
    return ipv4_kind(v4_at(2));
  }
  if ((b[0] & 0xfe) == 0xfc) {
    return "private"; // unique local fc00::/7
  }
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) {
    return "link-local";
  }
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0) {
    return "private"; // site-local (deprecated)
  }
  if (b[0] == 0xff) {
    return "multicast";
  }
  return "";
}

ResolveOverride ResolveOverride::parse(const std::string& text) {
  ResolveOverride o;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find_first_of(", ", start);
    if (end == std::string::npos) {
      end = text.size();
    }
    std::string entry = text.substr(start, end - start);
    start = end + 1;
    if (entry.empty()) {
      continue;
    }
    size_t eq = entry.find('=');
    std::optional<Target> name =
        eq == std::string::npos ? std::nullopt : parse_authority(entry.substr(0, eq), uint16_t{0});
    std::string ip = eq == std::string::npos ? "" : entry.substr(eq + 1);
    if (ip.size() > 2 && ip.front() == '[' && ip.back() == ']') {
      ip = ip.substr(1, ip.size() - 2);
    }
    Address a = address_of(ip, 0);
    if (!name || name->is_ip || name->port != 0 || a.length == 0) {
      throw Error("WS_NETWORK_RESOLVE: '" + entry + "' is not NAME=ADDRESS",
                  "write it as api.example.test=127.0.0.1 (several: comma-separated)");
    }
    o.m_map[name->host].push_back(a.text());
  }
  return o;
}

std::vector<Address> ResolveOverride::lookup(const std::string& name, uint16_t port) const {
  std::vector<Address> out;
  if (auto it = m_map.find(name); it != m_map.end()) {
    for (const auto& ip : it->second) {
      out.push_back(address_of(ip, port));
    }
  }
  return out;
}

} // namespace ws::network
