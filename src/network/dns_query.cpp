// DNS queries on the sandbox's loopback (dns_query.hpp): read the question, refuse it.
#include "src/network/dns_query.hpp"

#include <cctype>
#include <cstdio>

namespace ws::network {

namespace {
uint16_t u16(std::string_view p, size_t at) {
  return static_cast<uint16_t>(static_cast<uint8_t>(p[at]) << 8 | static_cast<uint8_t>(p[at + 1]));
}
} // namespace

std::optional<DnsQuestion> parse_dns_query(std::string_view p) {
  if (p.size() < 12 || p.size() > 4096) {
    return std::nullopt;
  }
  uint16_t flags = u16(p, 2);
  bool response = flags & 0x8000;
  unsigned opcode = (flags >> 11) & 0xf;
  if (response || opcode != 0 || u16(p, 4) != 1) {
    return std::nullopt;
  }
  DnsQuestion q;
  size_t at = 12;
  size_t total = 0;
  for (;;) {
    if (at >= p.size()) {
      return std::nullopt;
    }
    size_t len = static_cast<uint8_t>(p[at++]);
    if (len == 0) {
      break;
    }
    if (len > 63 || at + len > p.size() || (total += len + 1) > 255) {
      return std::nullopt; // compression (0xc0) is > 63 too: a query has no need of it
    }
    if (!q.name.empty()) {
      q.name += '.';
    }
    for (size_t i = 0; i < len; ++i) {
      auto c = static_cast<unsigned char>(p[at + i]);
      if (std::isalnum(c) || c == '-' || c == '_') {
        q.name += static_cast<char>(std::tolower(c));
      } else {
        char esc[8];
        std::snprintf(esc, sizeof esc, "\\%03u", c);
        q.name += esc;
      }
    }
    at += len;
  }
  if (at + 4 > p.size()) {
    return std::nullopt;
  }
  q.type = u16(p, at);
  q.end = at + 4;
  return q;
}

std::string dns_refused(std::string_view query, const DnsQuestion& question) {
  std::string r(query.substr(0, question.end));
  uint16_t flags = u16(query, 2);
  // QR=1, the query's opcode and RD, RA=0, rcode 5 (REFUSED).
  uint16_t out = static_cast<uint16_t>(0x8000 | (flags & 0x7900) | 5);
  r[2] = static_cast<char>(out >> 8);
  r[3] = static_cast<char>(out & 0xff);
  for (size_t i = 6; i < 12; ++i) {
    r[i] = 0; // no answer, authority or additional records
  }
  return r;
}

} // namespace ws::network
