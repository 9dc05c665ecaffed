#pragma once

#include <string>

namespace ws {

/// What Landlock could do on this kernel, for `ws run`'s report (docs/run.md).
struct LandlockResult {
  int abi = 0;             ///< the kernel's Landlock ABI version; 0: none
  bool scoped = false;     ///< abstract unix sockets and signals are scoped to the sandbox
  bool unix_paths = false; ///< pathname unix sockets made outside the sandbox are refused too
  std::string why_not;     ///< when !scoped: the reason
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

/// Restricts the calling process and every process it starts afterwards (Landlock scopes,
/// ABI 6+): no connection to an abstract unix socket created outside the sandbox, no signal
/// to a process outside it. A second wall behind the private network and pid namespaces.
/// ABI 9+: no connection to a pathname unix socket created outside the sandbox either
/// (sockets the agent creates stay usable: the kernel allows its own domain's).
/// Never throws: an older kernel just gets no scope (the namespaces still hold).
LandlockResult restrict_to_sandbox_scope();

} // namespace ws
