// Open files, attributes, extended attributes.
#include "fuse/overlay_fs.hpp"
#include "fuse/system_error.hpp"
#include "fuse/upper_modes.hpp"

#include <fuse_lowlevel.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cstring>

namespace ws::fuse {

namespace {
bool opens_for_write(int flags) {
  return (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC);
}

// Flags that make sense only when creating or resolving a name, not when re-opening the
// backing object through /proc/self/fd. And O_DIRECT: the kernel already sends the caller's
// direct I/O as READ/WRITE requests past its page cache; the data of a WRITE sits in our
// request buffer at no particular alignment, which an O_DIRECT fd refuses (EINVAL).
constexpr int k_strip = O_CREAT | O_EXCL | O_NOCTTY | O_NOFOLLOW | O_DIRECT;
} // namespace

std::unique_ptr<FileHandle> OverlayFs::open_locked(const Caller& c, Node* n, int flags,
                                                   const std::string* path) {
  bool write = opens_for_write(flags);
  if (write && !n->on_upper.load()) {
    copy_up(n);
  }
  auto fh = std::make_unique<FileHandle>();
  fh->on_upper = n->on_upper.load();
  fh->fd = open_object_locked(n, flags & ~k_strip);
  struct stat st {};
  fh->multi_link = ::fstat(fh->fd.get(), &st) == 0 && st.st_nlink > 1;
  if (write) {
    fh->path = path ? *path : path_locked(n);
    if (flags & O_TRUNC) {
      record(c, "truncate", fh->path, {}, "0");
    }
  }
  return fh;
}

std::unique_ptr<FileHandle> OverlayFs::open(const Caller& c, Node* n, int flags) {
  std::shared_lock tree(m_tree);
  return open_locked(c, n, flags, nullptr);
}

std::pair<Entry, std::unique_ptr<FileHandle>>
OverlayFs::create(const Caller& c, Node* parent, std::string_view name, mode_t mode, int flags) {
  std::shared_lock tree(m_tree);
  std::string path = join_path(path_locked(parent), name);
  check_git_change(c, parent, path, S_IFREG);
  auto open_existing = [&]() -> std::pair<Entry, std::unique_ptr<FileHandle>> {
    if (flags & O_EXCL) {
      throw SystemError(EEXIST, "create '" + path + "'");
    }
    Entry e = attach_entry_locked(parent, name, path);
    try {
      auto fh = open_locked(c, e.node, flags, &path);
      struct stat st = stat_object_locked(e.node); // not getattr(): m_tree is held
      settle_created_handle(e.node, fh, flags & O_ACCMODE, st.st_mode, false);
      present(e.node, st);
      e.attr = st;
      return {e, std::move(fh)};
    } catch (...) {
      tree.unlock();
      forget(e.node, 1);
      throw;
    }
  };
  // Where no real directory is merged, the O_EXCL create below finds out alone whether the
  // name exists (the kernel asks after a LOOKUP that missed, so it rarely does).
  bool merged = parent->lower_fd.load() >= 0;
  if (merged && try_resolve_locked(parent, name, path)) {
    return open_existing();
  }
  m_disk.require(4096, "create"); // as for any new name (overlay_namespace.cpp)
  ensure_upper_dir(parent);
  int pu = parent->upper_fd.load();
  std::string n(name);
  // With stateless opens the fd is kept for the requests that follow (settle_created_handle),
  // whoever sends them: open for reading and writing, and without O_APPEND (a WRITE comes
  // with its offset, which the kernel computed for an O_APPEND caller).
  int oflags = flags & ~k_strip;
  if (m_stateless) {
    oflags = (oflags & ~(O_ACCMODE | O_APPEND)) | O_RDWR;
  }
  auto fh = std::make_unique<FileHandle>();
  fh->fd = UniqueFd(::openat(pu, n.c_str(), oflags | O_CREAT | O_EXCL | O_CLOEXEC, mode & 07777));
  if (!fh->fd) {
    if (errno == EEXIST && !merged) {
      return open_existing();
    }
    throw_errno("create", path);
  }
  set_owner(pu, n.c_str(), c, parent);
  settle_new_mode(pu, n, fh->fd.get(), mode, path);
  Found created; // what resolving the name again would find, without doing it
  if (::fstat(fh->fd.get(), &created.st) != 0) {
    throw_errno("stat new file", path);
  }
  if (file_mode_needs_record(created.st.st_mode)) {
    // Made closed to its owner (`open(..., O_CREAT, 0444)`, tar's read-only files): the
    // upper file stays open to the daemon and ws, the mode is recorded (upper_modes.hpp).
    set_new_upper_file_mode(fh->fd.get(), created.st.st_mode, path);
    created.st.st_mode = S_IFREG | upper_file_real_mode(created.st.st_mode);
  }
  created.on_upper = true;
  fh->on_upper = true;
  fh->path = path;
  note_created_locked(parent, path);
  ProcessInfo creator = record(c, "create", path);
  Entry e = entry_from_locked(parent, name, path, std::move(created));
  m_mapped.remember(e.node->ino.load(), c.pid, c.uid, creator); // who may map it next
  settle_created_handle(e.node, fh, oflags & O_ACCMODE, mode, true);
  return {e, std::move(fh)};
}

void OverlayFs::settle_created_handle(Node* n, std::unique_ptr<FileHandle>& fh, int accmode,
                                      mode_t mode, bool fresh) {
  if (!m_stateless || !fh) {
    return;
  }
  // The kernel that does not send OPEN does not send RELEASE either, not even for a
  // CREATE's handle (fs/fuse/file.c, fuse_file_put): every handle kept here would leak its
  // fd (one per file an `npm install` writes). The view keeps no handle; the fd goes to
  // m_created, which keeps the newest few for the writes and setattrs that follow (tar,
  // npm, a compiler: content, then mode and times). A file opened by name again (not
  // created here) is kept only by a daemon that could not reopen it by its mode.
  mode_t need = accmode == O_RDONLY ? S_IRUSR : accmode == O_WRONLY ? S_IWUSR : S_IRUSR | S_IWUSR;
  if (fresh || (!m_root_daemon && (mode & need) != need)) {
    m_created.put(n, std::move(fh->fd), accmode);
  }
  fh.reset();
}

int OverlayFs::read_fd(Node* n, FileHandle& fh) {
  if (int r = fh.reopened_fd.load(std::memory_order_acquire); r >= 0) {
    return r;
  }
  if (fh.on_upper || !n->on_upper.load(std::memory_order_acquire)) {
    return fh.fd.get();
  }
  // Another open copied the file up after this one opened the lower file: read the copy,
  // which may have been written since (overlayfs before 4.19 gave stale reads here).
  std::shared_lock tree(m_tree);
  std::lock_guard lock(fh.mutex);
  if (!fh.reopened) {
    try {
      fh.reopened = open_object_locked(n, O_RDONLY);
    } catch (const SystemError&) {
      return fh.fd.get();
    }
    fh.reopened_fd.store(fh.reopened.get(), std::memory_order_release);
  }
  return fh.reopened.get();
}

void OverlayFs::fallocate(const Caller& c, Node* n, FileHandle* fh, int mode, off_t offset,
                          off_t length) {
  IoFd own;
  std::string path;
  if (fh) {
    path = fh->path;
  } else {
    own = open_for_write(n);
    std::shared_lock tree(m_tree);
    path = path_locked(n);
  }
  int fd = fh ? fh->fd.get() : own.get();
  bool frees = mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_COLLAPSE_RANGE);
  AllocationWatch watch(m_disk, fd, frees ? 0 : static_cast<uint64_t>(length), "fallocate");
  if (::fallocate(fd, mode, offset, length) != 0) {
    throw_errno("fallocate", path);
  }
  ProcessInfo who = record(c, "fallocate", path, {},
                           std::to_string(offset) + "-" + std::to_string(offset + length));
  m_mapped.remember(n->ino.load(), c.pid, c.uid, who);
}

void OverlayFs::kill_suid_on_write(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    return; // the write that follows reports the fd's trouble
  }
  mode_t kill = S_ISUID | ((st.st_mode & S_IXGRP) ? S_ISGID : 0);
  if ((st.st_mode & kill) == 0) {
    return;
  }
  if (std::optional<mode_t> shown =
          file_mode_marked(st.st_mode) ? recorded_mode(fd) : std::nullopt) {
    // The bits shown are the record's (their x and setuid bits are the real mode's).
    try {
      set_upper_file_mode(fd, false, *shown & ~kill, "write");
    } catch (const SystemError&) {
      // as the fchmod below: the write goes on
    }
    return;
  }
  ::fchmod(fd, st.st_mode & 07777 & ~kill);
}

struct stat OverlayFs::setattr(const Caller& c, Node* n, const struct stat& attr, int to_set,
                               FileHandle* fh) {
  std::shared_lock tree(m_tree);
  std::string path = path_locked(n);
  if (skip_freshen(n, path, to_set)) {
    struct stat st = stat_object_locked(n);
    present(n, st);
    return st;
  }
  copy_up(n);
  bool symlink = n->type == S_IFLNK;
  // The fd that created the file, while m_created keeps it (tar, npm and compilers set the
  // mode and times of what they just wrote): no name to resolve, no /proc path to walk.
  // Else an O_PATH fd on the object, reached through /proc/self/fd.
  auto [kept, kept_mode] = symlink ? std::pair<CreatedFds::Fd, int>{} : m_created.find_any(n);
  UniqueFd obj;
  if (!kept) {
    obj = open_object_locked(n, O_PATH);
  }
  int fd = kept ? kept->get() : obj.get();
  std::string proc = kept ? std::string() : proc_fd_path(fd); // for chmod and times
  if (to_set & FUSE_SET_ATTR_MODE) {
    if (symlink) {
      throw SystemError(EOPNOTSUPP, "chmod of a symlink '" + path + "'");
    }
    mode_t m = attr.st_mode & 07777;
    if (n->is_dir()) {
      set_dir_mode(n, fd, m, path); // the upper directory stays open to the daemon
    } else if (n->type == S_IFREG) {
      std::lock_guard lock(n->mutex);          // record and mark: two calls (upper_modes.hpp)
      set_upper_file_mode(fd, !kept, m, path); // the upper file stays open to the daemon
    } else if ((kept ? ::fchmod(fd, m) : ::chmod(proc.c_str(), m)) != 0) {
      throw_errno("chmod", path);
    }
    char mode[16];
    std::snprintf(mode, sizeof mode, "%04o", m);
    record(c, "chmod", path, {}, mode);
  }
  if (to_set & (FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID)) {
    uid_t uid = (to_set & FUSE_SET_ATTR_UID) ? attr.st_uid : static_cast<uid_t>(-1);
    gid_t gid = (to_set & FUSE_SET_ATTR_GID) ? attr.st_gid : static_cast<gid_t>(-1);
    if (::fchownat(fd, "", uid, gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) != 0) {
      throw_errno("chown", path);
    }
    record(c, "chown", path, {},
           std::to_string(static_cast<int>(uid)) + ":" + std::to_string(static_cast<int>(gid)));
  }
  if (to_set & FUSE_SET_ATTR_SIZE) {
    // Growing leaves a hole (nothing allocated); shrinking frees: measured either way.
    AllocationWatch watch(m_disk, fd, 0, "truncate");
    int rc;
    if (fh && fh->on_upper) {
      rc = ::ftruncate(fh->fd.get(), attr.st_size);
    } else if (kept && kept_mode != O_RDONLY) {
      rc = ::ftruncate(fd, attr.st_size);
    } else {
      rc = ::truncate(proc_fd_path(fd).c_str(), attr.st_size);
    }
    if (rc != 0) {
      throw_errno("truncate", path);
    }
    ProcessInfo who = record(c, "truncate", path, {}, std::to_string(attr.st_size));
    m_mapped.remember(n->ino.load(), c.pid, c.uid, who); // ftruncate, then mmap: a common pair
  }
  if (to_set & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME)) {
    struct timespec tv[2];
    tv[0].tv_nsec = UTIME_OMIT;
    tv[1].tv_nsec = UTIME_OMIT;
    if (to_set & FUSE_SET_ATTR_ATIME_NOW) {
      tv[0].tv_nsec = UTIME_NOW;
    } else if (to_set & FUSE_SET_ATTR_ATIME) {
      tv[0] = attr.st_atim;
    }
    if (to_set & FUSE_SET_ATTR_MTIME_NOW) {
      tv[1].tv_nsec = UTIME_NOW;
    } else if (to_set & FUSE_SET_ATTR_MTIME) {
      tv[1] = attr.st_mtim;
    }
    int rc = symlink ? ::utimensat(object_dir_locked(n), n->name.c_str(), tv, AT_SYMLINK_NOFOLLOW)
             : kept  ? ::futimens(fd, tv)
                     : ::utimensat(AT_FDCWD, proc.c_str(), tv, 0);
    if (rc != 0) {
      throw_errno("utimens", path);
    }
    record(c, "utimens", path);
  }
  struct stat st {};
  if (kept) {
    if (::fstat(fd, &st) != 0) {
      throw_errno("stat", path);
    }
  } else {
    st = stat_object_locked(n); // not getattr(): the tree lock is held already
  }
  present(n, st);
  return st;
}

std::string OverlayFs::getxattr(Node* n, const char* name) {
  // Only user.* is kept. security.capability is asked before every write: answer at once.
  if (std::strncmp(name, "user.", 5) != 0 || n->type == S_IFLNK || is_private_xattr(name)) {
    throw SystemError(ENODATA, "getxattr");
  }
  std::shared_lock tree(m_tree);
  UniqueFd obj = open_object_locked(n, O_PATH);
  std::string proc = proc_fd_path(obj.get());
  std::string value(256, '\0');
  for (;;) {
    ssize_t len = ::getxattr(proc.c_str(), name, value.data(), value.size());
    if (len >= 0) {
      value.resize(static_cast<size_t>(len));
      return value;
    }
    if (errno != ERANGE) {
      throw_errno("getxattr");
    }
    ssize_t need = ::getxattr(proc.c_str(), name, nullptr, 0);
    if (need < 0) {
      throw_errno("getxattr");
    }
    value.resize(static_cast<size_t>(need) + 1);
  }
}

std::string OverlayFs::listxattr(Node* n) {
  if (n->type == S_IFLNK) {
    return {};
  }
  std::shared_lock tree(m_tree);
  UniqueFd obj = open_object_locked(n, O_PATH);
  std::string proc = proc_fd_path(obj.get());
  ssize_t need = ::listxattr(proc.c_str(), nullptr, 0);
  if (need <= 0) {
    return {};
  }
  std::string names(static_cast<size_t>(need), '\0');
  ssize_t len = ::listxattr(proc.c_str(), names.data(), names.size());
  if (len < 0) {
    throw_errno("listxattr");
  }
  std::string out;
  for (size_t i = 0; i < static_cast<size_t>(len);) {
    const char* nm = names.data() + i;
    size_t l = std::strlen(nm);
    if (std::strncmp(nm, "user.", 5) == 0 && !is_private_xattr(nm)) {
      out.append(nm, l + 1);
    }
    i += l + 1;
  }
  return out;
}

void OverlayFs::setxattr(const Caller& c, Node* n, const char* name, std::string_view value,
                         int flags) {
  if (std::strncmp(name, "user.", 5) != 0) {
    throw SystemError(EOPNOTSUPP, "setxattr: only user.* attributes are kept");
  }
  if (n->type == S_IFLNK) {
    // As on ext4 (user.* is for files and directories only), and never through the link.
    throw SystemError(EPERM, "setxattr on a symlink");
  }
  if (is_private_xattr(name)) {
    throw SystemError(EPERM, std::string("setxattr: ") + name + " is kept by ws");
  }
  std::shared_lock tree(m_tree);
  std::string path = path_locked(n);
  copy_up(n);
  UniqueFd obj = open_object_locked(n, O_PATH);
  if (::setxattr(proc_fd_path(obj.get()).c_str(), name, value.data(), value.size(), flags) != 0) {
    throw_errno("setxattr", path);
  }
  record(c, "setxattr", path, {}, name);
}

void OverlayFs::removexattr(const Caller& c, Node* n, const char* name) {
  if (std::strncmp(name, "user.", 5) != 0 || n->type == S_IFLNK || is_private_xattr(name)) {
    throw SystemError(n->type == S_IFLNK || is_private_xattr(name) ? EPERM : ENODATA,
                      "removexattr");
  }
  std::shared_lock tree(m_tree);
  std::string path = path_locked(n);
  copy_up(n);
  UniqueFd obj = open_object_locked(n, O_PATH);
  if (::removexattr(proc_fd_path(obj.get()).c_str(), name) != 0) {
    throw_errno("removexattr", path);
  }
  record(c, "removexattr", path, {}, name);
}

} // namespace ws::fuse
