#pragma once

#include <cstdint>
#include <functional>
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

private:
  void run();

  Handler m_handler;
  int m_inotify = -1;
  int m_stop = -1; ///< eventfd
  std::thread m_thread;
};

} // namespace ws::fuse
