#pragma once

#include "fuse/unique_fd.hpp"

#include <sys/types.h>

#include <cstdint>

namespace ws::network {

/// Sockets that live in the sandbox's private network namespace but are held by `ws run`
/// outside it: the bridge between the agent and the proxy. A short-lived child of ws run
/// joins the namespace (through the user namespace that owns it, as slirp4netns does, so a
/// normal user needs no privilege), makes the sockets there, hands them back over a socket
/// pair and exits. Nothing of the proxy is inside the sandbox: no process the agent could
/// signal or trace, no socket file it could connect to, no fd it inherits; it sees a
/// listener on its own loopback, and every byte through it goes to ws's proxy.
struct NamespaceSockets {
  fuse::UniqueFd proxy; ///< TCP, listening on 127.0.0.1:`proxy_port`, non-blocking
  fuse::UniqueFd dns;   ///< UDP, bound to 127.0.0.1:53, non-blocking (if asked for)
};

/// Makes them in the network namespace of `pid` (a host pid of the sandbox). Throws
/// ws::Error saying what failed.
NamespaceSockets open_in_network_of(pid_t pid, uint16_t proxy_port, bool dns);

} // namespace ws::network
