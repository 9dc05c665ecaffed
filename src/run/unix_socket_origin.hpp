#pragma once

#include <sys/types.h>

namespace ws {

/// Whether a unix socket bound in the caller's network namespace has its file at (`dev`,
/// `ino`) (st_dev and st_ino of the socket file). Inside the sandbox's private network
/// namespace that means: bound by a process of the sandbox. A host service's socket (by a
/// relative path, in another namespace, or made after the session started) is not listed.
/// The kernel's own list (NETLINK_SOCK_DIAG, UDIAG_SHOW_VFS), asked afresh each time.
/// Returns 1 (bound here), 0 (not), or -errno when the kernel could not be asked.
int unix_socket_bound_here(dev_t dev, ino_t ino);

} // namespace ws
