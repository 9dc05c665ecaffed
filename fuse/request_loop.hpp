#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>

struct fuse_session;
struct fuse_buf;

namespace ws::fuse {

/// Serves a FUSE session with up to `threads` workers, of which one at a time reads /dev/fuse
/// (the reader) and answers what it read itself, so a caller with one request in flight (tar,
/// rm, an editor) meets the same hot thread every time. libfuse's multi-threaded loop parks
/// every worker in read(), and the kernel hands each request to the one that waited longest:
/// a hand-off between threads per request, which cost untar a third of its time here
/// (docs/benchmarks.md). Parallelism comes back two ways:
/// - the reader looks (poll, no wait) for a second request queued behind the one it read; if
///   there is one, it hands the reader role to an idle worker before it answers its own
///   (unless its own is answered at once from memory, e.g. the kernel's GETXATTR of
///   `security.capability` before every write);
/// - one idle worker, the standby, checks every tick whether the reader has spent a whole tick
///   on one request (a copy-up, a slow disk) and then takes the reader role over; the old reader
///   becomes a worker again when its request is done. With no request for a while the standby
///   sleeps until the next one, so an idle view costs no wake-ups.
class RequestLoop {
public:
  RequestLoop(fuse_session* se, unsigned threads);
  RequestLoop(const RequestLoop&) = delete;
  RequestLoop& operator=(const RequestLoop&) = delete;

  /// Serves until the view is unmounted (returns 0) or a signal ends the session (returns 1).
  int run();

private:
  void work(unsigned index);
  /// Reads and answers requests while this worker holds reader role `gen`. A standby that
  /// took the role over may find this worker back in read() once: two readers, for one
  /// request, then this one leaves.
  void serve(fuse_buf& buf, uint64_t gen, std::atomic<bool>& in_receive);
  /// Waits as the standby; true if it took the reader role over from a blocked reader.
  bool stand_by(std::unique_lock<std::mutex>& lock);
  bool another_request_queued() const;
  bool device_gone() const;
  void end(bool unmounted);

  fuse_session* m_se;
  int m_fd;
  unsigned m_threads;

  std::mutex m_mutex;
  std::condition_variable m_idle;    ///< idle workers other than the standby
  std::condition_variable m_standby; ///< the standby's ticks and wake-ups
  std::condition_variable m_done;    ///< run() waits for the end here
  bool m_reader_taken = false;
  bool m_standby_present = false;
  unsigned m_idle_waiting = 0;
  unsigned m_running = 0;
  bool m_stop = false;
  bool m_unmounted = false;

  std::atomic<uint64_t> m_gen{0};    ///< changes whenever the reader role changes hands
  std::atomic<uint64_t> m_served{0}; ///< requests read so far
  std::atomic<uint64_t> m_busy{0};   ///< the request the reader answers inline (its number), or 0
  std::atomic<bool> m_standby_asleep{false};
  /// Per worker: in (or about to enter) read(), where a signal must interrupt it at the end.
  std::unique_ptr<std::atomic<bool>[]> m_in_receive;
};

} // namespace ws::fuse
