// What --network=on fences off: chosen from the host's routes (host_fence.hpp).
#include "src/network/host_fence.hpp"

#include <doctest/doctest.h>

#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace ws::network;

namespace {

Route route(const std::string& prefix, unsigned type, bool via_gateway = false) {
  Route r;
  r.destination = Prefix::parse(prefix);
  REQUIRE(r.destination.family != 0);
  r.type = type;
  r.via_gateway = via_gateway;
  return r;
}

std::vector<std::string> texts(const std::vector<Prefix>& prefixes) {
  std::vector<std::string> out;
  for (const auto& p : prefixes) {
    out.push_back(p.text());
  }
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

} // namespace

TEST_CASE("host fence: the host's addresses, its links and link-local, not the internet") {
  // A laptop on a LAN with docker: what `ip route show table all` lists.
  std::vector<Route> routes = {
      route("0.0.0.0/0", RTN_UNICAST, true),         // default via 192.168.1.1
      route("192.168.1.0/24", RTN_UNICAST),          // the LAN
      route("172.17.0.0/16", RTN_UNICAST),           // docker0
      route("10.20.0.0/16", RTN_UNICAST, true),      // an office network via a router
      route("192.168.1.23/32", RTN_LOCAL),           // its address
      route("172.17.0.1/32", RTN_LOCAL),             // docker0's
      route("192.168.1.255/32", RTN_BROADCAST),      // the LAN's broadcast
      route("127.0.0.0/8", RTN_LOCAL),               // loopback: the sandbox's own
      route("127.0.0.1/32", RTN_LOCAL),              //
      route("127.255.255.255/32", RTN_BROADCAST),    //
      route("2001:db8:1::/64", RTN_UNICAST),         // its IPv6 LAN
      route("::/0", RTN_UNICAST, true),              // IPv6 default
      route("2001:db8:1::23/128", RTN_LOCAL),        // its IPv6 address
      route("2001:db8:1::/128", RTN_ANYCAST),        // subnet-router anycast: the host too
      route("fe80::/64", RTN_UNICAST),               // its link-local network: skipped
      route("fe80::1c:2ff:fe03:405/128", RTN_LOCAL), // its link-local address: kept
      route("::1/128", RTN_LOCAL),                   // loopback
      route("ff00::/8", RTN_MULTICAST),              // multicast
      route("192.168.1.23/32", RTN_LOCAL),           // the same again (another table)
  };
  std::vector<std::string> fence = texts(host_destinations(routes));
  INFO(fence.size());
  CHECK(has(fence, "192.168.1.23/32"));
  CHECK(has(fence, "192.168.1.0/24"));
  CHECK(has(fence, "172.17.0.0/16"));
  CHECK(has(fence, "172.17.0.1/32"));
  CHECK(has(fence, "192.168.1.255/32"));
  CHECK(has(fence, "169.254.0.0/16")); // the cloud metadata service
  CHECK(has(fence, "2001:db8:1::/64"));
  CHECK(has(fence, "2001:db8:1::23/128"));
  CHECK(has(fence, "2001:db8:1::/128"));
  CHECK(has(fence, "fe80::1c:2ff:fe03:405/128"));
  CHECK_FALSE(has(fence, "0.0.0.0/0"));
  CHECK_FALSE(has(fence, "::/0"));
  CHECK_FALSE(has(fence, "10.20.0.0/16")); // through a gateway: as the internet
  CHECK_FALSE(has(fence, "fe80::/64"));
  CHECK_FALSE(has(fence, "ff00::/8"));
  for (const auto& p : fence) {
    CHECK_MESSAGE(p.rfind("127.", 0) != 0, p);
    CHECK_MESSAGE(p != "::1/128", p);
  }
  CHECK(std::count(fence.begin(), fence.end(), "192.168.1.23/32") == 1);
  CHECK(fence.size() == 10);
}

TEST_CASE("host fence: a tunnel's default route is the internet, not the host") {
  std::vector<Route> routes = {
      route("0.0.0.0/1", RTN_UNICAST),   // wg-quick's halves of a default route
      route("128.0.0.0/1", RTN_UNICAST), //
      route("::/1", RTN_UNICAST),        //
      route("0.0.0.0/0", RTN_UNICAST),   // default dev ppp0
      route("10.8.0.0/24", RTN_UNICAST), // the tunnel's own network
      route("10.8.0.5/32", RTN_LOCAL),
  };
  std::vector<std::string> fence = texts(host_destinations(routes));
  CHECK(fence == std::vector<std::string>{"10.8.0.0/24", "10.8.0.5/32", "169.254.0.0/16"});
}

TEST_CASE("host fence: a host inside slirp4netns's own network keeps the sandbox's link") {
  // A VM on QEMU's user network is 10.0.2.15/24, the very network slirp4netns gives the
  // sandbox: a route for the network, the gateway or the DNS address would cut it off.
  std::vector<Route> routes = {
      route("10.0.2.0/24", RTN_UNICAST),     route("10.0.2.15/32", RTN_LOCAL),
      route("10.0.2.255/32", RTN_BROADCAST), route("10.0.2.2/32", RTN_LOCAL),
      route("10.0.2.3/32", RTN_LOCAL),       route("10.0.2.100/32", RTN_LOCAL),
      route("10.0.2.0/25", RTN_UNICAST),     route("10.0.0.0/8", RTN_UNICAST),
  };
  std::vector<std::string> fence = texts(host_destinations(routes));
  // 10.0.0.0/8 is less specific than the sandbox's 10.0.2.0/24, which still wins.
  CHECK(fence ==
        std::vector<std::string>{"10.0.0.0/8", "10.0.2.15/32", "10.0.2.255/32", "169.254.0.0/16"});
}

TEST_CASE("host fence: prefixes") {
  Prefix lan = Prefix::parse("192.168.1.0/23");
  CHECK(lan.contains(Prefix::host("192.168.1.7")));
  CHECK(lan.contains(Prefix::host("192.168.0.7")));
  CHECK_FALSE(lan.contains(Prefix::host("192.168.2.7")));
  CHECK_FALSE(lan.contains(Prefix::host("fd00::1")));
  CHECK(Prefix::host("fd00::2").text() == "fd00::2/128");
  CHECK(Prefix::host("not an address").family == 0);
  CHECK(Prefix::parse("10.0.0.0/33").family == 0);
  CHECK(Prefix::parse("10.0.0.0/").family == 0);
  CHECK(Prefix::parse("fd00::/8").text() == "fd00::/8");
  std::vector<char> request = unreachable_route_request(Prefix::host("192.0.2.7"), 3);
  CHECK(request.size() == 36); // header 16, rtmsg 12, RTA_DST 8
}
