#include "fuse/invalidation_queue.hpp"

namespace ws::fuse {

InvalidationQueue::InvalidationQueue(EntryFn entry, InodeFn inode)
    : m_entry(std::move(entry)), m_inode(std::move(inode)), m_thread([this] { run(); }) {}

InvalidationQueue::~InvalidationQueue() {
  {
    std::lock_guard lock(m_mutex);
    m_stop = true;
  }
  m_wake.notify_one();
  m_thread.join();
}

void InvalidationQueue::entry(uint64_t parent, std::string name) {
  {
    std::lock_guard lock(m_mutex);
    m_queue.push_back(Item{parent, std::move(name), false});
  }
  m_wake.notify_one();
}

void InvalidationQueue::inode(uint64_t ino) {
  {
    std::lock_guard lock(m_mutex);
    m_queue.push_back(Item{ino, {}, true});
  }
  m_wake.notify_one();
}

void InvalidationQueue::run() {
  std::unique_lock lock(m_mutex);
  for (;;) {
    m_wake.wait(lock, [&] { return m_stop || !m_queue.empty(); });
    if (m_stop) {
      return;
    }
    Item item = std::move(m_queue.front());
    m_queue.pop_front();
    lock.unlock();
    // Blocks until the request that holds the directory or the pages (a RENAME waiting for
    // its reply, a write held by a writer pause) has let go.
    if (item.inode) {
      if (m_inode) {
        m_inode(item.id);
      }
    } else {
      m_entry(item.id, item.name);
    }
    lock.lock();
  }
}

} // namespace ws::fuse
