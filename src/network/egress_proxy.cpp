// The egress proxy (egress_proxy.hpp): its loop runs on a thread of its own (proxy_loop.hpp).
#include "src/network/egress_proxy.hpp"

#include "src/network/proxy_loop.hpp"

#include <signal.h>

namespace ws::network {

EgressProxy::EgressProxy(fuse::UniqueFd listener, fuse::UniqueFd dns, ProxyPolicy policy, Sink sink,
                         ProxyLimits limits)
    : m_loop(std::make_unique<Loop>(std::move(listener), std::move(dns), std::move(policy),
                                    std::move(sink), limits)) {
  // No signal is the loop's to take: ws run reads its own from a signalfd.
  sigset_t all, old;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &old);
  m_thread = std::thread([this] { m_loop->run(); });
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

EgressProxy::~EgressProxy() {
  m_loop->stop();
  m_thread.join();
}

} // namespace ws::network
