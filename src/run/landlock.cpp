// Landlock through the kernel's own interface (linux/landlock.h, the three system calls);
// the scope flags, and from ABI 9 the one file-system right that refuses host unix sockets.
#include "src/run/landlock.hpp"

#include <fcntl.h>
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
// ABI 9 (Linux 7.1, include/uapi/linux/landlock.h): connect()/sendmsg() to a pathname unix
// socket. Handling any file-system right makes the domain refuse reparenting renames
// (LANDLOCK_ACCESS_FS_REFER is always handled then): REFER is allowed beneath / again.
constexpr std::uint64_t k_access_fs_refer = 1ULL << 13;
constexpr std::uint64_t k_access_fs_resolve_unix = 1ULL << 16;

/// struct landlock_ruleset_attr as of ABI 6 (handled_access_fs, _net, scoped).
struct RulesetAttr {
  std::uint64_t handled_access_fs;
  std::uint64_t handled_access_net;
  std::uint64_t scoped;
};

/// The ruleset: scopes, and from ABI 9 pathname unix sockets (no socket outside the domain is
/// allowed: the sandbox has none of the host's to reach). -1 with errno on failure.
long make_ruleset(long abi, bool resolve_unix) {
  RulesetAttr attr{0, 0, k_scope_abstract_unix_socket | k_scope_signal};
  if (!resolve_unix || abi < k_landlock_abi_with_resolve_unix) {
    return ::syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
  }
  attr.handled_access_fs = k_access_fs_resolve_unix | k_access_fs_refer;
  long fd = ::syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
  if (fd < 0) {
    return fd;
  }
  int root = ::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  landlock_path_beneath_attr rule{k_access_fs_refer, root};
  long rc = root < 0 ? -1
                     : ::syscall(SYS_landlock_add_rule, static_cast<int>(fd),
                                 LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
  int err = errno;
  if (root >= 0) {
    ::close(root);
  }
  if (rc != 0) {
    ::close(static_cast<int>(fd));
    errno = err;
    return -1;
  }
  return fd;
}

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
  long fd = make_ruleset(abi, true);
  r.unix_paths = fd >= 0 && abi >= k_landlock_abi_with_resolve_unix;
  if (fd < 0 && abi >= k_landlock_abi_with_resolve_unix) {
    fd = make_ruleset(abi, false); // the scopes at least
  }
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
    r.unix_paths = false;
    return r;
  }
  r.scoped = true;
  return r;
}

} // namespace ws
