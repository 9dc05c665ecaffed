#include "fuse/created_fds.hpp"

#include <fcntl.h>

namespace ws::fuse {

namespace {
bool allows(int kept, int wanted) {
  return kept == O_RDWR || kept == wanted;
}
} // namespace

void CreatedFds::put(const Node* n, UniqueFd fd, int accmode) {
  std::lock_guard lock(m_mutex);
  uint64_t seq = ++m_seq;
  m_fds[n] = Kept{std::move(fd), accmode, seq};
  m_order.emplace_back(n, seq);
  while (m_fds.size() > k_max && !m_order.empty()) {
    auto [oldest, oseq] = m_order.front();
    m_order.pop_front();
    auto it = m_fds.find(oldest);
    if (it != m_fds.end() && it->second.seq == oseq) {
      m_fds.erase(it);
    }
  }
  // Entries erased before they aged out stay in m_order: drop them once they dominate.
  if (m_order.size() > 2 * k_max) {
    std::deque<std::pair<const Node*, uint64_t>> live;
    for (auto& [node, s] : m_order) {
      auto it = m_fds.find(node);
      if (it != m_fds.end() && it->second.seq == s) {
        live.emplace_back(node, s);
      }
    }
    m_order = std::move(live);
  }
  update_count_locked();
}

UniqueFd CreatedFds::dup(const Node* n, int accmode) const {
  if (m_count.load(std::memory_order_acquire) == 0) {
    return {};
  }
  std::lock_guard lock(m_mutex);
  auto it = m_fds.find(n);
  if (it == m_fds.end() || !allows(it->second.accmode, accmode)) {
    return {};
  }
  return UniqueFd(::fcntl(it->second.fd.get(), F_DUPFD_CLOEXEC, 0));
}

void CreatedFds::erase(const Node* n) {
  if (m_count.load(std::memory_order_acquire) == 0) {
    return;
  }
  std::lock_guard lock(m_mutex);
  m_fds.erase(n);
  update_count_locked();
}

} // namespace ws::fuse
