// Copy-up: the first change to a lower object copies it into the upper layer, remembering
// its base (identity, content hash, content in bases/) for status and 3-way apply.
#include "fuse/overlay_fs.hpp"
#include "fuse/system_error.hpp"
#include "fuse/upper_modes.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <set>

namespace ws::fuse {

namespace {

/// Keeps the base's content in bases/? Not above the limit (k_base_content_limit: doubling a
/// multi-GiB copy-up is not worth a merge), and not in a git directory (it never transfers).
bool keeps_base_content(const std::string& path, off_t size) {
  return size <= k_base_content_limit && git_exposure(path) == GitExposure::none;
}

int64_t mtime_ns(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

void write_all(int fd, const char* data, size_t size, const std::string& path) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      throw_errno("copy-up: write", path);
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
}

/// Copies `src` to `dst` keeping holes, and returns the XXH3-128 of the whole content.
Hash128 copy_data(int src, int dst, off_t size, const std::string& path) {
  Hasher hasher;
  static const std::array<char, 1 << 16> zeros{};
  // Uninitialised, and no larger than the file: a zero-filled 1 MiB buffer cost 11% of a
  // small file's copy-up (perf).
  size_t buf_size = static_cast<size_t>(std::clamp<off_t>(size, 4096, 1 << 20));
  auto buf = std::make_unique_for_overwrite<char[]>(buf_size);
  off_t pos = 0;
  while (pos < size) {
    off_t data = ::lseek(src, pos, SEEK_DATA);
    if (data < 0) {
      data = errno == ENXIO ? size : pos; // ENXIO: only a hole remains
    }
    for (off_t z = pos; z < data;) { // a hole reads as zeros
      size_t n = static_cast<size_t>(std::min<off_t>(data - z, zeros.size()));
      hasher.update(zeros.data(), n);
      z += static_cast<off_t>(n);
    }
    if (data >= size) {
      break;
    }
    off_t hole = ::lseek(src, data, SEEK_HOLE);
    if (hole < 0) {
      hole = size;
    }
    for (off_t off = data; off < hole;) {
      ssize_t n =
          ::pread(src, buf.get(), static_cast<size_t>(std::min<off_t>(hole - off, buf_size)), off);
      if (n < 0) {
        if (errno == EINTR) {
          continue;
        }
        throw_errno("copy-up: read", path);
      }
      if (n == 0) {
        hole = off; // the file shrank under us
        size = off;
        break;
      }
      hasher.update(buf.get(), static_cast<size_t>(n));
      if (::lseek(dst, off, SEEK_SET) < 0) {
        throw_errno("copy-up: seek", path);
      }
      write_all(dst, buf.get(), static_cast<size_t>(n), path);
      off += n;
    }
    pos = hole;
  }
  if (::ftruncate(dst, size) != 0) {
    throw_errno("copy-up: truncate", path);
  }
  return hasher.digest();
}

void copy_user_xattrs(const std::string& from, const std::string& to) {
  char names[4096];
  ssize_t len = ::listxattr(from.c_str(), names, sizeof names);
  for (ssize_t i = 0; len > 0 && i < len; i += static_cast<ssize_t>(std::strlen(names + i)) + 1) {
    const char* name = names + i;
    if (std::strncmp(name, "user.", 5) != 0 || is_private_xattr(name)) {
      continue; // (a real-tree file's own user.ws.mode means nothing to the view)
    }
    char value[65536];
    ssize_t vlen = ::getxattr(from.c_str(), name, value, sizeof value);
    if (vlen >= 0) {
      ::setxattr(to.c_str(), name, value, static_cast<size_t>(vlen), 0);
    }
  }
}

} // namespace

Identity OverlayFs::lower_identity(const struct stat& st) const {
  return identity_of(st);
}

Identity OverlayFs::save_base(int lower_dir, const std::string& name, const std::string& path,
                              Identity id) {
  if (!S_ISREG(id.mode) || id.hash || !keeps_base_content(path, static_cast<off_t>(id.size))) {
    return id;
  }
  // The real file is being replaced or removed in the view (an editor's save-by-rename, tar
  // -x, git checkout): keep what it held, so `ws apply` can still merge if the person edits
  // the real file meanwhile.
  UniqueFd src(::openat(lower_dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (!src || ::fstat(src.get(), &st) != 0 || st.st_ino != id.ino) {
    return id;
  }
  std::string tmp = "base." + std::to_string(m_tmp_counter.fetch_add(1));
  UniqueFd dst(::openat(m_work.get(), tmp.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0400));
  if (!dst) {
    throw_errno("save base", path);
  }
  Hash128 hash = copy_data(src.get(), dst.get(), st.st_size, path);
  struct stat after {};
  bool unchanged = ::fstat(src.get(), &after) == 0 && after.st_size == st.st_size &&
                   mtime_ns(after) == mtime_ns(st) && mtime_ns(st) == id.mtime_ns;
  std::string hex = hash.hex();
  if (unchanged && ::faccessat(m_bases.get(), hex.c_str(), F_OK, AT_SYMLINK_NOFOLLOW) != 0) {
    int64_t size = allocated_bytes(dst.get());
    if (::renameat(m_work.get(), tmp.c_str(), m_bases.get(), hex.c_str()) != 0) {
      ::unlinkat(m_work.get(), tmp.c_str(), 0);
      throw_errno("save base", path);
    }
    m_disk.add(std::max<int64_t>(size, 0)); // counted, not refused: it keeps a rename working
  }
  ::unlinkat(m_work.get(), tmp.c_str(), 0); // already there, or renamed away
  if (unchanged) {
    id.hash = hash;
  }
  return id;
}

Identity OverlayFs::copy_object(int lower_fd, const struct stat& st, int upper_parent,
                                const std::string& name, const std::string& path) {
  Identity id = lower_identity(st);
  std::string tmp = "c" + std::to_string(m_tmp_counter.fetch_add(1));
  struct timespec times[2] = {st.st_atim, st.st_mtim};
  // Holes are kept, so the copy takes what the real file takes; its base as much again.
  int64_t blocks = static_cast<int64_t>(st.st_blocks) * 512;
  bool with_base = S_ISREG(st.st_mode) && keeps_base_content(path, st.st_size);
  DiskUsage::Reservation room =
      m_disk.reserve(static_cast<uint64_t>(with_base ? 2 * blocks : blocks), "copy-up");
  int64_t taken = 0;
  try {
    switch (st.st_mode & S_IFMT) {
    case S_IFREG: {
      UniqueFd src(::open(proc_fd_path(lower_fd).c_str(), O_RDONLY | O_CLOEXEC));
      if (!src) {
        throw_errno("copy-up: open", path);
      }
      UniqueFd dst(
          ::openat(m_work.get(), tmp.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600));
      if (!dst) {
        throw_errno("copy-up: create", path);
      }
      id.hash = copy_data(src.get(), dst.get(), st.st_size, path);
      if (with_base) {
        std::string base = id.hash->hex();
        if (::faccessat(m_bases.get(), base.c_str(), F_OK, AT_SYMLINK_NOFOLLOW) != 0) {
          std::string btmp = tmp + ".base";
          UniqueFd b(
              ::openat(m_work.get(), btmp.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0400));
          if (!b) {
            throw_errno("copy-up: save base", path);
          }
          loff_t in_off = 0;
          for (off_t left = st.st_size; left > 0;) {
            ssize_t n = ::copy_file_range(dst.get(), &in_off, b.get(), nullptr,
                                          static_cast<size_t>(left), 0);
            if (n <= 0) {
              if (n < 0 && errno == EINTR) {
                continue;
              }
              throw_errno("copy-up: save base", path);
            }
            left -= n;
          }
          taken += allocated_bytes(b.get());
          if (::renameat(m_work.get(), btmp.c_str(), m_bases.get(), base.c_str()) != 0) {
            throw_errno("copy-up: save base", path);
          }
        }
      }
      if (m_root_daemon) {
        (void)::fchown(dst.get(), st.st_uid, st.st_gid); // first: it would clear setuid
      }
      // A real-tree file closed to its owner (a read-only 0444 one) stays open to the
      // daemon in upper/, its mode recorded (upper_modes.hpp).
      set_new_upper_file_mode(dst.get(), st.st_mode, "copy-up: " + path);
      copy_user_xattrs(proc_fd_path(src.get()), proc_fd_path(dst.get()));
      ::futimens(dst.get(), times);
      taken += std::max<int64_t>(allocated_bytes(dst.get()), 0);
      break;
    }
    case S_IFLNK: {
      char target[PATH_MAX + 1];
      ssize_t len = ::readlinkat(lower_fd, "", target, sizeof target - 1);
      if (len < 0) {
        throw_errno("copy-up: readlink", path);
      }
      id.hash = hash_bytes(std::string_view(target, static_cast<size_t>(len)));
      target[len] = '\0';
      if (::symlinkat(target, m_work.get(), tmp.c_str()) != 0) {
        throw_errno("copy-up: symlink", path);
      }
      if (m_root_daemon) {
        (void)::fchownat(m_work.get(), tmp.c_str(), st.st_uid, st.st_gid, AT_SYMLINK_NOFOLLOW);
      }
      ::utimensat(m_work.get(), tmp.c_str(), times, AT_SYMLINK_NOFOLLOW);
      taken += upper_allocated(m_work.get(), tmp);
      break;
    }
    case S_IFIFO:
    case S_IFSOCK:
      if (::mknodat(m_work.get(), tmp.c_str(), st.st_mode, 0) != 0) {
        throw_errno("copy-up: mknod", path);
      }
      ::fchmodat(m_work.get(), tmp.c_str(), st.st_mode & 07777, 0); // past the daemon's umask
      if (m_root_daemon) {
        (void)::fchownat(m_work.get(), tmp.c_str(), st.st_uid, st.st_gid, AT_SYMLINK_NOFOLLOW);
      }
      break;
    default:
      throw SystemError(EPERM, "copy-up: unsupported file type '" + path + "'");
    }
    // Metadata first: a crash between the two leaves a record without an upper object,
    // which reads as "unchanged", never an upper object whose origin is forgotten.
    PathMeta meta = m_meta.get(path).value_or(PathMeta{});
    if (!meta.base) {
      meta.base = id;
    }
    meta.origin = id;
    meta.origin_path = path;
    m_meta.put(path, meta);
    if (::renameat(m_work.get(), tmp.c_str(), upper_parent, name.c_str()) != 0) {
      throw_errno("copy-up: rename into place", path);
    }
  } catch (...) {
    ::unlinkat(m_work.get(), tmp.c_str(), 0);
    throw; // the reservation goes back (a base saved meanwhile stays uncounted until measured)
  }
  room.settle(taken);
  return id;
}

void OverlayFs::ensure_upper_dir(Node* dir) {
  if (dir->upper_fd.load() >= 0) {
    return;
  }
  if (dir->guard) {
    refuse_guard(dir->name);
  }
  std::lock_guard lock(dir->mutex);
  if (dir->upper_fd.load() >= 0) {
    return;
  }
  if (dir->unlinked || !dir->parent) {
    throw SystemError(ENOENT, "copy-up of a removed directory");
  }
  ensure_upper_dir(dir->parent);
  std::string path = path_locked(dir);
  struct stat st {};
  if (::fstat(dir->lower_fd.load(), &st) != 0) {
    throw_errno("copy-up: stat", path);
  }
  int pu = dir->parent->upper_fd.load();
  m_disk.wait_counted();
  // Not refused at the disk limit: removing a real-tree file copies its directory up, and
  // removing must work at the limit. (Counted, though.)
  if (::mkdirat(pu, dir->name.c_str(), (st.st_mode & 07777) | S_IRWXU) != 0) {
    if (errno != EEXIST) {
      throw_errno("copy-up: mkdir", path);
    }
  } else {
    m_disk.add(upper_allocated(pu, dir->name));
  }
  UniqueFd fd(::openat(pu, dir->name.c_str(), O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC));
  if (!fd) {
    throw_errno("copy-up: open directory", path);
  }
  std::string proc = proc_fd_path(fd.get());
  // Before the node holds the fd: its cached mode is set with the directory's.
  set_dir_mode(dir, fd.get(), st.st_mode & 07777, path);
  if (m_root_daemon) {
    (void)::fchownat(fd.get(), "", st.st_uid, st.st_gid, AT_EMPTY_PATH);
  }
  struct timespec times[2] = {st.st_atim, st.st_mtim};
  ::utimensat(AT_FDCWD, proc.c_str(), times, 0);
  PathMeta meta = m_meta.get(path).value_or(PathMeta{});
  if (!meta.origin) {
    meta.origin = lower_identity(st);
    meta.origin_path = path;
    m_meta.put(path, meta);
  }
  struct stat ust {};
  if (::fstat(fd.get(), &ust) == 0) {
    // The directory is now backed by its upper copy: a later lookup resolves to that, and
    // must find this same node (a fresh one would unhash the dentry a shell stands in, and
    // its getcwd() would fail).
    std::lock_guard table(m_table);
    dir->backing_dev = ust.st_dev;
    dir->backing_ino = ust.st_ino;
  }
  dir->upper_fd.store(fd.release(), std::memory_order_release);
}

void OverlayFs::copy_up_orphan(Node* n) {
  // A real-tree file the view deleted while it was open, now written through that open
  // file (as ext4 allows): give it a private copy in work/, nameless to the view.
  int pinned = n->pinned_fd.load();
  if (pinned < 0) {
    throw SystemError(ENOENT, "write to a removed file");
  }
  struct stat st {};
  if (::fstat(pinned, &st) != 0 || !S_ISREG(st.st_mode)) {
    throw SystemError(ENOENT, "write to a removed file");
  }
  std::string tmp = "orphan" + std::to_string(m_tmp_counter.fetch_add(1));
  UniqueFd src(::open(proc_fd_path(pinned).c_str(), O_RDONLY | O_CLOEXEC));
  UniqueFd dst(::openat(m_work.get(), tmp.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC,
                        st.st_mode & 07777));
  if (!src || !dst) {
    throw_errno("copy-up of a removed file", n->name);
  }
  copy_data(src.get(), dst.get(), st.st_size, n->name);
  UniqueFd copy(::openat(m_work.get(), tmp.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  ::unlinkat(m_work.get(), tmp.c_str(), 0); // nameless from now on, like the original
  if (!copy) {
    throw_errno("copy-up of a removed file", n->name);
  }
  n->retired_fds.push_back(n->pinned_fd.exchange(copy.release()));
  n->on_upper.store(true, std::memory_order_release);
}

void OverlayFs::copy_up(Node* n) {
  if (n->guard) {
    refuse_guard(n->name); // the real tree, shown to the person: never copied, never changed
  }
  if (n->is_dir()) {
    ensure_upper_dir(n);
    return;
  }
  if (n->on_upper.load()) {
    return;
  }
  std::lock_guard lock(n->mutex);
  if (n->on_upper.load()) {
    return;
  }
  if (n->unlinked) {
    copy_up_orphan(n);
    return;
  }
  ensure_upper_dir(n->parent);
  std::string path = path_locked(n);
  UniqueFd lower(
      ::openat(n->parent->lower_fd.load(), n->name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (!lower || ::fstat(lower.get(), &st) != 0) {
    throw_errno("copy-up: open", path);
  }
  int pu = n->parent->upper_fd.load();
  copy_object(lower.get(), st, pu, n->name, path);
  struct stat ust {};
  if (::fstatat(pu, n->name.c_str(), &ust, AT_SYMLINK_NOFOLLOW) != 0) {
    throw_errno("copy-up: stat", path);
  }
  n->backing_dev = ust.st_dev;
  n->backing_ino = ust.st_ino;
  n->on_upper.store(true, std::memory_order_release);
}

void OverlayFs::copy_tree_locked(int lower_dir, int upper_dir, const std::string& path) {
  UniqueFd lfd(::openat(lower_dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!lfd) {
    throw_errno("copy-up: open directory", path);
  }
  DIR* d = ::fdopendir(lfd.get());
  if (!d) {
    throw_errno("copy-up: read directory", path);
  }
  lfd.release();
  std::unique_ptr<DIR, int (*)(DIR*)> guard(d, ::closedir);
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
      names.emplace_back(e->d_name);
    }
  }
  for (const std::string& name : names) {
    std::string child = join_path(path, name);
    if (m_meta.is_whiteout(child)) {
      continue;
    }
    UniqueFd lower(::openat(lower_dir, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    struct stat st {};
    if (!lower || ::fstat(lower.get(), &st) != 0) {
      continue; // vanished from the real tree meanwhile
    }
    struct stat ust {};
    bool in_upper = ::fstatat(upper_dir, name.c_str(), &ust, AT_SYMLINK_NOFOLLOW) == 0;
    if (S_ISDIR(st.st_mode)) {
      if (in_upper && (!S_ISDIR(ust.st_mode) || m_meta.is_opaque(child))) {
        continue; // the upper object hides the lower directory entirely
      }
      if (!in_upper) {
        if (::mkdirat(upper_dir, name.c_str(), (st.st_mode & 07777) | S_IRWXU) != 0) {
          throw_errno("copy-up: mkdir", child);
        }
        m_disk.add(upper_allocated(upper_dir, name));
        if (m_root_daemon) {
          (void)::fchownat(upper_dir, name.c_str(), st.st_uid, st.st_gid, AT_SYMLINK_NOFOLLOW);
        }
        PathMeta meta = m_meta.get(child).value_or(PathMeta{});
        meta.origin = lower_identity(st);
        meta.origin_path = child;
        m_meta.put(child, meta);
      }
      UniqueFd udir(
          ::openat(upper_dir, name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!udir) {
        throw_errno("copy-up: open directory", child);
      }
      copy_tree_locked(lower.get(), udir.get(), child);
      if (!in_upper) {
        struct timespec times[2] = {st.st_atim, st.st_mtim};
        ::utimensat(upper_dir, name.c_str(), times, AT_SYMLINK_NOFOLLOW);
        set_upper_dir_mode(udir.get(), st.st_mode & 07777, child);
      }
    } else if (!in_upper) {
      copy_object(lower.get(), st, upper_dir, name, child);
    }
  }
  // Everything the lower directory showed now lives above it.
  PathMeta meta = m_meta.get(path).value_or(PathMeta{});
  meta.opaque = true;
  m_meta.put(path, meta);
}

void OverlayFs::copy_up_tree(Node* dir) {
  if (dir->guard) {
    refuse_guard(dir->name);
  }
  m_disk.wait_counted();
  ensure_upper_dir(dir);
  if (dir->lower_fd.load() < 0) {
    return;
  }
  copy_tree_locked(dir->lower_fd.load(), dir->upper_fd.load(), path_locked(dir));
  refresh_after_tree_copy(dir);
}

void OverlayFs::refresh_after_tree_copy(Node* dir) {
  std::vector<Node*> children;
  {
    std::lock_guard table(m_table);
    for (auto& [name, child] : dir->children) {
      children.push_back(child);
    }
  }
  {
    std::lock_guard lock(dir->mutex);
    int old = dir->lower_fd.exchange(-1);
    if (old >= 0) {
      dir->retired_fds.push_back(old);
    }
  }
  int upper = dir->upper_fd.load();
  for (Node* child : children) {
    {
      std::lock_guard lock(child->mutex);
      struct stat st {};
      if (::fstatat(upper, child->name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        continue;
      }
      if (child->is_dir()) {
        if (child->upper_fd.load() < 0) {
          child->shown_mode.store(Node::k_mode_unread); // read from the directory copied up
          child->upper_fd.store(
              ::openat(upper, child->name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        }
      } else if (!child->on_upper.load()) {
        child->backing_dev = st.st_dev;
        child->backing_ino = st.st_ino;
        child->on_upper.store(true);
      }
    }
    // Not under child->mutex: the recursion takes it again.
    if (child->is_dir()) {
      refresh_after_tree_copy(child);
    }
  }
}

void OverlayFs::set_owner(int dirfd, const char* name, const Caller& c, Node* parent) {
  if (!m_root_daemon || (c.uid == m_euid && c.gid == m_egid)) {
    // Made with the caller's ids already: the kernel gave it our own, or in a setgid
    // directory the directory's group, as it would have given the caller.
    return;
  }
  gid_t gid = c.gid;
  struct stat pst {};
  bool setgid_dir = ::fstat(parent->upper_fd.load(), &pst) == 0 && (pst.st_mode & S_ISGID);
  if (setgid_dir) {
    gid = pst.st_gid; // BSD group semantics in setgid directories, as ext4
  }
  if (c.uid == m_euid && gid == m_egid) {
    return; // created with these already
  }
  if (::fchownat(dirfd, name, c.uid, gid, AT_SYMLINK_NOFOLLOW) != 0) {
    throw_errno("chown new file", name);
  }
}

} // namespace ws::fuse
