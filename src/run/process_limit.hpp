#pragma once

#include <string>

namespace ws {

/// A limit on the number of processes of one session, so a fork bomb ends in EAGAIN inside
/// the sandbox and never takes the daemon or the machine with it. As a normal user the
/// sandbox's pid 1 sets RLIMIT_NPROC (counted per user namespace since Linux 5.14); root is
/// exempt from RLIMIT_NPROC, so as root the session gets a pids cgroup (v2, else v1) made
/// here and removed by the destructor. Without one, the session runs unlimited (said once
/// with -v).
class ProcessLimit {
public:
  explicit ProcessLimit(long max_procs);
  ~ProcessLimit();
  ProcessLimit(const ProcessLimit&) = delete;
  ProcessLimit& operator=(const ProcessLimit&) = delete;

  /// In the child about to exec bwrap: moves itself into the cgroup (async-signal-safe).
  void join_self() const;

private:
  std::string m_cgroup; ///< the cgroup's directory, or empty
  std::string m_procs;  ///< its cgroup.procs
};

} // namespace ws
