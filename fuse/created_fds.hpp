#pragma once

#include "fuse/unique_fd.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace ws::fuse {

struct Node;

/// The fd one request reads or writes a file through: opened for it (closed after it), or
/// one CreatedFds keeps (shared: it stays open while any request holds it).
class IoFd {
public:
  IoFd() = default;
  explicit IoFd(UniqueFd own) : m_own(std::move(own)) {}
  explicit IoFd(std::shared_ptr<const UniqueFd> kept) : m_kept(std::move(kept)) {}
  int get() const { return m_kept ? m_kept->get() : m_own.get(); }
  explicit operator bool() const { return get() >= 0; }

private:
  UniqueFd m_own;
  std::shared_ptr<const UniqueFd> m_kept;
};

/// The fds that created the view's newest files, kept for the requests that follow. With
/// stateless opens the kernel never sends RELEASE, not even for a CREATE's handle, so a
/// handle would leak an fd per file: the view keeps no handle, and keeps these few fds here
/// instead, at most `k_max`, the oldest closed first. What a creator does next (tar, a
/// compiler, npm: write the content, set the mode and times) then goes through the fd it
/// created instead of opening the file again by name for every request. (A file created
/// with a mode that forbids its owner, as git writes its objects 0444, stays open to the
/// daemon in upper/, its mode recorded: fuse/upper_modes.hpp; only where no user xattrs are
/// kept does a daemon that is not root depend on the fd that created it.) Thread-safe;
/// m_mutex is a leaf lock: nothing else is taken while it is held.
class CreatedFds {
public:
  static constexpr size_t k_max = 256;
  using Fd = std::shared_ptr<const UniqueFd>;

  /// Keeps `fd` (opened with access mode `accmode`) as `n`'s.
  void put(const Node* n, UniqueFd fd, int accmode);
  /// `n`'s fd if one is kept and its access mode allows `accmode`, else null. Costs an
  /// atomic load when nothing is kept.
  Fd find(const Node* n, int accmode) const;
  /// `n`'s fd whatever its access mode (null if none), and that mode.
  std::pair<Fd, int> find_any(const Node* n) const;
  /// Forgets `n` (it is freed: its address may be reused; or its object changed).
  void erase(const Node* n);
  size_t size() const { return m_count.load(std::memory_order_acquire); }

private:
  struct Kept {
    Fd fd;
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
