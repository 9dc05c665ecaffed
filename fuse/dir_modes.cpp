#include "fuse/dir_modes.hpp"

#include "fuse/overlay_fs.hpp"
#include "fuse/system_error.hpp"

#include <sys/stat.h>
#include <sys/xattr.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace ws::fuse {

bool is_private_xattr(std::string_view name) {
  return name == k_dir_mode_xattr;
}

std::optional<mode_t> set_upper_dir_mode(int fd, mode_t mode, const std::string& path) {
  std::string proc = proc_fd_path(fd);
  mode_t want = mode & 07777;
  if ((want & S_IRWXU) != S_IRWXU) {
    // Open to the owner first: reading or writing a user.* attribute needs that permission.
    // Until the record is written, the daemon's cached mode (Node::shown_mode) still shows
    // the agent's previous one.
    if (::chmod(proc.c_str(), want | S_IRWXU) != 0) {
      throw_errno("chmod", path);
    }
    char text[8];
    int len = std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(want));
    if (::setxattr(proc.c_str(), k_dir_mode_xattr, text, static_cast<size_t>(len), 0) == 0) {
      return want;
    }
    if (errno != ENOTSUP && errno != EOPNOTSUPP) {
      throw_errno("record the mode of", path);
    }
  }
  if (::chmod(proc.c_str(), want) != 0) {
    throw_errno("chmod", path);
  }
  if ((want & S_IRWXU) != S_IRWXU) {
    return std::nullopt; // no user xattrs here: the real mode is the agent's
  }
  if (::removexattr(proc.c_str(), k_dir_mode_xattr) != 0 && errno != ENODATA && errno != ENOTSUP &&
      errno != EOPNOTSUPP) {
    throw_errno("forget the recorded mode of", path);
  }
  return std::nullopt;
}

std::optional<mode_t> recorded_dir_mode(int fd) {
  char text[8] = {};
  ssize_t len = ::getxattr(proc_fd_path(fd).c_str(), k_dir_mode_xattr, text, sizeof text - 1);
  if (len <= 0) {
    return std::nullopt;
  }
  char* end = nullptr;
  unsigned long mode = std::strtoul(text, &end, 8);
  if (end != text + len || mode > 07777) {
    return std::nullopt; // not ours to interpret: the real mode shows
  }
  return static_cast<mode_t>(mode);
}

int OverlayFs::shown_dir_mode(const Node* n) {
  int upper = n->upper_fd.load(std::memory_order_acquire);
  if (upper < 0) {
    return -1; // the real tree's directory shows as it is
  }
  int mode = n->shown_mode.load(std::memory_order_acquire);
  if (mode == Node::k_mode_unread) {
    std::optional<mode_t> recorded = recorded_dir_mode(upper);
    int fresh = recorded ? static_cast<int>(*recorded) : Node::k_mode_real;
    // A chmod that stored its mode meanwhile wins over what was read before it.
    if (n->shown_mode.compare_exchange_strong(mode, fresh, std::memory_order_acq_rel)) {
      mode = fresh;
      if (n->upper_fd.load(std::memory_order_acquire) != upper) {
        // A state edit swapped the upper directory while we read the old one's record.
        n->shown_mode.store(Node::k_mode_unread, std::memory_order_release);
      }
    }
  }
  return mode >= 0 ? mode : -1;
}

void OverlayFs::set_dir_mode(const Node* n, int upper_fd, mode_t mode, const std::string& path) {
  std::optional<mode_t> shown = set_upper_dir_mode(upper_fd, mode, path);
  n->shown_mode.store(shown ? static_cast<int>(*shown) : Node::k_mode_real,
                      std::memory_order_release);
}

} // namespace ws::fuse
