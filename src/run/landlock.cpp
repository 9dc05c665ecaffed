// Landlock through the kernel's own interface (linux/landlock.h, the three system calls);
// only the scope flags are used, so no file-system rule set is needed.
#include "src/run/landlock.hpp"

#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace ws {

namespace {

// Debian 12's headers predate ABI 6; the values are the kernel's ABI (include/uapi).
constexpr std::uint64_t k_scope_abstract_unix_socket = 1ULL << 0;
constexpr std::uint64_t k_scope_signal = 1ULL << 1;
constexpr int k_abi_with_scopes = k_landlock_abi_with_scopes;

/// struct landlock_ruleset_attr as of ABI 6 (handled_access_fs, _net, scoped).
struct RulesetAttr {
  std::uint64_t handled_access_fs;
  std::uint64_t handled_access_net;
  std::uint64_t scoped;
};

} // namespace

int landlock_abi() {
  long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi < 0 ? -errno : static_cast<int>(abi);
}

LandlockResult restrict_to_sandbox_scope() {
  LandlockResult r;
  long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 0) {
    r.why_not = std::string("Landlock unavailable: ") + std::strerror(errno);
    return r;
  }
  r.abi = static_cast<int>(abi);
  if (abi < k_abi_with_scopes) {
    r.why_not = "Landlock ABI " + std::to_string(abi) + " has no scopes (needs 6, Linux 6.12)";
    return r;
  }
  RulesetAttr attr{0, 0, k_scope_abstract_unix_socket | k_scope_signal};
  long fd = ::syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
  if (fd < 0) {
    r.why_not = std::string("landlock_create_ruleset: ") + std::strerror(errno);
    return r;
  }
  // Landlock requires no_new_privs (bwrap sets it already; this makes it explicit).
  ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  long rc = ::syscall(SYS_landlock_restrict_self, static_cast<int>(fd), 0);
  int err = errno;
  ::close(static_cast<int>(fd));
  if (rc != 0) {
    r.why_not = std::string("landlock_restrict_self: ") + std::strerror(err);
    return r;
  }
  r.scoped = true;
  return r;
}

} // namespace ws
