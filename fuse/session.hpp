#pragma once

#include "fuse/overlay_fs.hpp"

#include <filesystem>
#include <functional>
#include <memory>
#include <string>

namespace ws::fuse {

struct MountOptions {
  bool allow_other = false; ///< others may enter the view (root daemons serving other users)
  bool debug = false;       ///< libfuse request tracing to stderr
  /// FUSE worker threads. More than a few costs more in context switches than it gains on
  /// small machines (docs/benchmarks.md); WS_FUSE_THREADS overrides it.
  unsigned max_threads = 4;
};

/// A mounted view: the fuse_session, its signal handlers and the mount, set up in
/// construction order and undone in reverse (passthrough_hp's goto chain, as RAII).
class FuseSession {
public:
  FuseSession(OverlayFs& fs, const std::filesystem::path& mountpoint, const MountOptions& options);
  ~FuseSession();
  FuseSession(const FuseSession&) = delete;
  FuseSession& operator=(const FuseSession&) = delete;

  /// Serves requests until the view is unmounted or a signal (SIGTERM, SIGINT, SIGHUP)
  /// arrives. Returns 0 on a clean end.
  int run();

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
  unsigned m_max_threads = 16;
};

} // namespace ws::fuse
