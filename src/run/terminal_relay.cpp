// The agent's pseudo-terminal and the relay (terminal_relay.hpp). As ssh -t and tmux do:
// the person's terminal is raw, every byte goes to the pty, so Ctrl-C, Ctrl-Z and resizes
// act on the agent's own session and never on the person's shell.
#include "src/run/terminal_relay.hpp"

#include "src/cli/error.hpp"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace ws {

std::optional<TerminalRelay> TerminalRelay::open_if_terminal() {
  TerminalRelay r;
  bool any = false;
  for (int fd = 0; fd < 3; ++fd) {
    r.m_tty[fd] = ::isatty(fd) == 1;
    any = any || r.m_tty[fd];
  }
  if (!any) {
    return std::nullopt;
  }
  r.m_master = fuse::UniqueFd(::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!r.m_master || ::grantpt(r.m_master.get()) != 0 || ::unlockpt(r.m_master.get()) != 0) {
    throw Error(std::string("cannot give the agent a terminal: posix_openpt: ") +
                std::strerror(errno));
  }
  const char* name = ::ptsname(r.m_master.get());
  r.m_slave = fuse::UniqueFd(name ? ::open(name, O_RDWR | O_NOCTTY | O_CLOEXEC) : -1);
  if (!r.m_slave) {
    throw Error(std::string("cannot give the agent a terminal: open ") + (name ? name : "pty") +
                ": " + std::strerror(errno));
  }
  int from = r.m_tty[0] ? 0 : r.m_tty[1] ? 1 : 2;
  termios t{};
  if (::tcgetattr(from, &t) == 0) {
    ::tcsetattr(r.m_slave.get(), TCSANOW, &t); // the agent starts with the person's settings
  }
  r.m_input = r.m_tty[0] ? 0 : -1;
  r.m_output = r.m_tty[1] ? 1 : r.m_tty[2] ? 2 : -1;
  ::fcntl(r.m_master.get(), F_SETFL, O_NONBLOCK);
  r.forward_size();
  return r;
}

TerminalRelay::TerminalRelay(TerminalRelay&& o) noexcept
    : m_master(std::move(o.m_master)), m_slave(std::move(o.m_slave)), m_input(o.m_input),
      m_output(o.m_output), m_saved(o.m_saved), m_pending(std::move(o.m_pending)) {
  for (int i = 0; i < 3; ++i) {
    m_tty[i] = o.m_tty[i];
  }
  o.m_saved.reset();
}

TerminalRelay::~TerminalRelay() {
  if (m_saved) {
    ::tcsetattr(0, TCSADRAIN, &*m_saved); // exactly as it was
    // What the terminal sent for the agent and it did not read (answers to its queries,
    // keys typed while it ended) must not reach the person's shell as a command.
    ::tcflush(0, TCIFLUSH);
  }
}

int TerminalRelay::agent_fd(int fd) const {
  return m_tty[fd] && m_slave ? m_slave.get() : fd;
}

void TerminalRelay::close_slave() {
  m_slave.reset();
}

void TerminalRelay::enter_raw() {
  if (m_input < 0 || m_saved) {
    return;
  }
  termios t{};
  if (::tcgetattr(0, &t) != 0) {
    return;
  }
  m_saved = t;
  ::cfmakeraw(&t);
  ::tcsetattr(0, TCSADRAIN, &t);
}

void TerminalRelay::forward_size() {
  winsize ws{};
  for (int fd = 0; fd < 3; ++fd) {
    if (m_tty[fd] && ::ioctl(fd, TIOCGWINSZ, &ws) == 0) {
      ::ioctl(m_master.get(), TIOCSWINSZ, &ws);
      return;
    }
  }
}

bool TerminalRelay::pump_input() {
  char buf[4096];
  ssize_t n = ::read(m_input, buf, sizeof buf);
  if (n <= 0) {
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
      return true;
    }
    m_input = -1;
    return false;
  }
  m_pending.append(buf, static_cast<size_t>(n));
  flush_input();
  return true;
}

void TerminalRelay::flush_input() {
  while (!m_pending.empty()) {
    ssize_t n = ::write(m_master.get(), m_pending.data(), m_pending.size());
    if (n <= 0) {
      return; // the agent is not reading: keep it for later
    }
    m_pending.erase(0, static_cast<size_t>(n));
  }
}

bool TerminalRelay::pump_output() {
  char buf[16384];
  for (;;) {
    ssize_t n = ::read(m_master.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0 && errno == EAGAIN) {
      return true;
    }
    if (n <= 0) {
      return false; // EIO: no agent process holds the terminal any more
    }
    m_scan.feed(buf, static_cast<size_t>(n));
    m_shown.clear();
    m_osc.feed(buf, static_cast<size_t>(n), m_shown);
    for (size_t done = 0; m_output >= 0 && done < m_shown.size();) {
      ssize_t w = ::write(m_output, m_shown.data() + done, m_shown.size() - done);
      if (w < 0 && errno == EINTR) {
        continue;
      }
      if (w <= 0) {
        m_output = -1; // the person's terminal is gone: keep draining, show nothing
        break;
      }
      done += static_cast<size_t>(w);
    }
  }
}

} // namespace ws
