#pragma once

#include <string>
#include <vector>

namespace ws {

/// What Landlock could do on this kernel, for `ws run`'s report (docs/run.md).
struct LandlockResult {
  int abi = 0;             ///< the kernel's Landlock ABI version; 0: none
  bool writes = false;     ///< files open for writing only beneath the writable places (ABI 2+)
  bool scoped = false;     ///< abstract unix sockets and signals are scoped to the sandbox
  bool unix_paths = false; ///< pathname unix sockets made outside the sandbox are refused too
  std::string why_not;     ///< what could not be done, and why
};

/// The first Landlock ABI with scopes (Linux 6.12).
constexpr int k_landlock_abi_with_scopes = 6;

/// The first Landlock ABI that can refuse connect() to a pathname unix socket
/// (LANDLOCK_ACCESS_FS_RESOLVE_UNIX, Linux 7.1): every host socket, by whatever path, bound
/// in whatever network namespace, not only those ws found in /proc/net/unix.
constexpr int k_landlock_abi_with_resolve_unix = 9;

/// The kernel's Landlock ABI version, or -errno when Landlock is unavailable (`ws doctor`,
/// `ws version`).
int landlock_abi();

/// Restricts the calling process and every process it starts afterwards. ABI 2+: a file can
/// be opened for writing only beneath `writable` (inside paths: the view, the private tmpfs,
/// --writable, /dev, /proc) and the files of fds 0-2: a host FIFO or device node elsewhere,
/// which a read-only mount does not protect, cannot be opened for writing (EACCES; EROFS
/// still comes first for regular files on read-only mounts). ABI 6+ (scopes): no connection
/// to an abstract unix socket created outside the sandbox, no signal to a process outside it.
/// ABI 9+: no connection to a pathname unix socket created outside the sandbox either
/// (sockets the agent creates stay usable: the kernel allows its own domain's). A second wall
/// behind the mounts and namespaces. Never throws: an older kernel gets what it can do.
LandlockResult restrict_sandbox(const std::vector<std::string>& writable);

} // namespace ws
