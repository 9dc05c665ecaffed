// Withheld files described without being read: a stat, a probe of 8000 bytes, and a
// checked read only when the person takes one.
#include "src/review/review_input.hpp"

#include "fuse/changes.hpp"
#include "fuse/system_error.hpp"
#include "src/cli/error.hpp"
#include "src/cli/text.hpp"
#include "src/transfer/change_content.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

namespace ws {

std::string stat_identity(const struct stat& st) {
  auto ns = [](const struct timespec& t) {
    return std::to_string(static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec);
  };
  return std::to_string(st.st_size) + ":" + std::to_string(st.st_mode) + ":" +
         std::to_string(st.st_ino) + ":" + ns(st.st_mtim) + ":" + ns(st.st_ctim);
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

gitbridge::BlobSide UpperFiles::read_checked(const std::string& path,
                                             const std::string& identity) const {
  fuse::UniqueFd fd(fuse::open_beneath(m_upper.get(), path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK));
  if (!fd) {
    throw_errno("read the workspace's version of", path);
  }
  auto same = [&] {
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) {
      throw_errno("stat the workspace's version of", path);
    }
    return S_ISREG(st.st_mode) && stat_identity(st) == identity;
  };
  gitbridge::BlobSide side;
  if (same()) {
    struct stat st {};
    ::fstat(fd.get(), &st);
    side.mode = git_mode(st.st_mode);
    side.content = read_all(fd.get(), path);
  }
  if (side.mode == gitbridge::GitMode::None || !same()) {
    throw Error("the agent changed " + quote_path(path) +
                    " after you reviewed it: nothing was landed",
                "run 'ws review' again");
  }
  return side;
}

} // namespace ws
