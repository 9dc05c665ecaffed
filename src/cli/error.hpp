#pragma once

#include <stdexcept>
#include <string>

namespace ws {

/// A failure the person can act on: what happened (with path and cause), and one line
/// saying what to do. main prints "ws: error: <what>" then "hint: <hint>" and exits 1.
class Error : public std::runtime_error {
public:
  explicit Error(const std::string& what, std::string hint = {})
      : std::runtime_error(what), m_hint(std::move(hint)) {}
  const std::string& hint() const noexcept { return m_hint; }

private:
  std::string m_hint;
};

} // namespace ws
