#pragma once

#include "fuse/unique_fd.hpp"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

namespace ws::fuse {

struct Node;
class DirFds;

/// One layer's directory of a Node (its upper directory, or the lower one it merges), and the
/// O_PATH fd on it when the daemon holds one. The daemon holds fds for a bounded set of
/// directories only (DirFds): a tree of 25,000 directories the kernel knows must not need
/// 25,000 fds (the hard limit is 20,000 here). An evicted fd is opened again on demand, by
/// the directory's current path below the nearest ancestor still holding one (docs/filesystem.md,
/// "What the daemon holds open").
///
/// Readers need no lock of their own, but must hold OverlayFs::m_tree (shared) or m_table:
/// eviction runs under both, exclusively, so an fd read here stays open until the reader
/// lets go of the lock.
class DirFd {
public:
  DirFd(Node* owner, bool lower) : m_owner(owner), m_lower(lower) {}
  DirFd(const DirFd&) = delete;
  DirFd& operator=(const DirFd&) = delete;
  ~DirFd();

  /// The fd, opened again if it was evicted; -1 if the node has no such directory (or it
  /// vanished while evicted). Throws SystemError when it cannot be opened again otherwise.
  int get() const {
    int fd = m_fd.load(std::memory_order_acquire);
    if (fd >= 0) {
      if (!m_used.load(std::memory_order_relaxed)) {
        m_used.store(true, std::memory_order_relaxed); // second chance at the next trim
      }
      return fd;
    }
    return fd == k_none ? -1 : reopen();
  }
  /// The node has this directory (whether or not an fd is held now); costs no syscall.
  bool exists() const { return m_fd.load(std::memory_order_acquire) != k_none; }
  bool is_open() const { return m_fd.load(std::memory_order_acquire) >= 0; }
  /// Takes `fd` (-1: none) as the node's directory, which had none or was evicted.
  void set(int fd);
  void set(UniqueFd&& fd) { set(fd.release()); }
  /// Gives up the directory: returns the fd held (to retire, a reader may hold it), or -1.
  int take();
  /// Never evicted from now on: the root; a directory whose fd does not follow from its
  /// ancestors' (the real git directory's objects, guards); one that lost its name. Opens it
  /// again first if it was evicted.
  void fix();
  bool fixed() const { return m_fixed.load(std::memory_order_acquire); }
  /// Evictable again (a directory pinned before a removal that failed).
  void unfix();

private:
  friend class DirFds;
  static constexpr int k_none = -1;
  static constexpr int k_evicted = -2;
  int reopen() const; // opening again is no change of what the node stands for

  Node* m_owner;
  bool m_lower;
  mutable std::atomic<int> m_fd{k_none};
  mutable std::atomic<bool> m_used{false};
  std::atomic<bool> m_fixed{false};
};

/// The daemon's RLIMIT_NOFILE (soft).
uint64_t process_fd_limit();

/// The set of directory fds the daemon holds, bounded: an intrusive list (clock order) of the
/// nodes holding one, and a thread that trims it back when it grows past `high`. The trim
/// needs every reader gone (DirFd): `lock_out_readers` takes OverlayFs's locks exclusively
/// and calls back. Its mutex is a leaf (after m_table).
class DirFds {
public:
  /// Bounded by a quarter of `fd_limit` (the daemon's RLIMIT_NOFILE), at most 8,192: the
  /// rest is for sqlite, the journal, files being written, the kernel's own requests.
  explicit DirFds(uint64_t fd_limit);
  ~DirFds();
  DirFds(const DirFds&) = delete;
  DirFds& operator=(const DirFds&) = delete;

  /// Starts the trimming thread; `lock_out_readers(trim)` must call `trim` with every
  /// reader of a DirFd locked out. Stopped by the destructor.
  void start(std::function<void(const std::function<void()>&)> lock_out_readers);
  /// Stops the trimming thread (before the nodes go).
  void stop();
  /// Node `n` is freed: it leaves the list.
  void forget(Node* n);
  /// How many fds the set holds, and its bound.
  int64_t held() const { return m_held.load(); }
  int64_t high() const { return m_high; }
  /// Closes fds of nodes not used since the last trim until `low` remain (the caller has
  /// locked every reader out).
  void trim_locked();

private:
  friend class DirFd;
  /// `n` holds an fd now (counted unless `counts` is false): listed, and a trim asked for
  /// if the set outgrew its bound.
  void opened(Node* n, bool counts = true);
  void closed() { m_held.fetch_sub(1); }
  void unlink_locked(Node* n);
  void push_back_locked(Node* n);

  int64_t m_high;
  int64_t m_low;
  std::atomic<int64_t> m_held{0};
  std::mutex m_mutex; ///< the list; a leaf
  Node* m_head = nullptr;
  Node* m_tail = nullptr;

  std::mutex m_wake_mutex;
  std::condition_variable m_wake;
  bool m_stop = false;
  bool m_wanted = false;
  std::atomic<bool> m_requested{false}; ///< a trim is asked for and not yet done
  std::function<void(const std::function<void()>&)> m_lock_out;
  std::thread m_thread;
};

} // namespace ws::fuse
