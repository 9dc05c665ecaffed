#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>

namespace ws::fuse {

/// The inode number of the pid namespace of process (or thread) `pid`, as stat() of
/// /proc/PID/ns/pid gives it; nullopt when it cannot be read (gone, pid 0, not ours to see).
std::optional<uint64_t> pid_namespace_of(pid_t pid);

/// Tells the person's processes from the agent's. Every `ws run` session runs in a pid
/// namespace of its own, so a caller in the daemon's own pid namespace is the person's (a
/// "host" process, unconfined), and one anywhere else is the agent's. A caller whose
/// namespace cannot be read counts as the person's: that side gets the guarded view.
///
/// Nothing is cached: a FUSE caller waits for its reply, so its pid cannot be reused while
/// the request is served and /proc tells the truth; a cache keyed by pid could outlive the
/// process and hand its verdict to whoever gets the pid next. Asked only for the few
/// requests that touch git-sensitive paths. Thread-safe (immutable).
class HostCallers {
public:
  HostCallers();
  bool is_host(pid_t pid) const;
  /// Strictly: the caller is known to be in the daemon's own pid namespace (outside every
  /// `ws run` session). A caller whose namespace cannot be read is not.
  bool surely_host(pid_t pid) const;

private:
  uint64_t m_own = 0; ///< the daemon's pid namespace
};

} // namespace ws::fuse
