#include "src/transfer/change_content.hpp"

#include "fuse/hash.hpp"
#include "fuse/system_error.hpp"

#include <climits>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace ws {

using fuse::UniqueFd;

namespace {
UniqueFd open_dir(const std::filesystem::path& p, const char* what) {
  UniqueFd fd(::open(p.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!fd) {
    throw_errno(what, p.string());
  }
  return fd;
}

bool lstat_beneath(int root, const std::string& path, struct stat& st) {
  UniqueFd fd(fuse::open_beneath(root, path, O_PATH | O_NOFOLLOW));
  return fd && ::fstat(fd.get(), &st) == 0;
}
/// The first directory of `path` that is a symlink beneath `root` ("" if none): git sees
/// nothing of the tree below it.
std::string symlink_above(int root, const std::string& path) {
  for (size_t cut = path.find('/'); cut != std::string::npos; cut = path.find('/', cut + 1)) {
    std::string dir = path.substr(0, cut);
    struct stat st {};
    if (!lstat_beneath(root, dir, st)) {
      return {};
    }
    if (S_ISLNK(st.st_mode)) {
      return dir;
    }
  }
  return {};
}
} // namespace

std::string read_all(int fd, const std::string& path) {
  std::string out;
  char buf[65536];
  for (off_t off = 0;;) {
    ssize_t n = ::pread(fd, buf, sizeof buf, off);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      throw_errno("read", path);
    }
    if (n == 0) {
      return out;
    }
    out.append(buf, static_cast<size_t>(n));
    off += n;
  }
}

gitbridge::GitMode git_mode(mode_t mode) {
  if (S_ISLNK(mode)) {
    return gitbridge::GitMode::Symlink;
  }
  if (S_ISREG(mode)) {
    return (mode & S_IXUSR) ? gitbridge::GitMode::Executable : gitbridge::GitMode::File;
  }
  return gitbridge::GitMode::None;
}

ContentReader::ContentReader(const Workspace& w, const StateSource& source)
    : m_real(open_dir(w.repo, "open the real tree")),
      m_upper(open_dir(source.state.upper(), "open the workspace's upper layer")),
      m_bases(open_dir(source.bases, "open the workspace's saved bases")) {}

gitbridge::BlobSide ContentReader::read_side(int root, const std::string& path,
                                             const struct stat& st) const {
  gitbridge::BlobSide side;
  side.mode = git_mode(st.st_mode);
  if (S_ISLNK(st.st_mode)) {
    UniqueFd fd(fuse::open_beneath(root, path, O_PATH | O_NOFOLLOW));
    char buf[PATH_MAX];
    ssize_t n = fd ? ::readlinkat(fd.get(), "", buf, sizeof buf) : -1;
    if (n < 0) {
      throw_errno("read symlink", path);
    }
    side.content.assign(buf, static_cast<size_t>(n));
  } else if (S_ISREG(st.st_mode)) {
    UniqueFd fd(fuse::open_beneath(root, path, O_RDONLY | O_NOFOLLOW));
    if (!fd && errno == EACCES && root == m_upper.get()) {
      // Never lent a permission here (a read-only command would change the workspace under
      // the agent): the view keeps upper files open to their owner and the agent's mode
      // aside (fuse/upper_modes.hpp). Only a workspace an older ws wrote, or one on a
      // filesystem without user xattrs, holds a file closed to its owner.
      char mode[8];
      std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
      throw SystemError(
          EACCES, "open '" + path + "', which the agent made unreadable (mode " + mode +
                      "; chmod it in the view, to u+r or to its own mode again, then try again)");
    }
    if (!fd) {
      throw_errno("open", path);
    }
    side.content = read_all(fd.get(), path);
  }
  return side;
}

gitbridge::BlobSide ContentReader::view(const std::string& path) const {
  struct stat st {};
  if (!lstat_beneath(m_upper.get(), path, st)) {
    throw_errno("read the workspace's version of", path);
  }
  return read_side(m_upper.get(), path, st);
}

ContentReader::RealObject ContentReader::real(const std::string& path) const {
  RealObject out;
  struct stat st {};
  if (!lstat_beneath(m_real.get(), path, st)) {
    int e = errno;
    if (e == ELOOP) { // a symlink on the way (the last component is never followed)
      out.symlink_above = symlink_above(m_real.get(), path);
    }
    if (e != ENOENT && e != ENOTDIR && out.symlink_above.empty()) {
      errno = e;
      throw_errno("look at the real tree's", path);
    }
    return out;
  }
  out.exists = true;
  out.mode = st.st_mode;
  out.side = read_side(m_real.get(), path, st);
  return out;
}

std::string ContentReader::why_base_unknown(const fuse::Change& c) {
  if (c.unseen) {
    return "the agent removed the directory holding it whole";
  }
  if (c.base && static_cast<off_t>(c.base->size) > fuse::k_base_content_limit) {
    return "it is over the " + std::to_string(fuse::k_base_content_limit >> 20) + " MiB ws keeps";
  }
  return "ws has no copy of it (the workspace is older than ws keeping one at every first "
         "change)";
}

gitbridge::BlobSide ContentReader::base(const fuse::Change& c, bool& exact) const {
  exact = true;
  const std::string& path = c.kind == fuse::ChangeKind::Renamed ? c.from : c.path;
  if (!c.base || c.base->mode == 0 || S_ISDIR(c.base->mode)) {
    return {}; // nothing (or a directory) stood there
  }
  if (c.unseen) {
    exact = false; // nothing says what the agent saw: the real file now is all there is
    return real(path).side;
  }
  const fuse::Identity& base = *c.base;
  gitbridge::BlobSide side;
  side.mode = git_mode(base.mode);
  if (S_ISREG(base.mode) && base.hash) {
    UniqueFd fd(::openat(m_bases.get(), base.hash->hex().c_str(), O_RDONLY | O_CLOEXEC));
    if (fd) {
      side.content = read_all(fd.get(), path);
      return side;
    }
  }
  // No saved copy (a deletion, a rename, or a file above the saved-base limit): the real
  // file is the base if it is still the object the agent found.
  RealObject now = real(path);
  bool same = now.exists && (now.mode & S_IFMT) == (base.mode & S_IFMT);
  if (same) {
    if (base.hash) {
      same = fuse::hash_bytes(now.side.content) == *base.hash;
    } else {
      struct stat st {};
      same = lstat_beneath(m_real.get(), path, st) && st.st_ino == base.ino &&
             static_cast<uint64_t>(st.st_size) == base.size &&
             static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec ==
                 base.mtime_ns;
    }
  }
  if (same) {
    now.side.mode = git_mode(base.mode); // the base's exec bit, not today's
    return now.side;
  }
  exact = false;
  return now.exists ? now.side : side;
}

} // namespace ws
