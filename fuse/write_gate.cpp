#include "fuse/write_gate.hpp"

#include "fuse/log.hpp"
#include "fuse/system_error.hpp"

namespace ws::fuse {

WriteGate::Pause::~Pause() {
  m_gate->resume();
}

WriteGate::~WriteGate() {
  // Requests still held (a pause outlived the session) are dropped: the session that would
  // carry their replies is gone.
}

void WriteGate::done() {
  std::lock_guard lock(m_mutex);
  if (--m_running == 0) {
    m_idle.notify_all();
  }
}

std::unique_ptr<WriteGate::Pause> WriteGate::pause(std::chrono::milliseconds wait) {
  std::unique_lock lock(m_mutex);
  ++m_pauses;
  auto pause = std::make_unique<Pause>(*this); // from here on, an exception resumes
  if (!m_idle.wait_for(lock, wait, [&] { return m_running == 0; })) {
    lock.unlock();
    throw SystemError(ETIMEDOUT, "pause writers: changes still running after " +
                                     std::to_string(wait.count()) + " ms");
  }
  return pause;
}

bool WriteGate::paused() const {
  std::lock_guard lock(m_mutex);
  return m_pauses > 0;
}

size_t WriteGate::held() const {
  std::lock_guard lock(m_mutex);
  return m_queue.size();
}

void WriteGate::resume() {
  std::deque<std::function<void()>> queue;
  {
    std::lock_guard lock(m_mutex);
    if (--m_pauses > 0 || m_queue.empty()) {
      return;
    }
    queue.swap(m_queue);
    m_running += static_cast<unsigned>(queue.size()); // a new pause waits for them
  }
  logger().debug("writers resume: {} held request(s)", queue.size());
  for (auto& op : queue) {
    try {
      op(); // replies itself; each op catches its own errors (fuse_adapter.cpp)
    } catch (const std::exception& e) {
      logger().error("held request: {}", e.what());
    }
    done();
  }
}

} // namespace ws::fuse
