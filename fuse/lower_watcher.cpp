#include "fuse/lower_watcher.hpp"

#include "fuse/system_error.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

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
  if (m_stop < 0) {
    ::close(m_inotify);
    throw_errno("eventfd");
  }
  m_thread = std::thread([this] { run(); });
}

LowerWatcher::~LowerWatcher() {
  uint64_t one = 1;
  (void)!::write(m_stop, &one, sizeof one);
  m_thread.join();
  ::close(m_stop);
  ::close(m_inotify);
}

int LowerWatcher::add(int dir_fd) {
  std::string proc = "/proc/self/fd/" + std::to_string(dir_fd);
  return ::inotify_add_watch(m_inotify, proc.c_str(), k_mask);
}

void LowerWatcher::remove(int wd) {
  ::inotify_rm_watch(m_inotify, wd);
}

void LowerWatcher::run() {
  alignas(inotify_event) char buf[64 * 1024];
  std::vector<Event> events;
  pollfd fds[2] = {{m_inotify, POLLIN, 0}, {m_stop, POLLIN, 0}};
  for (;;) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) {
        continue;
      }
      return;
    }
    if (fds[1].revents) {
      return;
    }
    ssize_t len = ::read(m_inotify, buf, sizeof buf);
    if (len <= 0) {
      continue;
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
