#pragma once

#include "src/network/allowlist.hpp"
#include "src/network/destination.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ws::network {

/// How a request to the proxy (or a name lookup on the sandbox's loopback) ended.
enum class Outcome {
  Allowed,       ///< connected to the listed destination
  NotListed,     ///< the allowlist names no such host
  PortNotListed, ///< the allowlist names the host, for other ports
  IpLiteral,     ///< an IP address the allowlist does not name
  NonPublic,     ///< a listed name resolved to this machine's or a private network's address
  NetworkOff,    ///< --network=off: the proxy refuses everything, and says so
  BadRequest,    ///< not a request ws passes (malformed, Host mismatch, too large, too slow)
  TooMany,       ///< more connections at once than the proxy takes
  Unreachable,   ///< allowed, but the name did not resolve or the connection failed
  DirectLookup,  ///< the agent looked a name up itself instead of asking the proxy
};

/// What the proxy tells the policy of the session: for messages and hints.
struct ProxyPolicy {
  bool off = false; ///< --network=off: refuse everything
  Allowlist allow;
  ResolveOverride resolve; ///< the person's WS_NETWORK_RESOLVE
};

/// One request the proxy answered: the journal records each, the summary groups them.
struct ProxyEvent {
  Outcome outcome = Outcome::Allowed;
  std::string host; ///< as the client asked (lowercased), "" when it named none
  uint16_t port = 0;
  std::string method; ///< "CONNECT", "GET", ...; "DNS" for a lookup
  std::string detail; ///< Allowed: the address connected to; otherwise why, in words
  /// "host:port" ("[v6]:port"; the host alone for a lookup; "?" when there is none).
  std::string target() const;
  bool refused() const { return outcome != Outcome::Allowed && outcome != Outcome::Unreachable; }
};

/// The journal's word for an outcome (`ws log`'s op column): "connect", "refuse",
/// "unreachable", "lookup".
const char* journal_op(Outcome outcome);

/// Why `outcome` happened to `host:port`, in words (the detail of a refusal).
std::string refusal_reason(Outcome outcome, const ProxyPolicy& policy);

/// The `--network=` flag that would let `host:port` through, or "" if no flag would (a bad
/// request, a non-public address).
std::string allowing_flag(const std::string& host, uint16_t port, const ProxyPolicy& policy);

/// The events of a session grouped by what happened where, in the order first seen, with a
/// count each. Bounded: an agent looping over refused hosts costs a count, not memory (past
/// k_max_groups distinct groups, further new ones are only counted in `others`).
class EventTally {
public:
  struct Group {
    ProxyEvent first;
    size_t count = 0;
  };
  static constexpr size_t k_max_groups = 1000;
  void add(const ProxyEvent& e);
  const std::vector<Group>& groups() const { return m_groups; }
  size_t allowed() const { return m_allowed; }
  size_t others() const { return m_others; }

private:
  std::vector<Group> m_groups;
  std::map<std::string, size_t> m_index; ///< group key -> position in m_groups
  size_t m_allowed = 0;
  size_t m_others = 0;
};

/// The end-of-session lines about the network: refused destinations grouped by host with a
/// count, each with its reason and the flag that would allow it; lookups the agent made
/// itself. Empty when nothing was refused. At most `max_hosts` hosts, then "... and N more".
std::vector<std::string> network_summary(const EventTally& tally, const ProxyPolicy& policy,
                                         size_t max_hosts = 8);

} // namespace ws::network
