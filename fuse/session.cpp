// The FUSE session: mount, serve with worker threads, unmount; all RAII.
#include "fuse/session.hpp"

#include "fuse/device_io.hpp"
#include "fuse/fuse_ops.hpp"
#include "fuse/log.hpp"
#include "fuse/mapped_writers.hpp"
#include "fuse/overlay_fs.hpp"
#include "fuse/request_loop.hpp"

#include <fuse_lowlevel.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ws::fuse {

struct FuseSession::Impl {
  OverlayFs* fs = nullptr;
  std::vector<std::string> arg_strings;
  std::vector<char*> argv;
  fuse_args args{};
  fuse_session* se = nullptr;
  bool handlers = false;
  bool mounted = false;

  ~Impl() {
    fs->stop_watching(); // its thread calls into the session: stop it first
    if (mounted) {
      fuse_session_unmount(se);
    }
    if (handlers) {
      fuse_remove_signal_handlers(se);
    }
    if (se) {
      fuse_session_destroy(se);
    }
  }
};

FuseSession::FuseSession(OverlayFs& fs, const std::filesystem::path& mountpoint,
                         const MountOptions& options)
    : m_impl(std::make_unique<Impl>()) {
  m_impl->fs = &fs;
  const fuse_lowlevel_ops& ops = lowlevel_ops();
  // nodev: no device node in the view ever opens (root may make them: docs/conformance.md);
  // nosuid: nothing the agent made runs with another's rights. libfuse's defaults, said.
  std::string opts = "fsname=ws,subtype=ws,default_permissions,nodev,nosuid";
  if (options.allow_other) {
    opts += ",allow_other";
  }
  m_impl->arg_strings = {"ws", "-o", opts};
  if (options.debug) {
    m_impl->arg_strings.emplace_back("-d");
  }
  for (auto& s : m_impl->arg_strings) {
    m_impl->argv.push_back(s.data());
  }
  m_impl->args = FUSE_ARGS_INIT(static_cast<int>(m_impl->argv.size()), m_impl->argv.data());
  m_impl->se = fuse_session_new(&m_impl->args, &ops, sizeof ops, &fs);
  if (!m_impl->se) {
    throw std::runtime_error("cannot create the FUSE session");
  }
  if (fuse_set_signal_handlers(m_impl->se) != 0) {
    throw std::runtime_error("cannot install signal handlers");
  }
  m_impl->handlers = true;
  if (fuse_session_mount(m_impl->se, mountpoint.c_str()) != 0) {
    throw std::runtime_error("cannot mount the view at '" + mountpoint.string() + "'");
  }
  m_impl->mounted = true;
  use_device_io(m_impl->se); // before INIT: it completes INIT's reply
  if (auto dev = mount_device(mountpoint)) {
    fs.set_view_device(*dev); // to find who maps a file whose pages the kernel writes back
  } else {
    logger().warn("the view's device is not in /proc/self/mountinfo: mmap writebacks are "
                  "attributed by the view's memory only");
  }
  m_max_threads = options.max_threads;
  fuse_session* se = m_impl->se;
  fs.start_watching({
      [se](uint64_t parent, std::string_view name) {
        fuse_lowlevel_notify_inval_entry(se, parent, name.data(), name.size());
      },
      [se](uint64_t nodeid) { fuse_lowlevel_notify_inval_inode(se, nodeid, 0, 0); },
      [se](uint64_t nodeid) { fuse_lowlevel_notify_inval_inode(se, nodeid, -1, 0); },
  });
}

FuseSession::~FuseSession() = default;

int FuseSession::run() {
  const char* loop = std::getenv("WS_FUSE_LOOP"); // "libfuse": its loop, to compare (benchmarks.md)
  if (!loop || std::string_view(loop) != "libfuse") {
    return RequestLoop(m_impl->se, m_max_threads).run();
  }
  fuse_loop_config* cfg = fuse_loop_cfg_create();
  fuse_loop_cfg_set_max_threads(cfg, m_max_threads);
  // Idle workers never exit: libfuse 3.14 corrupts its heap when a worker exits while
  // others are busy (seen here as "malloc_consolidate(): unaligned fastbin chunk").
  fuse_loop_cfg_set_idle_threads(cfg, m_max_threads);
  int rc = fuse_session_loop_mt(m_impl->se, cfg);
  fuse_loop_cfg_destroy(cfg);
  return rc;
}

} // namespace ws::fuse
