#pragma once

#include "fuse/unique_fd.hpp"
#include "src/network/proxy_event.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <thread>

namespace ws::network {

/// Bounds that hold against a hostile client (the agent): a slow one (slowloris), a huge
/// request head, many connections at once, a reader that never reads.
struct ProxyLimits {
  size_t max_connections = 256;             ///< more at once are answered 503 and closed
  size_t buffer = 64 * 1024;                ///< per direction per connection
  std::chrono::milliseconds head{10000};    ///< to send a whole request head
  std::chrono::milliseconds connect{15000}; ///< to resolve and connect upstream
  std::chrono::milliseconds idle{600000};   ///< a tunnel with no byte either way
  std::chrono::milliseconds linger{2000};   ///< to take a refusal before the close
};

/// `--network=allow:` (and `off`): the HTTP proxy the agent's traffic leaves through. Runs in
/// `ws run`, outside the sandbox, on a thread of its own with one epoll loop; its listener
/// lives in the sandbox's network namespace (netns_sockets.hpp). It takes CONNECT host:port
/// (a byte tunnel: TLS passes through untouched) and absolute-form http:// requests
/// (forwarded once, then closed), lets through only the destinations the policy allows by the
/// name the client asked for, resolves names itself (outside), refuses names that resolve to
/// this machine or a private network unless the person mapped them (WS_NETWORK_RESOLVE), and
/// connects to the very address it checked (no second lookup for a DNS rebinding to change).
/// Every request ends in one ProxyEvent given to `sink` (on the proxy's thread). With a
/// `dns` socket (UDP on the sandbox's 127.0.0.1:53, its resolv.conf's nameserver) it answers
/// every lookup "refused" and reports it: only the proxy reaches out, and the summary can
/// say which names the agent tried. Owns the loop's thread and every connection; the
/// destructor stops it and closes them.
class EgressProxy {
public:
  using Sink = std::function<void(const ProxyEvent&)>;
  EgressProxy(fuse::UniqueFd listener, fuse::UniqueFd dns, ProxyPolicy policy, Sink sink,
              ProxyLimits limits = {});
  ~EgressProxy();
  EgressProxy(const EgressProxy&) = delete;
  EgressProxy& operator=(const EgressProxy&) = delete;

  /// The port the agent's HTTP(S)_PROXY names on its own loopback.
  static constexpr uint16_t k_port = 3128;

private:
  class Loop;
  std::unique_ptr<Loop> m_loop;
  std::thread m_thread;
};

} // namespace ws::network
