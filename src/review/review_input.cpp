// Withheld files described without being read: a stat, a probe of 8000 bytes, and a
// checked read only when the person takes one.
#include "src/review/review_input.hpp"

#include "fuse/changes.hpp"
#include "fuse/system_error.hpp"
#include "src/cli/error.hpp"
#include "src/cli/text.hpp"
#include "src/transfer/change_content.hpp"

#include <climits>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace ws {

std::string stat_identity(const struct stat& st) {
  auto ns = [](const struct timespec& t) {
    return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
  };
  return std::to_string(st.st_size) + ":" + std::to_string(st.st_mode) + ":" +
         std::to_string(st.st_ino) + ":" + std::to_string(ns(st.st_mtim)) + ":" +
         std::to_string(ns(st.st_ctim));
}

std::optional<std::string> change_identity(const fuse::Change& c) {
  if (c.kind == fuse::ChangeKind::Deleted || c.ino == 0) {
    return std::nullopt;
  }
  char text[128]; // five numbers of at most 20 digits each, and four colons
  int n = std::snprintf(
      text, sizeof text, "%llu:%llu:%llu:%lld:%lld", static_cast<unsigned long long>(c.size),
      static_cast<unsigned long long>(c.mode), static_cast<unsigned long long>(c.ino),
      static_cast<long long>(c.mtime_ns), static_cast<long long>(c.ctime_ns));
  return std::string(text, static_cast<size_t>(n));
}

UpperFiles::UpperFiles(const StateSource& source)
    : m_upper(::open(source.state.upper().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)) {
  if (!m_upper) {
    throw_errno("open the workspace's upper layer", source.state.upper().string());
  }
}

std::optional<FileProbe> UpperFiles::probe(const std::string& path) const {
  fuse::UniqueFd fd(fuse::open_beneath(m_upper.get(), path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK));
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return std::nullopt;
  }
  FileProbe p;
  p.size = static_cast<uint64_t>(st.st_size);
  p.identity = stat_identity(st);
  char buf[8000];
  ssize_t n = ::pread(fd.get(), buf, sizeof buf, 0);
  p.binary = n > 0 && std::find(buf, buf + n, '\0') != buf + n;
  return p;
}

std::optional<std::string> UpperFiles::identity(const std::string& path) const {
  // One fstatat per changed path (a review of 100,000 files does this 100,000 times while
  // it opens). It follows a symlink in the middle of the path, which open_beneath would
  // refuse: the identity is only ever compared, and every read of the content goes through
  // open_beneath, so a directory swapped for a symlink makes a read fail, never succeed.
  struct stat st {};
  if (path.size() < PATH_MAX) {
    if (::fstatat(m_upper.get(), path.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      return std::nullopt;
    }
    return stat_identity(st);
  }
  fuse::UniqueFd fd(fuse::open_beneath(m_upper.get(), path, O_PATH | O_NOFOLLOW));
  if (!fd || ::fstat(fd.get(), &st) != 0) {
    return std::nullopt;
  }
  return stat_identity(st);
}

gitbridge::BlobSide UpperFiles::read_checked(const std::string& path,
                                             const std::string& identity) const {
  auto changed = [&] {
    return Error("the agent changed " + quote_path(path) +
                     " after you reviewed it: nothing was landed",
                 "run 'ws review' again");
  };
  // A regular file is read through the descriptor that was checked; a symlink's target is
  // read between two checks of the link.
  fuse::UniqueFd fd(fuse::open_beneath(m_upper.get(), path, O_PATH | O_NOFOLLOW));
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0 || stat_identity(st) != identity) {
    throw changed();
  }
  gitbridge::BlobSide side;
  side.mode = git_mode(st.st_mode);
  if (S_ISLNK(st.st_mode)) {
    char buf[PATH_MAX];
    ssize_t n = ::readlinkat(fd.get(), "", buf, sizeof buf);
    if (n < 0) {
      throw_errno("read the workspace's symlink", path);
    }
    side.content.assign(buf, static_cast<size_t>(n));
  } else if (S_ISREG(st.st_mode)) {
    fuse::UniqueFd file(
        fuse::open_beneath(m_upper.get(), path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK));
    struct stat opened {};
    if (!file || ::fstat(file.get(), &opened) != 0 || stat_identity(opened) != identity) {
      throw changed();
    }
    side.content = read_all(file.get(), path);
    if (::fstat(file.get(), &opened) != 0 || stat_identity(opened) != identity) {
      throw changed();
    }
  } else {
    throw changed(); // git holds neither; the review never offered it
  }
  struct stat after {};
  if (::fstat(fd.get(), &after) != 0 || stat_identity(after) != identity) {
    throw changed();
  }
  return side;
}

} // namespace ws
