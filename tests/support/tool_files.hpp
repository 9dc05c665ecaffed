#pragma once

// For tests that plant a file and run the real tool that would load it: is the tool here, and
// writing the planted file (its directories made, executable if asked).

#include "tests/support/harness.hpp"

#include <filesystem>
#include <fstream>
#include <string>

namespace ws::test {

/// Whether `tool` is on PATH (a test that needs it says so and skips its part).
inline bool have(const std::string& tool) {
  return sh("command -v " + q(tool) + " >/dev/null 2>&1").status == 0;
}

/// Writes `text` to `p`, making its directories; `exec` makes it 0755.
inline void write_file(const std::filesystem::path& p, const std::string& text, bool exec = false) {
  namespace fs = std::filesystem;
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
  if (exec) {
    fs::permissions(p, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                           fs::perms::others_read | fs::perms::others_exec);
  }
}

} // namespace ws::test
