// The agent's stderr through ws run when it is no terminal (output_relay.hpp).
#include "src/run/output_relay.hpp"

#include "src/cli/error.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ws {

std::optional<OutputRelay> OutputRelay::open_if_not_terminal() {
  struct stat err {};
  if (::fstat(2, &err) != 0 || ::isatty(2)) {
    return std::nullopt;
  }
  OutputRelay r;
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) {
    throw Error(std::string("cannot start the agent: pipe: ") + std::strerror(errno));
  }
  r.m_read.reset(p[0]);
  r.m_write.reset(p[1]);
  ::fcntl(p[0], F_SETFL, ::fcntl(p[0], F_GETFL) | O_NONBLOCK);
  struct stat out {};
  r.m_with_stdout =
      ::fstat(1, &out) == 0 && !::isatty(1) && out.st_dev == err.st_dev && out.st_ino == err.st_ino;
  return r;
}

bool OutputRelay::pump() {
  char buf[16384];
  for (;;) {
    ssize_t n = ::read(m_read.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0 && errno == EAGAIN) {
      return true;
    }
    if (n <= 0) {
      m_read.reset();
      return false;
    }
    m_scan.feed(buf, static_cast<size_t>(n));
    for (ssize_t done = 0; !m_output_gone && done < n;) {
      ssize_t w = ::write(2, buf + done, static_cast<size_t>(n - done));
      if (w < 0 && errno == EINTR) {
        continue;
      }
      if (w < 0 && errno == EAGAIN) { // ws run's stderr is non-blocking: wait for room
        pollfd p{2, POLLOUT, 0};
        ::poll(&p, 1, 1000);
        continue;
      }
      if (w <= 0) {
        // The reader went away: the agent gets EPIPE (or SIGPIPE) on its next write, as it
        // would have writing there itself.
        m_output_gone = true;
        m_read.reset();
        return false;
      }
      done += w;
    }
  }
}

void OutputRelay::drain() {
  while (m_read) {
    pollfd p{m_read.get(), POLLIN, 0};
    if (::poll(&p, 1, 2000) <= 0 || !pump()) {
      break; // nothing more within 2 s: a writer outlived the sandbox (none should)
    }
  }
}

} // namespace ws
