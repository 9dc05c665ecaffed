#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

namespace ws {

namespace network {
class HostFence;
}

/// `--network=on`: the sandbox keeps its private network namespace (so no host loopback
/// service and no abstract unix socket of the host is reachable) and gets an outside route
/// through slirp4netns, a user-mode TCP/IP stack outside it (the same as rootless podman):
/// a tap device, 10.0.2.100/24, gateway 10.0.2.2, DNS 10.0.2.3, and connections to the
/// host's 127.0.0.1 refused (--disable-host-loopback), and every address and network of the
/// host's unreachable (network::HostFence). Owns the slirp4netns process: it ends when
/// this object is destroyed.
class UserNetwork {
public:
  /// The trusted slirp4netns (throws Error, fail closed, if there is none).
  static std::string program();
  /// Fences the host off in the network namespace of `sandbox_pid` (a host pid), attaches to
  /// its namespaces and waits until the interface is up. Throws Error (with slirp4netns's
  /// words) if it cannot.
  UserNetwork(const std::string& slirp, pid_t sandbox_pid);
  ~UserNetwork();
  UserNetwork(const UserNetwork&) = delete;
  UserNetwork& operator=(const UserNetwork&) = delete;

  /// What the sandbox's /etc/resolv.conf says.
  static constexpr const char* k_resolv_conf = "nameserver 10.0.2.3\n";

private:
  std::unique_ptr<network::HostFence> m_fence; ///< made first, gone last
  pid_t m_pid = -1;
  int m_exit_fd = -1; ///< closing it tells slirp4netns to exit
};

} // namespace ws
