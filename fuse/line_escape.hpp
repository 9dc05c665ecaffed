#pragma once

// One value a line in the workspace's text files (checkpoints/N/info, the change tracker):
// `\` and newline escaped, so any path or message stays on its line.

#include <string>
#include <string_view>

namespace ws::fuse {

/// `s` with `\` written `\\` and newline `\n`.
inline std::string escape_line(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

/// What escape_line() was given.
inline std::string unescape_line(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      out += s[++i] == 'n' ? '\n' : s[i];
    } else {
      out += s[i];
    }
  }
  return out;
}

} // namespace ws::fuse
