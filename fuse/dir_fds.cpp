// The bounded set of directory fds: evicted by a clock sweep, opened again by path.
#include "fuse/dir_fds.hpp"

#include "fuse/log.hpp"
#include "fuse/overlay_fs.hpp"
#include "fuse/system_error.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <vector>

namespace ws::fuse {

namespace {

/// Past this, a reopen first reopens an ancestor halfway (PATH_MAX is 4,096).
constexpr size_t k_max_relative = 2048;

DirFd& layer_of(Node* n, bool lower) {
  return lower ? n->lower_fd : n->upper_fd;
}

/// `rel` below `base`, as a directory, never through a symlink or out of `base`: the path
/// is the node's current one, made of names the view itself resolved.
int open_beneath(int base, const std::string& rel) {
  open_how how{};
  how.flags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  return static_cast<int>(::syscall(SYS_openat2, base, rel.c_str(), &how, sizeof how));
}

} // namespace

DirFd::~DirFd() {
  int fd = m_fd.load();
  if (fd >= 0) {
    ::close(fd);
    m_owner->dir_fds->closed();
  }
}

void DirFd::set(int fd) {
  m_used.store(true, std::memory_order_relaxed);
  m_fd.store(fd >= 0 ? fd : k_none, std::memory_order_release);
  if (fd >= 0) {
    m_owner->dir_fds->opened(m_owner);
  }
}

int DirFd::take() {
  int old = m_fd.exchange(k_none);
  if (old >= 0) {
    m_owner->dir_fds->closed();
    return old;
  }
  return -1;
}

void DirFd::fix() {
  (void)get();
  m_fixed.store(true, std::memory_order_release);
}

void DirFd::unfix() {
  if (m_fixed.exchange(false) && is_open()) {
    m_owner->dir_fds->opened(m_owner, false); // back in the list
  }
}

int DirFd::reopen() const {
  // Walk up to the nearest ancestor holding an fd on this layer (the root always does),
  // collecting the names in between: the node's path now, whatever renames happened.
  std::vector<const std::string*> names;
  size_t length = 0;
  int base = -1;
  for (Node* p = m_owner;;) {
    if (p->unlinked.load() || !p->parent) {
      break; // no name to be found by (a detached directory is fixed while it has an fd)
    }
    names.push_back(&p->name);
    length += p->name.size() + 1;
    p = p->parent;
    DirFd& up = layer_of(p, m_lower);
    int fd = up.m_fd.load(std::memory_order_acquire);
    if (fd == k_none) {
      break; // cannot be: a directory of a layer is in its parent's directory of that layer
    }
    if (fd >= 0 || length > k_max_relative) {
      base = up.get();
      break;
    }
  }
  int fd = -1;
  if (base >= 0) {
    std::string rel;
    for (auto it = names.rbegin(); it != names.rend(); ++it) {
      if (!rel.empty()) {
        rel += '/';
      }
      rel += **it;
    }
    fd = open_beneath(base, rel);
    if (fd < 0 && errno != ENOENT && errno != ENOTDIR && errno != ELOOP && errno != EXDEV) {
      throw_errno("reopen directory", rel);
    }
  }
  int expected = k_evicted;
  if (m_fd.compare_exchange_strong(expected, fd >= 0 ? fd : k_none, std::memory_order_acq_rel)) {
    if (fd >= 0) {
      m_used.store(true, std::memory_order_relaxed);
      if (!m_lower) {
        m_owner->shown_mode.store(Node::k_mode_unread); // a state edit may have replaced it
      }
      m_owner->dir_fds->opened(m_owner);
      return fd;
    }
    // Gone while evicted (the person removed a real-tree directory): as if it had none.
    SPDLOG_LOGGER_DEBUG(&logger(), "reopen({}) -> gone", m_owner->name);
    return -1;
  }
  if (fd >= 0) {
    ::close(fd); // another request opened it first
  }
  return expected >= 0 ? expected : -1;
}

uint64_t process_fd_limit() {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) {
    return 1024;
  }
  return lim.rlim_cur;
}

DirFds::DirFds(uint64_t fd_limit)
    : m_high(static_cast<int64_t>(std::clamp<uint64_t>(fd_limit / 4, 64, 8192))),
      m_low(m_high * 3 / 4) {}

DirFds::~DirFds() {
  stop();
}

void DirFds::start(std::function<void(const std::function<void()>&)> lock_out_readers) {
  m_lock_out = std::move(lock_out_readers);
  m_thread = std::thread([this] {
    std::unique_lock lock(m_wake_mutex);
    while (true) {
      m_wake.wait(lock, [this] { return m_stop || m_wanted; });
      if (m_stop) {
        return;
      }
      m_wanted = false;
      lock.unlock();
      m_lock_out([this] { trim_locked(); });
      m_requested.store(false);
      lock.lock();
    }
  });
}

void DirFds::stop() {
  {
    std::lock_guard lock(m_wake_mutex);
    m_stop = true;
  }
  m_wake.notify_all();
  if (m_thread.joinable()) {
    m_thread.join();
  }
}

void DirFds::opened(Node* n, bool counts) {
  int64_t held = counts ? m_held.fetch_add(1) + 1 : m_held.load();
  {
    std::lock_guard lock(m_mutex);
    if (!n->fd_listed) {
      push_back_locked(n);
    }
  }
  if (held > m_high && !m_requested.exchange(true)) {
    {
      std::lock_guard lock(m_wake_mutex);
      m_wanted = true;
    }
    m_wake.notify_one();
  }
}

void DirFds::forget(Node* n) {
  std::lock_guard lock(m_mutex);
  if (n->fd_listed) {
    unlink_locked(n);
  }
}

void DirFds::push_back_locked(Node* n) {
  n->fd_prev = m_tail;
  n->fd_next = nullptr;
  (m_tail ? m_tail->fd_next : m_head) = n;
  m_tail = n;
  n->fd_listed = true;
}

void DirFds::unlink_locked(Node* n) {
  (n->fd_prev ? n->fd_prev->fd_next : m_head) = n->fd_next;
  (n->fd_next ? n->fd_next->fd_prev : m_tail) = n->fd_prev;
  n->fd_prev = n->fd_next = nullptr;
  n->fd_listed = false;
}

void DirFds::trim_locked() {
  std::lock_guard lock(m_mutex);
  int64_t start = m_held.load();
  int64_t closed_now = 0;
  // Clock order: a node used since the last sweep goes to the back once (second chance).
  size_t budget = 0;
  for (Node* n = m_head; n; n = n->fd_next) {
    ++budget;
  }
  budget *= 2;
  while (m_head && m_held.load() > m_low && budget-- > 0) {
    Node* n = m_head;
    unlink_locked(n);
    if (n->upper_fd.fixed() || n->lower_fd.fixed() ||
        (!n->upper_fd.is_open() && !n->lower_fd.is_open())) {
      continue; // never evicted, or holds nothing: listed again when it opens one
    }
    bool used_upper = n->upper_fd.m_used.exchange(false); // both cleared: no short circuit
    bool used_lower = n->lower_fd.m_used.exchange(false);
    bool used = used_upper || used_lower;
    if (used) {
      push_back_locked(n);
      continue;
    }
    for (DirFd* d : {&n->upper_fd, &n->lower_fd}) {
      int fd = d->m_fd.load();
      if (fd >= 0) {
        d->m_fd.store(DirFd::k_evicted, std::memory_order_release);
        ::close(fd);
        closed();
        ++closed_now;
      }
    }
  }
  logger().debug("directory fds: {} held, {} closed, {} now (bound {})", start, closed_now,
                 m_held.load(), m_high);
}

} // namespace ws::fuse
