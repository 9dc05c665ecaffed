// Paths opened and walked beneath a root (see beneath.hpp).
#include "fuse/beneath.hpp"

#include <climits>

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace ws::fuse {

namespace {

int openat2_beneath(int dir, const char* rel, int flags) {
  open_how how{};
  how.flags = static_cast<uint64_t>(flags | O_CLOEXEC);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  return static_cast<int>(::syscall(SYS_openat2, dir, rel, &how, sizeof how));
}

/// The longest path handed to the kernel in one call: PATH_MAX counts the terminating NUL,
/// and a component (at most NAME_MAX) always fits in a chunk.
constexpr size_t k_chunk = PATH_MAX - 1;

} // namespace

int open_beneath(int root, const std::string& rel, int flags) {
  if (rel.size() <= k_chunk) {
    return openat2_beneath(root, rel.empty() ? "." : rel.c_str(), flags);
  }
  // Longer than one path string may be (the agent can nest directories without limit):
  // walk it in chunks of whole components, each resolved beneath the directory the one
  // before opened, with the same rules (no symlink, no "..", never above that directory),
  // so the whole walk stays beneath `root` as one openat2 would.
  UniqueFd dir;
  int at = root;
  size_t start = 0;
  while (rel.size() - start > k_chunk) {
    size_t cut = rel.rfind('/', start + k_chunk);
    if (cut == std::string::npos || cut <= start) {
      errno = ENAMETOOLONG; // one component longer than a chunk: no file has that name
      return -1;
    }
    std::string chunk = rel.substr(start, cut - start);
    UniqueFd next(openat2_beneath(at, chunk.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW));
    if (!next) {
      return -1;
    }
    dir = std::move(next);
    at = dir.get();
    start = cut + 1;
  }
  return openat2_beneath(at, rel.c_str() + start, flags);
}

int BeneathOpener::parent_of(const std::string& rel, const char*& leaf) {
  size_t slash = rel.rfind('/');
  std::string_view dir(rel.data(), slash == std::string::npos ? 0 : slash);
  leaf = rel.c_str() + (slash == std::string::npos ? 0 : slash + 1);
  if (!m_valid || dir != m_dir) {
    m_fd.reset(dir.empty()
                   ? ::fcntl(m_root, F_DUPFD_CLOEXEC, 0)
                   : open_beneath(m_root, std::string(dir), O_PATH | O_DIRECTORY | O_NOFOLLOW));
    m_dir_errno = m_fd ? 0 : errno;
    m_dir.assign(dir);
    m_valid = true;
  }
  if (!m_fd) {
    errno = m_dir_errno;
    return -1;
  }
  if (std::strcmp(leaf, "..") == 0) {
    errno = EXDEV; // as RESOLVE_BENEATH says for a step above the root
    return -1;
  }
  return m_fd.get();
}

int BeneathOpener::open(const std::string& rel, int flags) {
  const char* leaf = nullptr;
  int dir = parent_of(rel, leaf);
  return dir < 0 ? -1 : ::openat(dir, leaf, flags | O_NOFOLLOW | O_CLOEXEC);
}

bool BeneathOpener::lstat(const std::string& rel, struct stat& st) {
  const char* leaf = nullptr;
  int dir = parent_of(rel, leaf);
  return dir >= 0 && ::fstatat(dir, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

bool walk_beneath(int root, const std::string& rel,
                  const std::function<bool(std::string&& path, bool is_dir)>& visit) {
  std::vector<std::string> todo{rel};
  while (!todo.empty()) {
    std::string dir = std::move(todo.back());
    todo.pop_back();
    UniqueFd fd(open_beneath(root, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
    DIR* d = fd ? ::fdopendir(fd.release()) : nullptr;
    if (!d) {
      continue; // not a directory (or gone): nothing below it
    }
    std::unique_ptr<DIR, int (*)(DIR*)> guard(d, ::closedir);
    while (dirent* e = ::readdir(d)) {
      if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) {
        continue;
      }
      bool is_dir = e->d_type == DT_DIR;
      if (e->d_type == DT_UNKNOWN) {
        struct stat st {};
        is_dir =
            ::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
      }
      std::string child = dir + "/" + e->d_name;
      if (is_dir) {
        todo.push_back(child);
      }
      if (!visit(std::move(child), is_dir)) {
        return false;
      }
    }
  }
  return true;
}

} // namespace ws::fuse
