// The request loop: one reader of /dev/fuse at a time, answering inline (see request_loop.hpp).
#include "fuse/request_loop.hpp"

#include <fuse_lowlevel.h>

#include <linux/fuse.h>
#include <poll.h>
#include <signal.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

namespace ws::fuse {

namespace {

/// How long one request may hold the reader before the standby takes over, and how often the
/// standby looks.
constexpr auto k_tick = std::chrono::milliseconds(2);
/// Ticks without a request after which the standby sleeps until the next request.
constexpr unsigned k_idle_ticks = 25;

/// Requests answered at once, from memory: no reason to hand the reader role over for them
/// (which costs a poll() per request to find out, and a thread switch when it happens).
/// GETXATTR is mostly the kernel's `security.capability` before every write (the adapter
/// answers it without a lookup); the rest only free what the kernel let go of.
bool answered_at_once(const fuse_buf& buf) {
  if ((buf.flags & FUSE_BUF_IS_FD) || buf.size < sizeof(fuse_in_header)) {
    return false;
  }
  switch (static_cast<const fuse_in_header*>(buf.mem)->opcode) {
  case FUSE_GETXATTR:
  case FUSE_FORGET:
  case FUSE_BATCH_FORGET:
  case FUSE_INTERRUPT:
  case FUSE_FLUSH:
  case FUSE_RELEASE:
  case FUSE_RELEASEDIR:
    return true;
  default:
    return false;
  }
}

/// Interrupts the reader's read() of /dev/fuse when a signal ended the session on another
/// thread: a handler that does nothing, installed without SA_RESTART, for the life of the loop.
int wake_signal() {
  return SIGRTMIN;
}

void ignore_signal(int) {}

class WakeHandler {
public:
  WakeHandler() {
    struct sigaction sa {};
    sa.sa_handler = ignore_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; // no SA_RESTART: read() returns EINTR
    m_installed = ::sigaction(wake_signal(), &sa, &m_old) == 0;
  }
  ~WakeHandler() {
    if (m_installed) {
      ::sigaction(wake_signal(), &m_old, nullptr);
    }
  }
  WakeHandler(const WakeHandler&) = delete;
  WakeHandler& operator=(const WakeHandler&) = delete;

private:
  struct sigaction m_old {};
  bool m_installed = false;
};

} // namespace

RequestLoop::RequestLoop(fuse_session* se, unsigned threads)
    : m_se(se), m_fd(fuse_session_fd(se)), m_threads(threads == 0 ? 1 : threads) {}

int RequestLoop::run() {
  WakeHandler wake;
  std::vector<std::thread> workers;
  m_in_receive = std::make_unique<std::atomic<bool>[]>(m_threads);
  {
    std::lock_guard lock(m_mutex);
    m_running = m_threads;
  }
  for (unsigned i = 0; i < m_threads; ++i) {
    workers.emplace_back([this, i] { work(i); });
  }
  {
    std::unique_lock lock(m_mutex);
    while (m_running > 0) {
      // A signal (SIGTERM, SIGINT, SIGHUP) runs libfuse's handler on whichever thread it
      // reaches; it marks the session exited, which this thread sees at its next look.
      if (!m_stop && fuse_session_exited(m_se)) {
        m_stop = true;
        m_idle.notify_all();
        m_standby.notify_all();
      }
      for (unsigned i = 0; m_stop && i < m_threads; ++i) {
        if (m_in_receive[i].load()) { // blocked in read(): make it look
          ::pthread_kill(workers[i].native_handle(), wake_signal());
        }
      }
      m_done.wait_for(lock, std::chrono::milliseconds(m_stop ? 5 : 50));
    }
  }
  for (auto& w : workers) {
    w.join();
  }
  return m_unmounted ? 0 : 1;
}

void RequestLoop::work(unsigned index) {
  fuse_buf buf{};
  std::unique_lock lock(m_mutex);
  while (!m_stop) {
    bool reader = false;
    if (!m_reader_taken) {
      reader = true;
    } else if (!m_standby_present) {
      reader = stand_by(lock);
    } else {
      ++m_idle_waiting;
      m_idle.wait(lock);
      --m_idle_waiting;
    }
    if (reader && !m_stop) {
      m_reader_taken = true;
      uint64_t gen = m_gen.fetch_add(1) + 1;
      lock.unlock();
      serve(buf, gen, m_in_receive[index]);
      lock.lock();
    }
  }
  std::free(buf.mem);
  --m_running;
  m_done.notify_all();
}

void RequestLoop::serve(fuse_buf& buf, uint64_t gen, std::atomic<bool>& in_receive) {
  for (;;) {
    in_receive.store(true);
    int res = fuse_session_exited(m_se) ? 0 : fuse_session_receive_buf(m_se, &buf);
    in_receive.store(false);
    if (fuse_session_exited(m_se) || (res <= 0 && res != -EINTR)) {
      // The view was unmounted (ENODEV: libfuse marks the session exited and returns 0), a
      // signal marked it exited, or the device failed: each ends the session.
      end(device_gone());
      return;
    }
    if (res == -EINTR) {
      continue;
    }
    uint64_t number = m_served.fetch_add(1) + 1;
    if (m_standby_asleep.exchange(false)) {
      std::lock_guard lock(m_mutex);
      m_standby.notify_one(); // busy again: the standby watches for blocked requests
    }
    if (m_threads > 1 && !answered_at_once(buf) && another_request_queued()) {
      {
        std::lock_guard lock(m_mutex);
        if (m_gen.load() == gen) { // still the reader: let an idle worker read the next one
          m_reader_taken = false;
          if (m_idle_waiting > 0) {
            m_idle.notify_one();
          } else {
            m_standby.notify_one();
          }
        }
      }
      fuse_session_process_buf(m_se, &buf);
      return;
    }
    m_busy.store(number);
    fuse_session_process_buf(m_se, &buf);
    m_busy.compare_exchange_strong(number, 0); // unless a reader that took over set its own
    if (m_gen.load() != gen) {
      return; // the standby took over while this request blocked
    }
  }
}

bool RequestLoop::stand_by(std::unique_lock<std::mutex>& lock) {
  m_standby_present = true;
  uint64_t last_busy = 0;
  uint64_t last_served = m_served.load();
  unsigned idle_ticks = 0;
  bool took_over = false;
  while (!m_stop && m_reader_taken && !took_over) {
    if (idle_ticks >= k_idle_ticks) { // the view is idle: sleep until the next request
      m_standby_asleep.store(true);
      if (m_served.load() == last_served) { // pairs with the reader's count, then exchange
        m_standby.wait(lock);
      }
      m_standby_asleep.store(false);
      idle_ticks = 0;
      last_busy = 0;
      last_served = m_served.load();
      continue;
    }
    m_standby.wait_for(lock, k_tick);
    uint64_t busy = m_busy.load();
    if (busy != 0 && busy == last_busy && m_reader_taken) {
      took_over = true; // one request held the reader a whole tick
      break;
    }
    last_busy = busy;
    uint64_t served = m_served.load();
    idle_ticks = busy == 0 && served == last_served ? idle_ticks + 1 : 0;
    last_served = served;
  }
  m_standby_present = false;
  if (took_over && m_idle_waiting > 0) {
    m_idle.notify_one(); // someone else stands by now
  }
  return took_over || (!m_stop && !m_reader_taken);
}

bool RequestLoop::another_request_queued() const {
  pollfd p{m_fd, POLLIN, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & POLLIN) != 0;
}

bool RequestLoop::device_gone() const {
  pollfd p{m_fd, POLLIN, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & POLLERR) != 0; // the kernel's end of the view
}

void RequestLoop::end(bool unmounted) {
  std::lock_guard lock(m_mutex);
  if (!m_stop) {
    m_unmounted = unmounted;
  }
  m_stop = true;
  m_reader_taken = false;
  m_idle.notify_all();
  m_standby.notify_all();
  m_done.notify_all();
}

} // namespace ws::fuse
