#pragma once
// The egress proxy's loop (egress_proxy.hpp), shared by its parts: proxy_loop.cpp (the loop:
// accepting, DNS, deadlines), proxy_request.cpp (a request: its head, the decision, the
// lookup and the connection upstream, refusals) and proxy_relay.cpp (bytes both ways, and
// what each connection waits for). Internal to src/network.
#include "src/network/byte_queue.hpp"
#include "src/network/egress_proxy.hpp"
#include "src/network/http_request.hpp"
#include "src/network/resolver.hpp"

#include <sys/epoll.h>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ws::network::detail {
using Clock = std::chrono::steady_clock;

// epoll data: the fixed sockets, then 2*id (client) and 2*id+1 (upstream) of connections.
inline constexpr uint64_t k_stop = 1, k_listener = 2, k_resolver = 3, k_dns = 4, k_first_id = 8;

inline constexpr uint32_t k_unregistered = ~0u;

enum class Phase {
  Head,       ///< reading the request head
  Resolving,  ///< waiting for the resolver
  Connecting, ///< non-blocking connect to addresses[next - 1]
  Relay,      ///< bytes both ways
  Closing,    ///< an answer to the client, then its close
};

struct Connection {
  uint64_t id = 0;
  fuse::UniqueFd client, upstream;
  uint32_t client_events = k_unregistered, upstream_events = k_unregistered;
  Phase phase = Phase::Head;
  Clock::time_point deadline;
  std::string head; ///< Head: what came so far (at most k_max_head)
  ProxyRequest request;
  std::string method;
  std::vector<Address> addresses;
  size_t next = 0;
  std::optional<ByteQueue> up, down; ///< Relay: to upstream, to the client
  std::string answer;                ///< Closing: what the client still gets
  bool answered = false;             ///< Closing: the answer is out, draining until EOF
  bool client_eof = false;           ///< the client sent all it will
  bool body_done = false;            ///< Forward: the request's body is complete; more is dropped
  bool upstream_eof = false;         ///< upstream sent all it will
  bool upstream_shut = false, client_shut = false; ///< our FIN went out
  bool upstream_hup = false; ///< upstream is closed both ways: only reading what is left
  size_t drained = 0;        ///< Closing: bytes read and dropped
};

/// A complete HTTP answer from the proxy itself: `status`, then `message` as plain text.
std::string answer_text(int status, const std::string& message);

} // namespace ws::network::detail

namespace ws::network {

/// The loop itself: owns the listener, the DNS socket, epoll, the resolver and every
/// connection; touched only by the proxy's thread (stop() excepted: it writes an eventfd).
class EgressProxy::Loop {
public:
  using Connection = detail::Connection;
  using Clock = detail::Clock;

  Loop(fuse::UniqueFd listener, fuse::UniqueFd dns, ProxyPolicy policy, Sink sink,
       ProxyLimits limits);
  /// From any thread: the loop ends at its next round.
  void stop();
  void run();

private:
  void add(int fd, uint64_t key, uint32_t events);
  /// Registers `fd` for `events` (or changes its registration) only when they change.
  void watch(int fd, uint64_t key, uint32_t& registered, uint32_t events);

  void accept_clients();
  void answer_dns();
  void on_client(Connection& c, uint32_t events);
  void on_upstream(Connection& c, uint32_t events);
  void on_resolved(Resolver::Result& r);
  void read_head(Connection& c);
  void decide(Connection& c);
  void connect_next(Connection& c, const std::string& last_error);
  void connected(Connection& c);
  void relay_client(Connection& c, uint32_t events);
  void relay_upstream(Connection& c, uint32_t events);
  void refuse(Connection& c, Outcome outcome, int status, const std::string& why);
  void report(const Connection& c, Outcome outcome, const std::string& detail);
  void update(Connection& c);
  void close(uint64_t id);
  void expire();

  fuse::UniqueFd m_listener, m_dns, m_epoll, m_stop;
  ProxyPolicy m_policy;
  Sink m_sink;
  ProxyLimits m_limits;
  Resolver m_resolver;
  std::unordered_map<uint64_t, std::unique_ptr<Connection>> m_connections;
  uint64_t m_next_id = detail::k_first_id;
  std::vector<uint64_t> m_closing;                    ///< closed at the end of the current round
  std::map<std::string, Clock::time_point> m_lookups; ///< DNS: last report per name
  bool m_running = true;
  bool m_accept_paused = false; ///< the listener is out of epoll until m_accept_again
  Clock::time_point m_accept_again;
};

} // namespace ws::network
