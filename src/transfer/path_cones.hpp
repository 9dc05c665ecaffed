#pragma once

#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace ws {

/// The names the daemon's change record lists (directories end in '/') as cones: each name
/// and everything below it, names below another listed name dropped.
class Cones {
public:
  explicit Cones(const std::vector<std::string>& names);
  /// The top names, sorted, none below another ("" is the root).
  const std::vector<std::string>& roots() const { return m_roots; }
  bool has_root() const { return m_set.count("") > 0; }
  /// `path` is a root or below one: one lookup per ancestor.
  bool covers(std::string_view path) const;

private:
  bool below_other(std::string_view path) const;
  std::vector<std::string> m_roots;
  std::unordered_set<std::string_view> m_set;
};

} // namespace ws
