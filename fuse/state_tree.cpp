// Walking, copying and removing directory trees for state edits (see state_tree.hpp).
#include "fuse/state_tree.hpp"

#include "fuse/meta_store.hpp"
#include "fuse/system_error.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <memory>

namespace ws::fuse {

namespace {

struct DirId {
  dev_t dev = 0;
  ino_t ino = 0;
};

DirId id_of(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    throw_errno("stat", path);
  }
  return {st.st_dev, st.st_ino};
}

/// The parent of directory `fd`, which must be `expect`: nothing may move our trees while
/// we walk them, and we refuse to wander if something did.
UniqueFd go_up(int fd, DirId expect, const std::string& path) {
  UniqueFd up(::openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!up) {
    throw_errno("open parent directory", path);
  }
  DirId got = id_of(up.get(), path);
  if (got.dev != expect.dev || got.ino != expect.ino) {
    throw SystemError(ESTALE, "a directory moved while it was being copied or removed '" + path +
                                  "'; try again");
  }
  return up;
}

void copy_range_plain(int src, int dst, off_t from, off_t to, const std::string& path) {
  loff_t in = from, out = from;
  while (in < to) {
    ssize_t n = ::copy_file_range(src, &in, dst, &out, static_cast<size_t>(to - in), 0);
    if (n > 0) {
      continue;
    }
    if (n == 0) {
      return; // the source shrank
    }
    if (errno == EINTR) {
      continue;
    }
    if (errno != EXDEV && errno != EINVAL && errno != EOPNOTSUPP && errno != ENOSYS) {
      throw_errno("copy: copy_file_range", path);
    }
    // No copy_file_range between these files: copy through a buffer.
    std::array<char, 1 << 16> buf;
    while (in < to) {
      ssize_t r = ::pread(src, buf.data(), std::min<size_t>(buf.size(), to - in), in);
      if (r < 0 && errno == EINTR) {
        continue;
      }
      if (r < 0) {
        throw_errno("copy: read", path);
      }
      if (r == 0) {
        return;
      }
      for (ssize_t done = 0; done < r;) {
        ssize_t w = ::pwrite(dst, buf.data() + done, static_cast<size_t>(r - done), out + done);
        if (w < 0 && errno != EINTR) {
          throw_errno("copy: write", path);
        }
        done += std::max<ssize_t>(w, 0);
      }
      in += r;
      out += r;
    }
  }
}

} // namespace

std::string proc_path(int fd) {
  return "/proc/self/fd/" + std::to_string(fd);
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string::npos) {
      slash = path.size();
    }
    if (slash > start) {
      parts.push_back(path.substr(start, slash - start));
    }
    start = slash + 1;
  }
  return parts;
}

std::string parent_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

UniqueFd dup_fd(int fd) {
  UniqueFd out(::fcntl(fd, F_DUPFD_CLOEXEC, 0));
  if (!out) {
    throw_errno("dup");
  }
  return out;
}

UniqueFd open_dir(int at, const std::string& name, const std::string& path) {
  UniqueFd fd(::openat(at, name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) {
    throw_errno("open directory", path);
  }
  return fd;
}

std::vector<std::string> list_names(int dir, const std::string& path) {
  UniqueFd fd(::openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd) {
    throw_errno("read directory", path);
  }
  DIR* d = ::fdopendir(fd.get());
  if (!d) {
    throw_errno("read directory", path);
  }
  fd.release();
  std::unique_ptr<DIR, int (*)(DIR*)> guard(d, ::closedir);
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
      names.emplace_back(e->d_name);
    }
  }
  return names;
}

void copy_content(int src, int dst, off_t size, Hasher* hasher, const std::string& path) {
  static const std::array<char, 1 << 16> zeros{};
  std::unique_ptr<char[]> buf;
  off_t pos = 0;
  while (pos < size) {
    off_t data = ::lseek(src, pos, SEEK_DATA);
    if (data < 0) {
      data = errno == ENXIO ? size : pos; // ENXIO: only a hole remains
    }
    data = std::min(data, size);
    for (off_t z = pos; hasher && z < data;) {
      size_t n = static_cast<size_t>(std::min<off_t>(data - z, zeros.size()));
      hasher->update(zeros.data(), n);
      z += static_cast<off_t>(n);
    }
    if (data >= size) {
      break;
    }
    off_t hole = ::lseek(src, data, SEEK_HOLE);
    hole = hole < 0 ? size : std::min(hole, size);
    if (!hasher) {
      copy_range_plain(src, dst, data, hole, path);
      pos = hole;
      continue;
    }
    if (!buf) {
      buf = std::make_unique_for_overwrite<char[]>(1 << 20);
    }
    for (off_t off = data; off < hole;) {
      ssize_t n =
          ::pread(src, buf.get(), static_cast<size_t>(std::min<off_t>(hole - off, 1 << 20)), off);
      if (n < 0 && errno == EINTR) {
        continue;
      }
      if (n < 0) {
        throw_errno("copy: read", path);
      }
      if (n == 0) {
        size = off; // the file shrank under us
        break;
      }
      hasher->update(buf.get(), static_cast<size_t>(n));
      for (ssize_t done = 0; done < n;) {
        ssize_t w = ::pwrite(dst, buf.get() + done, static_cast<size_t>(n - done), off + done);
        if (w < 0 && errno != EINTR) {
          throw_errno("copy: write", path);
        }
        done += std::max<ssize_t>(w, 0);
      }
      off += n;
    }
    pos = hole;
  }
  if (::ftruncate(dst, size) != 0) {
    throw_errno("copy: truncate", path);
  }
}

void copy_user_xattrs(int from_fd, int to_fd) {
  std::string from = proc_path(from_fd), to = proc_path(to_fd);
  char names[4096];
  ssize_t len = ::listxattr(from.c_str(), names, sizeof names);
  for (ssize_t i = 0; len > 0 && i < len; i += static_cast<ssize_t>(std::strlen(names + i)) + 1) {
    if (std::strncmp(names + i, "user.", 5) != 0) {
      continue;
    }
    std::vector<char> value(65536);
    ssize_t vlen = ::getxattr(from.c_str(), names + i, value.data(), value.size());
    if (vlen >= 0) {
      ::setxattr(to.c_str(), names + i, value.data(), static_cast<size_t>(vlen), 0);
    }
  }
}

void set_attrs(int dir, const std::string& name, const struct stat& st) {
  if (::geteuid() == 0) {
    (void)::fchownat(dir, name.c_str(), st.st_uid, st.st_gid, AT_SYMLINK_NOFOLLOW);
  }
  if (!S_ISLNK(st.st_mode)) {
    ::fchmodat(dir, name.c_str(), st.st_mode & 07777, 0);
  }
  struct timespec times[2] = {st.st_atim, st.st_mtim};
  ::utimensat(dir, name.c_str(), times, AT_SYMLINK_NOFOLLOW);
}

void copy_tree(int src_root, int dst_root, const std::string& top, const CopyActions& act) {
  struct Level {
    std::vector<std::string> names;
    size_t next = 0;
    std::string name;
    struct stat st {};
    DirId src, dst;
  };
  UniqueFd src = dup_fd(src_root), dst = dup_fd(dst_root);
  std::vector<Level> stack(1);
  stack[0].names = list_names(src.get(), top);
  stack[0].src = id_of(src.get(), top);
  stack[0].dst = id_of(dst.get(), top);
  std::string path = top;
  for (;;) {
    Level& level = stack.back();
    if (level.next < level.names.size()) {
      std::string name = level.names[level.next++];
      std::string child = join_path(path, name);
      struct stat st {};
      if (::fstatat(src.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT) {
          continue; // gone meanwhile (the real tree may change under us)
        }
        throw_errno("copy: stat", child);
      }
      if (!S_ISDIR(st.st_mode)) {
        act.object(src.get(), dst.get(), name, st, child);
        continue;
      }
      if (::mkdirat(dst.get(), name.c_str(), 0700) != 0 && errno != EEXIST) {
        throw_errno("copy: mkdir", child);
      }
      UniqueFd s = open_dir(src.get(), name, child), d = open_dir(dst.get(), name, child);
      Level next;
      next.names = list_names(s.get(), child);
      next.name = name;
      next.st = st;
      next.src = id_of(s.get(), child);
      next.dst = id_of(d.get(), child);
      stack.push_back(std::move(next));
      src = std::move(s);
      dst = std::move(d);
      path = child;
      continue;
    }
    if (stack.size() == 1) {
      return;
    }
    Level done = std::move(stack.back());
    stack.pop_back();
    src = go_up(src.get(), stack.back().src, path);
    dst = go_up(dst.get(), stack.back().dst, path);
    path = parent_of(path);
    act.directory(src.get(), dst.get(), done.name, done.st, join_path(path, done.name));
  }
}

CopyActions plain_copy(int dst_root) {
  // Hard links: the first copy's path, relative to dst_root (the copy's top is ""), so later
  // names link to it. A path too long for linkat (deep trees) falls back to a copy.
  auto links = std::make_shared<std::map<std::pair<dev_t, ino_t>, std::string>>();
  CopyActions act;
  act.object = [dst_root, links](int src, int dst, const std::string& name, const struct stat& st,
                                 const std::string& path) {
    if (S_ISREG(st.st_mode) && st.st_nlink > 1) {
      auto [it, fresh] = links->try_emplace({st.st_dev, st.st_ino}, path);
      if (!fresh && ::linkat(dst_root, it->second.c_str(), dst, name.c_str(), 0) == 0) {
        return;
      }
    }
    switch (st.st_mode & S_IFMT) {
    case S_IFREG: {
      UniqueFd in(::openat(src, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
      UniqueFd out(
          ::openat(dst, name.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600));
      if (!in || !out) {
        throw_errno("copy: open", path);
      }
      copy_content(in.get(), out.get(), st.st_size, nullptr, path);
      copy_user_xattrs(in.get(), out.get());
      break;
    }
    case S_IFLNK: {
      char target[PATH_MAX + 1];
      ssize_t len = ::readlinkat(src, name.c_str(), target, sizeof target - 1);
      if (len < 0) {
        throw_errno("copy: readlink", path);
      }
      target[len] = '\0';
      if (::symlinkat(target, dst, name.c_str()) != 0) {
        throw_errno("copy: symlink", path);
      }
      break;
    }
    default:
      if (::mknodat(dst, name.c_str(), st.st_mode, st.st_rdev) != 0) {
        throw_errno("copy: mknod", path);
      }
    }
    set_attrs(dst, name, st);
  };
  act.directory = [](int src, int dst, const std::string& name, const struct stat& st,
                     const std::string& path) {
    UniqueFd from = open_dir(src, name, path), to = open_dir(dst, name, path);
    copy_user_xattrs(from.get(), to.get());
    set_attrs(dst, name, st);
  };
  return act;
}

void move_object(int dir, const std::string& name, int to_dir, const std::string& to_name,
                 const std::string& path) {
  if (::renameat(dir, name.c_str(), to_dir, to_name.c_str()) == 0) {
    return;
  }
  if (errno != EACCES && errno != EPERM) {
    throw_errno("move aside", path);
  }
  struct stat pst {};
  std::string parent = proc_path(dir);
  if (::fstat(dir, &pst) != 0 || ::chmod(parent.c_str(), (pst.st_mode & 07777) | S_IRWXU) != 0) {
    throw_errno("move aside", path);
  }
  struct stat st {};
  if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
    ::fchmodat(dir, name.c_str(), (st.st_mode & 07777) | S_IRWXU, 0); // rename rewrites ".."
  }
  int rc = ::renameat(dir, name.c_str(), to_dir, to_name.c_str());
  int err = errno;
  ::chmod(parent.c_str(), pst.st_mode & 07777);
  if (rc != 0) {
    errno = err;
    throw_errno("move aside", path);
  }
}

void remove_tree(int dir, const std::string& name) {
  if (::unlinkat(dir, name.c_str(), 0) == 0 || errno == ENOENT) {
    return;
  }
  if (errno != EISDIR && errno != EPERM && errno != EACCES) {
    throw_errno("remove", name);
  }
  ::fchmodat(dir, name.c_str(), 0700, 0);
  UniqueFd cur = open_dir(dir, name, name);
  std::vector<std::pair<std::string, DirId>> stack{{name, id_of(dir, name)}};
  for (;;) {
    bool descended = false;
    for (const std::string& e : list_names(cur.get(), stack.back().first)) {
      if (::unlinkat(cur.get(), e.c_str(), 0) == 0 || errno == ENOENT) {
        continue;
      }
      if (errno != EISDIR) {
        throw_errno("remove", e);
      }
      if (::unlinkat(cur.get(), e.c_str(), AT_REMOVEDIR) == 0) {
        continue;
      }
      ::fchmodat(cur.get(), e.c_str(), 0700, 0); // it may have been read-only
      DirId here = id_of(cur.get(), e);
      cur = open_dir(cur.get(), e, e);
      stack.emplace_back(e, here);
      descended = true;
      break;
    }
    if (descended) {
      continue;
    }
    auto [done, parent] = stack.back();
    stack.pop_back();
    cur = go_up(cur.get(), parent, done);
    if (::unlinkat(cur.get(), done.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) {
      throw_errno("remove directory", done);
    }
    if (stack.empty()) {
      return;
    }
  }
}

} // namespace ws::fuse
