#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string_view>
#include <thread>

namespace ws::fuse {

/// Watches real-tree directories with inotify and reports every change in them to a
/// handler, on its own thread (so invalidating the kernel's caches never runs inside a FUSE
/// request, which could deadlock on the kernel's directory locks).
class LowerWatcher {
public:
  struct Event {
    int wd;
    uint32_t mask;
    std::string_view name; ///< empty for the watched directory itself
  };
  /// Called with each batch of events read at once; `overflow` when the kernel dropped
  /// events (then anything may have changed).
  using Handler = std::function<void(const Event* events, size_t count, bool overflow)>;

  explicit LowerWatcher(Handler handler);
  ~LowerWatcher();
  LowerWatcher(const LowerWatcher&) = delete;
  LowerWatcher& operator=(const LowerWatcher&) = delete;

  /// Watches the directory open at `dir_fd` (O_PATH is fine). Returns the watch
  /// descriptor, or -1 (errno set; ENOSPC when fs.inotify.max_user_watches is reached).
  int add(int dir_fd);
  void remove(int wd);
  /// Returns once every event the kernel queued before the call has been handled (so a
  /// change the person made before asking is on record), or false after `timeout_ms`.
  bool sync(int timeout_ms);

private:
  void run();

  Handler m_handler;
  int m_inotify = -1;
  int m_stop = -1; ///< eventfd
  int m_sync = -1; ///< eventfd: sync() asks for a drain
  std::mutex m_sync_mutex;
  std::condition_variable m_synced;
  uint64_t m_sync_asked = 0; ///< m_sync_mutex
  uint64_t m_sync_done = 0;  ///< m_sync_mutex
  void drain(char* buf, size_t size);
  std::thread m_thread;
};

} // namespace ws::fuse
