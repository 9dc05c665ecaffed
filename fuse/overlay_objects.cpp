// Reaching a node's object: the directory holding it, opening it, its attributes, and
// pinning what is about to lose its name.
#include "fuse/overlay_fs.hpp"
#include "fuse/system_error.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ws::fuse {

int OverlayFs::object_dir_locked(const Node* n) const {
  return n->on_upper.load(std::memory_order_acquire) ? n->parent->upper_fd.get()
                                                     : n->parent->lower_fd.get();
}

UniqueFd OverlayFs::open_object_locked(const Node* n, int flags) const {
  UniqueFd fd;
  if (n->is_dir()) {
    // O_PATH: a copy of the node's own O_PATH fd. Opening "." through it would need search
    // permission on the directory, which its owner may have taken away: `chmod 000 d` then
    // `chmod 755 d` must work for a daemon that is not root, as on ext4.
    fd = UniqueFd((flags & O_PATH) ? ::fcntl(n->dir_fd(), F_DUPFD_CLOEXEC, 0)
                                   : ::openat(n->dir_fd(), ".", (flags & ~O_NOFOLLOW) | O_CLOEXEC));
  } else if (int pinned = n->pinned_fd.load(); pinned >= 0) {
    fd = UniqueFd((flags & O_PATH) ? ::fcntl(pinned, F_DUPFD_CLOEXEC, 0)
                                   : ::open(proc_fd_path(pinned).c_str(), flags | O_CLOEXEC));
  } else {
    fd = UniqueFd(::openat(object_dir_locked(n), n->name.c_str(), flags | O_NOFOLLOW | O_CLOEXEC));
  }
  if (!fd) {
    throw_errno("open", n->name);
  }
  return fd;
}

struct stat OverlayFs::stat_object_locked(const Node* n) const {
  struct stat st {};
  int rc;
  if (n->is_dir()) {
    rc = ::fstat(n->dir_fd(), &st);
  } else if (int pinned = n->pinned_fd.load(); pinned >= 0) {
    rc = ::fstat(pinned, &st);
  } else {
    rc = ::fstatat(object_dir_locked(n), n->name.c_str(), &st, AT_SYMLINK_NOFOLLOW);
  }
  if (rc != 0) {
    throw_errno("stat", n->name);
  }
  return st;
}

void OverlayFs::pin_locked(Node* n) {
  if (n->is_dir()) {
    // Nameless, it could not be opened again by path: a process standing in it (its cwd)
    // still stats it and lists it (empty), as on ext4.
    n->upper_fd.fix();
    n->lower_fd.fix();
    return;
  }
  if (n->pinned_fd.load() >= 0) {
    return;
  }
  int fd = ::openat(object_dir_locked(n), n->name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    n->pinned_fd.store(fd, std::memory_order_release);
  }
}

void OverlayFs::unpin_dir(Node* n) {
  if (n->is_dir()) {
    n->upper_fd.unfix();
    n->lower_fd.unfix();
  }
}

void OverlayFs::unpin_child_dir(Node* parent, std::string_view name) {
  std::lock_guard table(m_table);
  if (auto it = parent->children.find(std::string(name)); it != parent->children.end()) {
    unpin_dir(it->second);
  }
}

} // namespace ws::fuse
