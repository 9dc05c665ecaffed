#include "fuse/invalidation_queue.hpp"

namespace ws::fuse {

InvalidationQueue::InvalidationQueue(EntryFn entry)
    : m_entry(std::move(entry)), m_thread([this] { run(); }) {}

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
    m_queue.emplace_back(parent, std::move(name));
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
    auto [parent, name] = std::move(m_queue.front());
    m_queue.pop_front();
    lock.unlock();
    m_entry(parent, name); // blocks until the rename that queued it has let go of the directory
    lock.lock();
  }
}

} // namespace ws::fuse
