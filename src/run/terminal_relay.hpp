#pragma once

#include "fuse/unique_fd.hpp"
#include "src/run/osc_filter.hpp"
#include "src/run/read_only_scan.hpp"

#include <termios.h>

#include <optional>
#include <string>
#include <vector>

namespace ws {

/// The agent's own pseudo-terminal (when the person's stdin, stdout or stderr is a
/// terminal). The agent gets the pty's slave as its terminal and controlling terminal;
/// `ws run` relays bytes between the person's terminal and the pty's master and forwards
/// window sizes. Nothing the agent does to its terminal (job control, TIOCSTI, taking the
/// foreground, reading after ws run ends) reaches the person's. The person's terminal is
/// put in raw mode while the relay runs and restored exactly, whatever happens (destructor).
/// Used by one thread: ws run's supervising loop.
class TerminalRelay {
public:
  /// A relay if any of fds 0, 1, 2 is a terminal; nullopt otherwise (the agent then gets
  /// ws run's own fds, which are no terminal). Throws Error if the pty cannot be made.
  static std::optional<TerminalRelay> open_if_terminal();
  TerminalRelay(TerminalRelay&&) noexcept;
  TerminalRelay& operator=(TerminalRelay&&) = delete;
  ~TerminalRelay();

  /// The fd to give the agent in place of `fd` (0, 1 or 2): the slave if `fd` is the
  /// person's terminal, else `fd` itself.
  int agent_fd(int fd) const;
  /// Closes ws run's copy of the slave (after the sandbox has its own), so the master sees
  /// EOF when the last agent process lets go.
  void close_slave();
  /// Raw mode on the person's terminal (if stdin is one).
  void enter_raw();
  /// Copies the person's window size to the pty (the kernel signals the agent).
  void forward_size();

  int master() const { return m_master.get(); }
  /// The person's fd to read keystrokes from, or -1.
  int input() const { return m_input; }
  /// Relays what the person typed to the pty (buffered: never blocks ws run). False at EOF.
  bool pump_input();
  /// Relays what the agent wrote to the person's terminal. False when the pty is closed.
  bool pump_output();
  /// True if typed bytes wait for the pty to take them (poll the master for POLLOUT).
  bool input_pending() const { return !m_pending.empty(); }
  /// Writes pending input the pty can take now.
  void flush_input();
  /// Paths the agent's output said it could not write ("Read-only file system: '/x'"),
  /// first 8, for the summary's guidance.
  const std::vector<std::string>& read_only_failures() const { return m_scan.paths(); }

private:
  TerminalRelay() = default;
  fuse::UniqueFd m_master;
  fuse::UniqueFd m_slave;
  bool m_tty[3] = {false, false, false};
  int m_input = -1;  ///< 0 when stdin is a terminal
  int m_output = -1; ///< 1 or 2: where the agent's terminal output goes
  std::optional<termios> m_saved;
  std::string m_pending;
  ReadOnlyScan m_scan;
  OscFilter m_osc;     ///< no clipboard access (OSC 52) for the agent
  std::string m_shown; ///< what of one read passes the filter
};

} // namespace ws
