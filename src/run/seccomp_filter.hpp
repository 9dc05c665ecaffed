#pragma once

#include "fuse/unique_fd.hpp"

namespace ws {

/// A sealed memfd holding a seccomp BPF program (built with libseccomp) that lets every
/// system call through except the ioctls that push input into a terminal (TIOCSTI,
/// TIOCLINUX): an agent sharing the person's terminal must not type commands into the
/// person's shell after it exits; and keyctl, add_key, request_key (EPERM): the person's
/// session keyring is out of reach; socket(AF_VSOCK) (EAFNOSUPPORT): vsock is not
/// network-namespaced, the hypervisor's and the host's vsock services stay out of reach. For
/// bwrap's --seccomp. Throws Error on failure.
fuse::UniqueFd terminal_injection_filter();

/// A sealed memfd holding the seccomp BPF program that the sandbox's pid 1 loads on the
/// agent (socket_supervisor.hpp), with a listener: connect(), sendto() with an address,
/// sendmsg() and sendmmsg() (whose address lies in memory, where BPF cannot look) wait for
/// pid 1, which performs them itself with its own copy of the address and refuses pathname
/// unix sockets made outside the sandbox. Also refuses what would step around it: io_uring
/// (its connect and sendmsg never pass through seccomp; ENOSYS, as where it is compiled out)
/// and a seccomp listener of the agent's own (EPERM: the kernel gives a notification to the
/// newest listener only, whose "continue" would skip ws's). Throws Error on failure.
fuse::UniqueFd socket_supervision_filter();

} // namespace ws
