#pragma once

#include "fuse/unique_fd.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace ws::fuse {

struct Node;

/// The fds of files created with a mode that forbids the daemon to open them again (a
/// daemon that is not root; git writes its objects as 0444 through the fd that created
/// them). With stateless opens the kernel never sends RELEASE, not even for a CREATE's
/// handle, so a handle would leak an fd per file: the view keeps no handle, and keeps these
/// few fds here instead, at most `k_max`, the oldest closed first (a later write then opens
/// the file itself, see OverlayFs::open_despite_mode_locked). Thread-safe; m_mutex is a
/// leaf lock: nothing else is taken while it is held.
class CreatedFds {
public:
  static constexpr size_t k_max = 256;

  /// Keeps `fd` (opened with access mode `accmode`) as `n`'s.
  void put(const Node* n, UniqueFd fd, int accmode);
  /// A duplicate of `n`'s fd if one is kept and its access mode allows `accmode`; else
  /// an invalid fd. Costs an atomic load when nothing is kept.
  UniqueFd dup(const Node* n, int accmode) const;
  /// Forgets `n` (it is freed: its address may be reused).
  void erase(const Node* n);
  size_t size() const { return m_count.load(std::memory_order_acquire); }

private:
  struct Kept {
    UniqueFd fd;
    int accmode = 0;
    uint64_t seq = 0;
  };
  void update_count_locked() { m_count.store(m_fds.size(), std::memory_order_release); }

  mutable std::mutex m_mutex;
  std::unordered_map<const Node*, Kept> m_fds;          ///< m_mutex
  std::deque<std::pair<const Node*, uint64_t>> m_order; ///< m_mutex: oldest first
  uint64_t m_seq = 0;                                   ///< m_mutex
  std::atomic<size_t> m_count{0};
};

} // namespace ws::fuse
