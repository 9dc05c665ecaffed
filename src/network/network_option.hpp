#pragma once

#include "src/network/allowlist.hpp"

#include <string>

namespace ws::network {

/// What `--network=` asks for (docs/run.md, "What the agent can reach").
enum class NetworkMode {
  On,    ///< slirp4netns: a private namespace with a full outside route
  Off,   ///< a private loopback; the proxy refuses everything and says so
  Allow, ///< a private loopback; out only through the proxy, to the listed hosts
  Host,  ///< the host's own network namespace (explicit, loud)
};

struct NetworkChoice {
  NetworkMode mode = NetworkMode::On;
  Allowlist allow; ///< Allow: the listed destinations
  /// The option as the person would write it ("--network=allow:a.com,*.b.com").
  std::string flag() const;
  /// Whether the agent's traffic goes through ws's proxy (Allow and Off).
  bool proxied() const { return mode == NetworkMode::Allow || mode == NetworkMode::Off; }
};

/// Parses `on` (or "": not given), `off`, `host` or `allow:ENTRY,...` (allowlist.hpp).
/// Throws ws::Error naming what is wrong, with a hint.
NetworkChoice parse_network_option(const std::string& value);

} // namespace ws::network
