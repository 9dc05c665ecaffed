// The daemon's record of changed names, asked as git's fsmonitor hook asks (src/fsmonitor/).
#include "src/transfer/view_changes.hpp"

#include "fuse/fsmonitor_protocol.hpp"
#include "fuse/unique_fd.hpp"

#include <fcntl.h>
#include <sys/ioctl.h>

#include <cstring>
#include <memory>

namespace ws {

std::optional<ViewChanges> view_changes_since(const std::filesystem::path& mountpoint,
                                              const std::string& token, size_t max_paths) {
  fuse::UniqueFd dir(::open(mountpoint.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir) {
    return std::nullopt;
  }
  auto buf = std::make_unique<fuse::FsmonitorBuffer>();
  ViewChanges out;
  out.everything = false;
  uint64_t upto = 0, cursor = 0;
  for (;;) {
    std::memset(buf.get(), 0, sizeof *buf);
    buf->query.version = fuse::k_fsmonitor_version;
    buf->query.upto = upto;
    buf->query.cursor = cursor;
    if (token.size() < sizeof buf->query.token) {
      std::memcpy(buf->query.token, token.data(), token.size()); // longer: not a token of ours
    }
    if (::ioctl(dir.get(), fuse::k_fsmonitor_ioctl, buf.get()) != 0) {
      return std::nullopt; // not a view's root, or no daemon
    }
    const fuse::FsmonitorAnswer& a = buf->answer;
    if (a.version != fuse::k_fsmonitor_version || a.used > sizeof a.names) {
      return std::nullopt;
    }
    if (out.token.empty()) {
      out.token.assign(a.token, strnlen(a.token, sizeof a.token));
      upto = a.upto;
      if (out.token.empty()) {
        return std::nullopt;
      }
    }
    if (a.flags & fuse::k_fsmonitor_everything) {
      out.everything = true;
      out.paths.clear();
      return out;
    }
    for (size_t at = 0; at < a.used;) {
      size_t len = strnlen(a.names + at, a.used - at);
      out.paths.emplace_back(a.names + at, len);
      at += len + 1;
    }
    if (out.paths.size() > max_paths) {
      out.everything = true; // the token stays good: it names the query's end
      out.paths.clear();
      return out;
    }
    if (a.next == 0) {
      return out;
    }
    cursor = a.next;
  }
}

} // namespace ws
