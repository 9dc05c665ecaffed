#include "fuse/lower_watcher.hpp"

#include "fuse/system_error.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

namespace ws::fuse {

namespace {
// What can change what the view shows of a directory's entries. Reads (IN_ACCESS,
// IN_OPEN, IN_CLOSE_NOWRITE) are left out: the daemon's own reads would flood us.
constexpr uint32_t k_mask = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_MODIFY |
                            IN_ATTRIB | IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;
} // namespace

LowerWatcher::LowerWatcher(Handler handler) : m_handler(std::move(handler)) {
  m_inotify = ::inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  if (m_inotify < 0) {
    throw_errno("inotify_init1");
  }
  m_stop = ::eventfd(0, EFD_CLOEXEC);
  m_sync = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (m_stop < 0 || m_sync < 0) {
    int err = errno;
    ::close(m_inotify);
    if (m_stop >= 0) {
      ::close(m_stop);
    }
    errno = err;
    throw_errno("eventfd");
  }
  m_thread = std::thread([this] { run(); });
}

LowerWatcher::~LowerWatcher() {
  uint64_t one = 1;
  (void)!::write(m_stop, &one, sizeof one);
  m_thread.join();
  ::close(m_stop);
  ::close(m_sync);
  ::close(m_inotify);
}

int LowerWatcher::add(int dir_fd) {
  std::string proc = "/proc/self/fd/" + std::to_string(dir_fd);
  return ::inotify_add_watch(m_inotify, proc.c_str(), k_mask);
}

void LowerWatcher::remove(int wd) {
  ::inotify_rm_watch(m_inotify, wd);
}

bool LowerWatcher::sync(int timeout_ms) {
  std::unique_lock lock(m_sync_mutex);
  uint64_t ticket = ++m_sync_asked;
  uint64_t one = 1;
  (void)!::write(m_sync, &one, sizeof one);
  return m_synced.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                           [&] { return m_sync_done >= ticket; });
}

void LowerWatcher::run() {
  alignas(inotify_event) char buf[64 * 1024];
  pollfd fds[3] = {{m_inotify, POLLIN, 0}, {m_stop, POLLIN, 0}, {m_sync, POLLIN, 0}};
  for (;;) {
    if (::poll(fds, 3, -1) < 0) {
      if (errno == EINTR) {
        continue;
      }
      return;
    }
    if (fds[1].revents) {
      return;
    }
    if (fds[2].revents) {
      uint64_t count = 0;
      (void)!::read(m_sync, &count, sizeof count);
      uint64_t asked = 0;
      {
        std::lock_guard lock(m_sync_mutex);
        asked = m_sync_asked;
      }
      drain(buf, sizeof buf); // everything queued before those asked
      {
        std::lock_guard lock(m_sync_mutex);
        m_sync_done = asked;
      }
      m_synced.notify_all();
      continue;
    }
    drain(buf, sizeof buf);
  }
}

void LowerWatcher::drain(char* buf, size_t size) {
  std::vector<Event> events;
  for (;;) {
    ssize_t len = ::read(m_inotify, buf, size);
    if (len <= 0) {
      return; // EAGAIN: nothing more queued
    }
    events.clear();
    bool overflow = false;
    for (char* p = buf; p < buf + len;) {
      auto* e = reinterpret_cast<inotify_event*>(p);
      if (e->mask & IN_Q_OVERFLOW) {
        overflow = true;
      } else {
        events.push_back({e->wd, e->mask, e->len ? std::string_view(e->name) : std::string_view()});
      }
      p += sizeof(inotify_event) + e->len;
    }
    try {
      m_handler(events.data(), events.size(), overflow);
    } catch (...) {
      // An invalidation that fails leaves a cache entry to expire by itself; never stop
      // watching because of it.
    }
  }
}

} // namespace ws::fuse
