#pragma once

#include "src/network/egress_proxy.hpp"
#include "src/network/network_option.hpp"

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace ws::fuse {
class JournalWriter;
}

namespace ws::network {

/// The network of one `ws run` session with `--network=allow:` or `off`: what the agent's
/// environment and resolv.conf say, the proxy and its sockets in the sandbox, and what it
/// saw. Every request is recorded in the workspace's journal (`ws log`: ops "connect",
/// "refuse", "unreachable", "lookup"; the host:port as the path; the session by its pid
/// namespace) and kept for the end-of-session summary. Used from ws run's main thread; the
/// records arrive on the proxy's (guarded by a mutex).
class SessionNetwork {
public:
  /// `resolve`: the person's WS_NETWORK_RESOLVE (may be empty). `journal_db`: the
  /// workspace's journal.
  SessionNetwork(const NetworkChoice& choice, ResolveOverride resolve,
                 std::filesystem::path journal_db);
  ~SessionNetwork();
  SessionNetwork(const SessionNetwork&) = delete;
  SessionNetwork& operator=(const SessionNetwork&) = delete;

  /// HTTPS_PROXY, HTTP_PROXY (and lowercase), NO_PROXY for the agent.
  std::vector<std::pair<std::string, std::string>> environment() const;
  /// The sandbox's resolv.conf: ws's own nameserver on its loopback, which refuses every
  /// lookup and notes the name (only the proxy resolves, outside).
  static constexpr const char* k_resolv_conf = "nameserver 127.0.0.1\noptions attempts:1\n";

  /// Once the sandbox exists (before its agent starts): makes the proxy's sockets in the
  /// network namespace of `sandbox_pid` and starts the proxy; its records name pid namespace
  /// `pidns`. Throws ws::Error if it cannot (the session must then not start).
  void start(pid_t sandbox_pid, uint64_t pidns);
  /// Stops the proxy and commits its records.
  void stop();
  /// The end-of-session lines (without "ws: "), empty when nothing was refused.
  std::vector<std::string> summary() const;
  /// How many requests the proxy let through.
  size_t allowed() const;

private:
  void record(const ProxyEvent& e);

  NetworkChoice m_choice;
  ProxyPolicy m_policy;
  std::filesystem::path m_journal_db;
  uint64_t m_pidns = 0;
  std::unique_ptr<fuse::JournalWriter> m_journal; ///< opened with the first record
  bool m_journal_failed = false;
  std::unique_ptr<EgressProxy> m_proxy;
  mutable std::mutex m_mutex; // guards m_tally, m_recorded, m_journal (until stop)
  EventTally m_tally;
  size_t m_recorded = 0;
};

} // namespace ws::network
