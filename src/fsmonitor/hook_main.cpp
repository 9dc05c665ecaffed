// ws-fsmonitor: git's core.fsmonitor hook for a ws view (docs/fsmonitor.md), protocol version 2.
//   ws-fsmonitor 2 TOKEN
// git runs it in the worktree's root (the view's root); it asks the daemon through an ioctl on
// that directory and prints the new token, a NUL, then the names changed since TOKEN, each
// followed by a NUL, or "/" (anything may have changed). Static and small, like ws-init: git
// runs it at every status, inside `ws run` too. On any failure it exits non-zero and git
// falls back to looking at everything.
#include "fuse/fsmonitor_protocol.hpp"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

using ws::fuse::FsmonitorBuffer;

namespace {

bool write_all(const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::write(STDOUT_FILENO, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

int fail(const char* what) {
  std::fprintf(stderr, "ws-fsmonitor: %s: %s\n", what, std::strerror(errno));
  return 1;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 3 || std::strcmp(argv[1], "2") != 0) {
    std::fprintf(stderr, "usage: ws-fsmonitor 2 TOKEN (git's core.fsmonitor hook, protocol 2)\n");
    return 1;
  }
  int dir = ::open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) {
    return fail("open .");
  }
  static FsmonitorBuffer buf;
  std::string out;
  std::string token;
  uint64_t upto = 0;
  uint64_t cursor = 0;
  for (;;) {
    std::memset(&buf, 0, sizeof buf);
    buf.query.version = ws::fuse::k_fsmonitor_version;
    buf.query.upto = upto;
    buf.query.cursor = cursor;
    if (std::strlen(argv[2]) < sizeof buf.query.token) {
      std::strcpy(buf.query.token, argv[2]); // longer: not ours, the daemon answers "/"
    }
    if (::ioctl(dir, ws::fuse::k_fsmonitor_ioctl, &buf) != 0) {
      return fail("ask the ws daemon (is this a ws view's root?)");
    }
    const auto& a = buf.answer;
    if (a.version != ws::fuse::k_fsmonitor_version || a.used > sizeof a.names) {
      errno = EPROTO;
      return fail("the ws daemon's answer");
    }
    if (token.empty()) {
      token.assign(a.token, strnlen(a.token, sizeof a.token));
      upto = a.upto;
    }
    if (a.flags & ws::fuse::k_fsmonitor_everything) {
      out = "/";
      break;
    }
    out.append(a.names, a.used);
    if (a.next == 0) {
      break;
    }
    cursor = a.next;
  }
  ::close(dir);
  if (token.empty()) {
    errno = EPROTO;
    return fail("the ws daemon's answer has no token");
  }
  // "/" stands alone; a list is NUL-terminated names (git takes a trailing one or not).
  return write_all(token + std::string(1, '\0') + out) ? 0 : fail("write");
}
