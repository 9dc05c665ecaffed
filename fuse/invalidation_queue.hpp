#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

namespace ws::fuse {

/// Tells the kernel to drop cached entries from a thread of its own, for request handlers
/// that must not do it themselves: while a RENAME waits for its reply the kernel holds the
/// directories' locks, which dropping an entry of theirs takes (a deadlock if the handler did
/// it). Owns its thread; entries still queued at destruction are dropped (the view is going
/// away). Thread-safe.
class InvalidationQueue {
public:
  using EntryFn = std::function<void(uint64_t parent, std::string_view name)>;
  using InodeFn = std::function<void(uint64_t ino)>;
  explicit InvalidationQueue(EntryFn entry, InodeFn inode = {});
  ~InvalidationQueue();
  InvalidationQueue(const InvalidationQueue&) = delete;
  InvalidationQueue& operator=(const InvalidationQueue&) = delete;

  void entry(uint64_t parent, std::string name);
  /// Drops an inode's cached attributes and pages (needs `inode` given at construction).
  void inode(uint64_t ino);

private:
  void run();

  EntryFn m_entry;
  InodeFn m_inode;
  std::mutex m_mutex; ///< guards m_queue, m_stop; taken after every OverlayFs lock
  std::condition_variable m_wake;
  struct Item {
    uint64_t id; ///< parent (entry) or the inode itself
    std::string name;
    bool inode;
  };
  std::deque<Item> m_queue;
  bool m_stop = false;
  std::thread m_thread;
};

} // namespace ws::fuse
