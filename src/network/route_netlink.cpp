// Routes over a NETLINK_ROUTE socket (route_netlink.hpp).
#include "src/network/route_netlink.hpp"

#include "src/cli/error.hpp"
#include "src/network/netlink_dump.hpp"

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cstdlib>
#include <cstring>

#include <arpa/inet.h>

namespace ws::network {

namespace {

size_t address_size(int family) {
  return family == AF_INET ? 4 : 16;
}

Error dump_error(const std::string& what, int err) {
  return Error("cannot read this machine's routes (to keep the sandbox off its addresses): " +
                   what + ": " + std::strerror(err),
               "use --network=allow:HOST,... or --network=off");
}

/// The route in `h` (an RTM_NEWROUTE message), appended to `out` if of `family`.
void add_route(const nlmsghdr& h, int family, std::vector<Route>& out) {
  const auto* rt = static_cast<const rtmsg*>(NLMSG_DATA(&h));
  if (rt->rtm_family != family) {
    return;
  }
  Route r;
  r.destination.family = family;
  r.destination.length = rt->rtm_dst_len;
  r.type = rt->rtm_type;
  int attributes = static_cast<int>(RTM_PAYLOAD(&h));
  for (const auto* a = RTM_RTA(rt); RTA_OK(a, attributes); a = RTA_NEXT(a, attributes)) {
    if (a->rta_type == RTA_DST && RTA_PAYLOAD(a) == address_size(family)) {
      std::memcpy(r.destination.bytes.data(), RTA_DATA(a), address_size(family));
    } else if (a->rta_type == RTA_GATEWAY || a->rta_type == RTA_VIA ||
               a->rta_type == RTA_MULTIPATH) {
      r.via_gateway = true;
    }
  }
  out.push_back(r);
}

/// One family's routes, all tables, appended to `out`.
void dump_family(int family, std::vector<Route>& out) {
  struct {
    nlmsghdr header;
    rtmsg route;
  } request{};
  request.header.nlmsg_len = NLMSG_LENGTH(sizeof(rtmsg));
  request.header.nlmsg_type = RTM_GETROUTE;
  request.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  request.header.nlmsg_seq = 1;
  request.route.rtm_family = static_cast<unsigned char>(family);
  auto failed = netlink_dump(NETLINK_ROUTE, "RTM_GETROUTE", &request, request.header.nlmsg_len,
                             [&](const nlmsghdr& h) {
                               if (h.nlmsg_type == RTM_NEWROUTE) {
                                 add_route(h, family, out);
                               }
                               return true;
                             });
  if (failed) {
    throw dump_error(failed->step, failed->error);
  }
}

} // namespace

std::string Prefix::text() const {
  char buf[INET6_ADDRSTRLEN] = {};
  ::inet_ntop(family == AF_INET ? AF_INET : AF_INET6, bytes.data(), buf, sizeof buf);
  return std::string(buf) + "/" + std::to_string(length);
}

Prefix Prefix::host(const std::string& ip) {
  Prefix p;
  if (::inet_pton(AF_INET, ip.c_str(), p.bytes.data()) == 1) {
    p.family = AF_INET;
    p.length = 32;
  } else if (::inet_pton(AF_INET6, ip.c_str(), p.bytes.data()) == 1) {
    p.family = AF_INET6;
    p.length = 128;
  } else {
    p.bytes = {};
  }
  return p;
}

Prefix Prefix::parse(const std::string& text) {
  size_t slash = text.find('/');
  Prefix p = host(text.substr(0, slash));
  if (p.family == 0 || slash == std::string::npos) {
    return p;
  }
  char* end = nullptr;
  long length = std::strtol(text.c_str() + slash + 1, &end, 10);
  if (*end != '\0' || end == text.c_str() + slash + 1 || length < 0 || length > p.length) {
    return Prefix{};
  }
  p.length = static_cast<int>(length);
  return p;
}

bool Prefix::contains(const Prefix& other) const {
  if (family != other.family || other.length < length) {
    return false;
  }
  int whole = length / 8, bits = length % 8;
  if (std::memcmp(bytes.data(), other.bytes.data(), static_cast<size_t>(whole)) != 0) {
    return false;
  }
  if (bits == 0) {
    return true;
  }
  auto mask = static_cast<uint8_t>(0xff << (8 - bits));
  return (bytes[static_cast<size_t>(whole)] & mask) ==
         (other.bytes[static_cast<size_t>(whole)] & mask);
}

bool Prefix::operator<(const Prefix& o) const {
  if (family != o.family) {
    return family < o.family;
  }
  if (bytes != o.bytes) {
    return bytes < o.bytes;
  }
  return length < o.length;
}

std::vector<Route> routes_of_this_namespace() {
  std::vector<Route> out;
  dump_family(AF_INET, out);
  dump_family(AF_INET6, out);
  return out;
}

std::vector<char> unreachable_route_request(const Prefix& destination, uint32_t seq) {
  size_t size = address_size(destination.family);
  std::vector<char> message(NLMSG_SPACE(sizeof(rtmsg)) + RTA_SPACE(size));
  auto* h = reinterpret_cast<nlmsghdr*>(message.data());
  h->nlmsg_len = static_cast<uint32_t>(message.size());
  h->nlmsg_type = RTM_NEWROUTE;
  h->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE;
  h->nlmsg_seq = seq;
  auto* rt = static_cast<rtmsg*>(NLMSG_DATA(h));
  rt->rtm_family = static_cast<unsigned char>(destination.family);
  rt->rtm_dst_len = static_cast<unsigned char>(destination.length);
  rt->rtm_table = RT_TABLE_MAIN;
  rt->rtm_protocol = RTPROT_STATIC;
  rt->rtm_scope = RT_SCOPE_UNIVERSE;
  rt->rtm_type = RTN_UNREACHABLE;
  auto* a = reinterpret_cast<rtattr*>(message.data() + NLMSG_SPACE(sizeof(rtmsg)));
  a->rta_type = RTA_DST;
  a->rta_len = static_cast<unsigned short>(RTA_LENGTH(size));
  std::memcpy(RTA_DATA(a), destination.bytes.data(), size);
  return message;
}

} // namespace ws::network
