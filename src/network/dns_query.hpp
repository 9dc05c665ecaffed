#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ws::network {

/// The question of a DNS query (RFC 1035 section 4.1), as a resolver inside the sandbox
/// sends it to the nameserver its resolv.conf names (ws's own, on its loopback).
struct DnsQuestion {
  std::string name;  ///< lowercase, dot-separated, no trailing dot; bytes outside LDH escaped
  uint16_t type = 0; ///< 1 A, 28 AAAA, ...
  size_t end = 0;    ///< where the question ends in the packet
};

/// Parses a standard query with one question (no compression in it); nullopt for anything
/// else (a response, another opcode, a malformed or truncated packet). Pure.
std::optional<DnsQuestion> parse_dns_query(std::string_view packet);

/// The answer "REFUSED" (rcode 5) to `query`, its question echoed: the agent's resolver
/// fails at once instead of waiting for a timeout. Pure.
std::string dns_refused(std::string_view query, const DnsQuestion& question);

} // namespace ws::network
