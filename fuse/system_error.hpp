#pragma once

#include <cerrno>
#include <string>
#include <string_view>
#include <system_error>

namespace ws {

/// A failed system call: errno plus what we were doing and on which path, e.g.
/// "copy-up 'src/a b.c': write: No space left on device". The FUSE trampolines map it
/// back to its errno; the CLI prints what().
class SystemError : public std::system_error {
public:
  SystemError(int err, const std::string& what)
      : std::system_error(err, std::generic_category(), what) {}
  int err() const noexcept { return code().value(); }
};

/// Throws SystemError for the current errno: "<op> '<path>'".
[[noreturn]] inline void throw_errno(std::string_view op, std::string_view path = {}) {
  int err = errno;
  std::string what(op);
  if (!path.empty()) {
    what += " '";
    what += path;
    what += "'";
  }
  throw SystemError(err, what);
}

} // namespace ws
