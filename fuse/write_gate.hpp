#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>

namespace ws::fuse {

/// Lets `ws apply` read a consistent snapshot of the workspace: while a pause is held, every
/// request that changes the view (write, create, mknod, mkdir, unlink, rmdir, rename, link,
/// symlink, setattr, setxattr, removexattr, fallocate, an open for writing) is held back and
/// runs once the last pause ends; reads, lookups and everything else go on.
///
/// A held request does not keep a FUSE worker: it is queued with copies of its arguments
/// (write data too), and the worker goes back to serve reads. With 4 workers, a writer per
/// worker would otherwise stop every read of the view for the whole pause. The queue is run
/// in arrival order by the thread that ends the last pause.
///
/// Threads: FUSE workers call run(); the control socket's pause threads call pause() and
/// end pauses. m_mutex is a leaf: taken before no other lock (docs/locking.md), and never
/// held while an operation runs.
class WriteGate {
public:
  /// Ends its pause on destruction (running the requests held meanwhile if it was the last).
  class Pause {
  public:
    explicit Pause(WriteGate& gate) : m_gate(&gate) {}
    ~Pause();
    Pause(const Pause&) = delete;
    Pause& operator=(const Pause&) = delete;

  private:
    WriteGate* m_gate;
  };

  WriteGate() = default;
  ~WriteGate();
  WriteGate(const WriteGate&) = delete;
  WriteGate& operator=(const WriteGate&) = delete;

  /// Runs `now()` at once, or, while writers are paused, queues `later()` (called under the
  /// gate's lock: it only copies the request's arguments into the operation it returns,
  /// which must own them and reply to the request exactly once).
  template <class Now, class Later> void run(Now&& now, Later&& later) {
    {
      std::lock_guard lock(m_mutex);
      if (m_pauses > 0) {
        m_queue.push_back(later());
        return;
      }
      ++m_running;
    }
    Running running{*this};
    now();
  }
  /// Holds new changing requests back and waits until those already running are done.
  /// Throws SystemError(ETIMEDOUT) (ending the pause) if they are not within `wait`.
  std::unique_ptr<Pause> pause(std::chrono::milliseconds wait);
  bool paused() const;
  size_t held() const;

private:
  struct Running {
    WriteGate& gate;
    ~Running() { gate.done(); }
  };
  void resume();
  void done();

  mutable std::mutex m_mutex;
  std::condition_variable m_idle;            ///< m_running reached 0
  unsigned m_pauses = 0;                     ///< m_mutex: pauses held
  unsigned m_running = 0;                    ///< m_mutex: changing requests running
  std::deque<std::function<void()>> m_queue; ///< m_mutex: held back, in arrival order
};

} // namespace ws::fuse
