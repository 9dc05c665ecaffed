// The paths an agent's output says were read-only (read_only_scan.hpp).
#include "src/run/read_only_scan.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace ws {

namespace {

/// A path in quotes: '/x', "/x", ‘/x’ (GNU tools in a UTF-8 locale).
std::string quoted_path(std::string_view line) {
  static const std::pair<std::string_view, std::string_view> quotes[] = {
      {"'", "'"}, {"\"", "\""}, {"\u2018", "\u2019"}};
  for (const auto& [open, close] : quotes) {
    size_t at = line.find(std::string(open) + "/");
    size_t end = at == std::string_view::npos ? at : line.find(close, at + open.size());
    if (end != std::string_view::npos) {
      return std::string(line.substr(at + open.size(), end - at - open.size()));
    }
  }
  return {};
}

/// The last word starting with '/' before the message (shells: "cannot create /x: ...").
std::string bare_path(std::string_view before) {
  std::string found;
  size_t i = 0;
  while (i < before.size()) {
    size_t end = before.find(' ', i);
    std::string_view word = before.substr(i, end == std::string_view::npos ? end : end - i);
    while (!word.empty() && (word.back() == ':' || word.back() == ',')) {
      word.remove_suffix(1);
    }
    if (word.size() > 1 && word.front() == '/') {
      found = word;
    }
    if (end == std::string_view::npos) {
      break;
    }
    i = end + 1;
  }
  return found;
}

} // namespace

void ReadOnlyScan::feed(const char* data, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (data[i] != '\n' && data[i] != '\r' && m_line.size() < 4096) {
      m_line += data[i];
    } else if (data[i] == '\n' || data[i] == '\r') {
      line_done();
    }
  }
}

void ReadOnlyScan::line_done() {
  std::string lower = m_line;
  for (auto& c : lower) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  size_t at = lower.find("read-only file system");
  if (at != std::string::npos && m_paths.size() < 8) {
    std::string path = quoted_path(m_line);
    if (path.empty()) {
      path = bare_path(std::string_view(m_line).substr(0, at));
    }
    if (!path.empty() && std::find(m_paths.begin(), m_paths.end(), path) == m_paths.end()) {
      m_paths.push_back(path);
    }
  }
  m_line.clear();
}

} // namespace ws
