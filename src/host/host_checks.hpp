#pragma once

#include <string>
#include <vector>

namespace ws {

/// One precondition of ws on this machine, as `ws doctor` reports it.
struct HostCheck {
  enum class Status { Ok, Warn, Fail, NotNeeded };
  std::string name;      ///< "FUSE device"
  std::string needed_by; ///< "ws mount", "ws run", "every command"
  Status status = Status::Ok;
  std::string detail; ///< what was found ("/dev/fuse: crw-rw-rw- root")
  std::string fix;    ///< the exact command(s) that fix it; empty when nothing is to fix
};

/// Checks every precondition: FUSE (device, fusermount3, user_allow_other, a trial mount),
/// unprivileged user namespaces, bubblewrap (found, trusted, builds a sandbox), slirp4netns
/// and /dev/net/tun, Landlock, the state and runtime directories and the free disk space.
/// Runs programs and a trial mount; takes well under a second on a working machine.
std::vector<HostCheck> check_host();

const char* status_name(HostCheck::Status s);

/// What `ws version` reports beyond the build: the features found at run time, one line
/// each ("libfuse 3.14.0, kernel FUSE protocol 7.41").
std::vector<std::string> runtime_features();

} // namespace ws
