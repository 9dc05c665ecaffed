// Reading one object of the upper layer for a snapshot (see upper_reads.hpp).
#include "fuse/store/upper_reads.hpp"

#include "fuse/state_tree.hpp"
#include "fuse/system_error.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ws::fuse::store {

std::vector<std::pair<std::string, std::string>> user_xattrs(int dir, const std::string& name) {
  std::vector<std::pair<std::string, std::string>> out;
  std::string p = proc_path(dir) + "/" + name;
  char names[4096];
  ssize_t len = ::llistxattr(p.c_str(), names, sizeof names);
  for (ssize_t i = 0; len > 0 && i < len; i += static_cast<ssize_t>(std::strlen(names + i)) + 1) {
    if (std::strncmp(names + i, "user.", 5) != 0) {
      continue;
    }
    std::vector<char> value(65536);
    ssize_t vlen = ::lgetxattr(p.c_str(), names + i, value.data(), value.size());
    if (vlen >= 0) {
      out.emplace_back(names + i, std::string(value.data(), static_cast<size_t>(vlen)));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

ObjectId sha256_of(int fd, const std::string& path) {
  Sha256 sha;
  std::vector<char> buf(1 << 16);
  for (off_t off = 0;;) {
    ssize_t n = ::pread(fd, buf.data(), buf.size(), off);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      throw_errno("read", path);
    }
    if (n == 0) {
      return sha.digest();
    }
    sha.update(buf.data(), static_cast<size_t>(n));
    off += n;
  }
}

UniqueFd open_readable(int dir, const std::string& name, int flags, bool may_chmod) {
  UniqueFd fd(::openat(dir, name.c_str(), flags | O_NOFOLLOW | O_CLOEXEC));
  if (fd || errno != EACCES || !may_chmod) {
    return fd;
  }
  struct stat st {};
  if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_uid != ::geteuid()) {
    errno = EACCES;
    return fd;
  }
  mode_t lend = S_ISDIR(st.st_mode) ? S_IRUSR | S_IXUSR : S_IRUSR;
  if (::fchmodat(dir, name.c_str(), (st.st_mode & 07777) | lend, 0) != 0) {
    errno = EACCES;
    return fd;
  }
  fd.reset(::openat(dir, name.c_str(), flags | O_NOFOLLOW | O_CLOEXEC));
  int err = errno;
  ::fchmodat(dir, name.c_str(), st.st_mode & 07777, 0);
  errno = err;
  return fd;
}

} // namespace ws::fuse::store
