#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ws {

/// Reads the agent's output as it passes (its terminal, or its stderr through a pipe) for the
/// paths it said it could not write: "cannot touch '/etc/x': Read-only file system" (GNU
/// tools), "sh: 1: cannot create /etc/x: Read-only file system" (shells), "EROFS: read-only
/// file system, open '/x'" (node), "[Errno 30] Read-only file system: '/x'" (python). The
/// first 8 distinct paths, for the summary's guidance.
class ReadOnlyScan {
public:
  void feed(const char* data, size_t n);
  const std::vector<std::string>& paths() const { return m_paths; }

private:
  std::string m_line;
  std::vector<std::string> m_paths;
  void line_done();
};

} // namespace ws
