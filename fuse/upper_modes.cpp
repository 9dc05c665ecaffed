#include "fuse/upper_modes.hpp"

#include "fuse/overlay_fs.hpp"
#include "fuse/system_error.hpp"

#include <sys/stat.h>
#include <sys/xattr.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace ws::fuse {

bool is_private_xattr(std::string_view name) {
  return name == k_mode_xattr;
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
    if (::setxattr(proc.c_str(), k_mode_xattr, text, static_cast<size_t>(len), 0) == 0) {
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
  if (::removexattr(proc.c_str(), k_mode_xattr) != 0 && errno != ENODATA && errno != ENOTSUP &&
      errno != EOPNOTSUPP) {
    throw_errno("forget the recorded mode of", path);
  }
  return std::nullopt;
}

namespace {
std::optional<mode_t> parse_record(const char* text, ssize_t len) {
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
} // namespace

std::optional<mode_t> recorded_mode(int fd) {
  char text[8] = {};
  // (getxattr, not lgetxattr: /proc/self/fd/N is a link to the object itself.)
  ssize_t len = ::getxattr(proc_fd_path(fd).c_str(), k_mode_xattr, text, sizeof text - 1);
  return parse_record(text, len);
}

std::optional<mode_t> recorded_mode_at(int dir_fd, const std::string& name) {
  char text[8] = {};
  std::string path = proc_fd_path(dir_fd) + "/" + name;
  ssize_t len = ::lgetxattr(path.c_str(), k_mode_xattr, text, sizeof text - 1);
  return parse_record(text, len);
}

void set_upper_file_mode(int fd, bool o_path, mode_t mode, const std::string& path) {
  mode_t want = mode & 07777;
  std::string proc = o_path ? proc_fd_path(fd) : std::string();
  auto change = [&](mode_t m) {
    if ((o_path ? ::chmod(proc.c_str(), m) : ::fchmod(fd, m)) != 0) {
      throw_errno("chmod", path);
    }
  };
  if (!file_mode_needs_record(want)) {
    change(want); // the common case: one call, as on any filesystem
    if ((want & S_ISVTX) != 0) {
      // The agent's own sticky bit is the mark: no record may be left to misread.
      int rc =
          o_path ? ::removexattr(proc.c_str(), k_mode_xattr) : ::fremovexattr(fd, k_mode_xattr);
      if (rc != 0 && errno != ENODATA && errno != ENOTSUP && errno != EOPNOTSUPP) {
        throw_errno("forget the recorded mode of", path);
      }
    }
    return; // a record left by an earlier mode is unmarked now: never read
  }
  char text[8];
  int len = std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(want));
  auto record = [&] {
    return o_path ? ::setxattr(proc.c_str(), k_mode_xattr, text, static_cast<size_t>(len), 0)
                  : ::fsetxattr(fd, k_mode_xattr, text, static_cast<size_t>(len), 0);
  };
  // The record first, then the mark that makes getattr read it: no moment shows a mark
  // without its record. Writing a user.* attribute needs the owner's write permission,
  // which a file created with mode 0 (or one an older ws left closed) lacks: open it first.
  int rc = record();
  if (rc != 0 && errno == EACCES) {
    change(want | S_IRUSR | S_IWUSR);
    rc = record();
  }
  if (rc != 0) {
    if (errno != ENOTSUP && errno != EOPNOTSUPP) {
      throw_errno("record the mode of", path);
    }
    change(want); // no user xattrs here: the real mode is the agent's
    return;
  }
  change(upper_file_real_mode(want));
}

mode_t shown_mode_at(int dir_fd, const std::string& name, mode_t st_mode) {
  if (!file_mode_marked(st_mode)) {
    return st_mode;
  }
  std::optional<mode_t> mode = recorded_mode_at(dir_fd, name);
  return mode ? S_IFREG | *mode : st_mode;
}

mode_t shown_mode_of(int fd, mode_t st_mode) {
  if (!file_mode_marked(st_mode)) {
    return st_mode;
  }
  std::optional<mode_t> mode = recorded_mode(fd);
  return mode ? S_IFREG | *mode : st_mode;
}

void set_new_upper_file_mode(int fd, mode_t mode, const std::string& path) {
  mode_t want = mode & 07777;
  mode_t real = upper_file_real_mode(want);
  if (::fchmod(fd, real) != 0) {
    throw_errno("chmod", path);
  }
  if (real == want) {
    return;
  }
  char text[8];
  int len = std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(want));
  if (::fsetxattr(fd, k_mode_xattr, text, static_cast<size_t>(len), 0) == 0) {
    return;
  }
  if (errno != ENOTSUP && errno != EOPNOTSUPP) {
    throw_errno("record the mode of", path);
  }
  if (::fchmod(fd, want) != 0) { // no user xattrs here: the real mode is the agent's
    throw_errno("chmod", path);
  }
}

int OverlayFs::shown_dir_mode(const Node* n) {
  int upper = n->upper_fd.load(std::memory_order_acquire);
  if (upper < 0) {
    return -1; // the real tree's directory shows as it is
  }
  int mode = n->shown_mode.load(std::memory_order_acquire);
  if (mode == Node::k_mode_unread) {
    std::optional<mode_t> recorded = recorded_mode(upper);
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

std::optional<mode_t> OverlayFs::recorded_file_mode_locked(const Node* n) const {
  if (int pinned = n->pinned_fd.load(std::memory_order_acquire); pinned >= 0) {
    return recorded_mode(pinned);
  }
  return recorded_mode_at(object_dir_locked(n), n->name);
}

} // namespace ws::fuse
