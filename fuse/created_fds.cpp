#include "fuse/created_fds.hpp"

#include <fcntl.h>

namespace ws::fuse {

namespace {
bool allows(int kept, int wanted) {
  return kept == O_RDWR || kept == wanted;
}
} // namespace

void CreatedFds::put(const Node* n, UniqueFd fd, int accmode) {
  auto shared = std::make_shared<const UniqueFd>(std::move(fd));
  Fd closing; // the fd pushed out, closed once the lock is released
  std::lock_guard lock(m_mutex);
  uint64_t seq = ++m_seq;
  m_fds[n] = Kept{std::move(shared), accmode, seq};
  m_order.emplace_back(n, seq);
  while (m_fds.size() > k_max && !m_order.empty()) {
    auto [oldest, oseq] = m_order.front();
    m_order.pop_front();
    auto it = m_fds.find(oldest);
    if (it != m_fds.end() && it->second.seq == oseq) {
      closing = std::move(it->second.fd);
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

CreatedFds::Fd CreatedFds::find(const Node* n, int accmode) const {
  auto [fd, kept_mode] = find_any(n);
  return fd && allows(kept_mode, accmode) ? fd : nullptr;
}

std::pair<CreatedFds::Fd, int> CreatedFds::find_any(const Node* n) const {
  if (m_count.load(std::memory_order_acquire) == 0) {
    return {};
  }
  std::lock_guard lock(m_mutex);
  auto it = m_fds.find(n);
  if (it == m_fds.end()) {
    return {};
  }
  return {it->second.fd, it->second.accmode};
}

void CreatedFds::erase(const Node* n) {
  if (m_count.load(std::memory_order_acquire) == 0) {
    return;
  }
  Fd closing;
  std::lock_guard lock(m_mutex);
  if (auto it = m_fds.find(n); it != m_fds.end()) {
    closing = std::move(it->second.fd);
    m_fds.erase(it);
  }
  update_count_locked();
}

} // namespace ws::fuse
