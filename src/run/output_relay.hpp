#pragma once

#include "fuse/unique_fd.hpp"
#include "src/run/read_only_scan.hpp"

#include <optional>

namespace ws {

/// The agent's stderr when it is no terminal (a file, a pipe, a CI log): a pipe ws run reads
/// and copies to its own stderr, byte for byte, scanning it as the terminal relay scans a
/// terminal (read_only_scan.hpp), so the summary can name what the agent could not write
/// whether or not a person watches. When stdout is the same file as stderr (`2>&1`), both go
/// through the one pipe, in the order the agent wrote them. The agent sees a pipe where it
/// would have seen the file; a reader that goes away gives it EPIPE as it would have.
class OutputRelay {
public:
  /// A relay if fd 2 is open and no terminal; nullopt otherwise. Throws Error if the pipe
  /// cannot be made.
  static std::optional<OutputRelay> open_if_not_terminal();

  /// The fds the agent gets it as (2, and 1 if stdout shares stderr's file).
  bool takes(int fd) const { return fd == 2 || (fd == 1 && m_with_stdout); }
  /// The write end, for the agent (dup2 it over the fds it takes, before exec).
  int agent_end() const { return m_write.get(); }
  /// Closes ws run's copy of the write end (after the sandbox has its own).
  void close_agent_end() { m_write.reset(); }
  /// The read end to poll, or -1 once the agent's side is closed.
  int fd() const { return m_read ? m_read.get() : -1; }
  /// Copies what is there to ws run's stderr. False at end of file.
  bool pump();
  /// Everything left, until every writer is gone (after the sandbox ended).
  void drain();
  const std::vector<std::string>& read_only_failures() const { return m_scan.paths(); }

private:
  OutputRelay() = default;
  fuse::UniqueFd m_read, m_write;
  bool m_with_stdout = false;
  bool m_output_gone = false;
  ReadOnlyScan m_scan;
};

} // namespace ws
