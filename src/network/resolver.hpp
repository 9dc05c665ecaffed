#pragma once

#include "src/network/destination.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ws::network {

/// Looks names up (getaddrinfo, the host's resolver) on worker threads (started with the first
/// lookup), so the proxy's loop never waits on DNS. Owns its threads' shared state: the threads are
/// detached and hold it, so destroying a Resolver never waits for a lookup in flight (a dead DNS
/// server must not hold `ws run` at its end); they exit after their current lookup. Used from one
/// thread.
class Resolver {
public:
  explicit Resolver(unsigned threads = 4);
  ~Resolver();
  Resolver(const Resolver&) = delete;
  Resolver& operator=(const Resolver&) = delete;

  /// Queues a lookup of `name` (TCP addresses, with `port`). Its result comes back with `id`.
  void lookup(uint64_t id, const std::string& name, uint16_t port);

  struct Result {
    uint64_t id = 0;
    std::vector<Address> addresses;
    std::string error; ///< gai_strerror's words when there is no address
  };
  /// Readable when results are ready.
  int notify_fd() const;
  /// Takes every result ready so far.
  std::vector<Result> take();

  struct State; ///< shared with the worker threads (resolver.cpp)

private:
  std::shared_ptr<State> m_state;
  unsigned m_threads;
  bool m_started = false;
};

} // namespace ws::network
