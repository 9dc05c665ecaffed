// The daemon process: one per workspace, serving its view until it is unmounted.
#include "fuse/change_log_persist.hpp"
#include "fuse/log.hpp"
#include "fuse/overlay_fs.hpp"
#include "fuse/session.hpp"
#include "fuse/unique_fd.hpp"
#include "src/cli/build_info.hpp"
#include "src/cli/error.hpp"
#include "src/cli/logging.hpp"
#include "src/daemon/control_socket.hpp"
#include "src/daemon/daemon.hpp"
#include "src/daemon/disk_limit.hpp"

#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>

namespace ws {

namespace {

void report(int fd, const std::string& text) {
  if (fd >= 0) {
    (void)!::write(fd, text.data(), text.size());
  }
}

/// Raises the fd limit: the view keeps directory fds up to a quarter of it (fuse/dir_fds.hpp).
/// Root may raise the hard limit too, up to fs.nr_open.
void maximize_fd_limit() {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) {
    return;
  }
  if (::geteuid() == 0) {
    std::ifstream nr_open("/proc/sys/fs/nr_open");
    rlim_t max = 0;
    if (nr_open >> max && max > lim.rlim_max) {
      rlimit raised{max, max};
      if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) {
        return;
      }
    }
  }
  if (lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &lim);
  }
}

/// Answers SIGUSR1 (sent by 'ws log') by committing the journal, then writing a new value
/// to journal.flushed so the asker knows it is done.
class FlushOnSignal {
public:
  FlushOnSignal(fuse::OverlayFs& fs, std::filesystem::path marker)
      : m_thread([this, &fs, marker = std::move(marker)] {
          sigset_t set;
          sigemptyset(&set);
          sigaddset(&set, SIGUSR1);
          timespec tick{0, 200'000'000};
          while (!m_stop.load()) {
            if (sigtimedwait(&set, nullptr, &tick) == SIGUSR1) {
              fs.flush_pending_writes(0);
              fs.journal().flush();
              std::ofstream(marker) << fuse::now_ns() << "\n";
            } else {
              fs.flush_pending_writes(200'000'000); // writes without a handle, once settled
            }
          }
        }) {}
  ~FlushOnSignal() {
    m_stop = true;
    pthread_kill(m_thread.native_handle(), SIGUSR1); // wake it now, not at its next tick
    m_thread.join();
  }

private:
  std::atomic<bool> m_stop{false};
  std::thread m_thread;
};

} // namespace

int run_daemon(const DaemonArgs& args) {
  // Every thread inherits this mask, so SIGUSR1 reaches only FlushOnSignal's sigtimedwait.
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &usr1, nullptr);

  fuse::WorkspaceLayout layout{args.workspace_dir};
  fuse::UniqueFd lock(::open(layout.lock_file().c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!lock || ::flock(lock.get(), LOCK_EX | LOCK_NB) != 0) {
    char buf[32] = {};
    if (lock) {
      (void)!::pread(lock.get(), buf, sizeof buf - 1, 0);
    }
    std::string pid(buf);
    report(args.ready_fd, "workspace is already served by another daemon (pid " +
                              pid.substr(0, pid.find('\n')) + ")\n");
    return 1;
  }
  // The pid, then this build: a ws rebuilt or upgraded meanwhile tells the person that this
  // daemon is not its own (warn_if_other_build). One write, so a reader sees both or none.
  std::string record = std::to_string(::getpid()) + "\n" + build_identity() + "\n";
  (void)!::ftruncate(lock.get(), 0);
  (void)!::pwrite(lock.get(), record.data(), record.size(), 0);

  try {
    setup_daemon_logging(layout.log_file(), args.foreground, args.debug);
    maximize_fd_limit();
    fuse::OverlayFs fs(args.lower, layout, fuse::OverlayOptions{});
    apply_start_disk_limit(args, layout.upper(), fs.disk());
    fuse::MountOptions mopts;
    mopts.allow_other = ::geteuid() == 0;
    mopts.debug = args.debug;
    if (const char* threads = std::getenv("WS_FUSE_THREADS")) { // tuning knob, see benchmarks.md
      mopts.max_threads = static_cast<unsigned>(std::max(1, std::atoi(threads)));
    }
    // Before the view serves: the real tree watched whole for git's fsmonitor, and its record
    // continued from the last clean unmount.
    fuse::ChangeLogKeeper keeper(fs.changes(), args.lower,
                                 fuse::ChangeLogKeeper::file_in(layout.dir));
    keeper.start();
    fuse::FuseSession session(fs, args.mountpoint, mopts);
    FlushOnSignal flusher(fs, layout.dir / "journal.flushed");
    // After the session: it stops (and finishes any edit, whose invalidations go through
    // the session) before the session unmounts.
    ControlServer control(layout.dir, workspace_requests(fs, layout.dir), &fs.writes());
    spdlog::info("serving {} at {} (pid {})", args.lower.string(), args.mountpoint.string(),
                 ::getpid());
    report(args.ready_fd, "ok\n");
    if (args.ready_fd >= 0) {
      ::close(args.ready_fd);
    }
    int rc = session.run();
    if (rc == 0) {
      keeper.save([&fs] { return fs.sync_watcher(); }); // while the watchers still run
    }
    spdlog::info("view unmounted; exiting ({})", rc);
    return rc == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    std::string msg = std::string(e.what()) + "\n";
    if (const auto* err = dynamic_cast<const Error*>(&e); err && !err->hint().empty()) {
      msg += err->hint() + "\n";
    }
    report(args.ready_fd, msg);
    return 1;
  }
}

} // namespace ws
