#pragma once

#include "fuse/unique_fd.hpp"

namespace ws {

/// A sealed memfd holding a seccomp BPF program (built with libseccomp) that lets every
/// system call through except the ioctls that push input into a terminal (TIOCSTI,
/// TIOCLINUX): an agent sharing the person's terminal must not type commands into the
/// person's shell after it exits; and keyctl, add_key, request_key (EPERM): the person's
/// session keyring is out of reach. For bwrap's --seccomp. Throws Error on failure.
fuse::UniqueFd terminal_injection_filter();

} // namespace ws
