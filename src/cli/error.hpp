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

/// A failure for want of something on this machine (FUSE, fusermount3, user namespaces,
/// bubblewrap, slirp4netns, /dev/net/tun): the hint also names 'ws doctor', which checks all
/// of them and prints the fix of each.
class HostError : public Error {
public:
  static constexpr const char* k_doctor = "'ws doctor' checks everything ws needs on this machine";
  explicit HostError(const std::string& what, const std::string& hint = {})
      : Error(what, hint + (hint.empty() ? "" : "; ") + k_doctor) {}
};

} // namespace ws
