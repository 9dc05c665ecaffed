#pragma once

#include <filesystem>
#include <vector>

namespace ws {

/// `p` is `dir` or lies below it (lexically: both canonical).
inline bool is_under_or_same(const std::filesystem::path& p, const std::filesystem::path& dir) {
  auto rel = p.lexically_relative(dir);
  return !rel.empty() && *rel.begin() != "..";
}

/// `p` is or lies below one of `dirs`.
inline bool under_any(const std::filesystem::path& p,
                      const std::vector<std::filesystem::path>& dirs) {
  for (const auto& d : dirs) {
    if (is_under_or_same(p, d)) {
      return true;
    }
  }
  return false;
}

} // namespace ws
