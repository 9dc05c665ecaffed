#pragma once
// The work list of a directory walk shared by several reader threads (the change scan reads
// the upper layer's directories in parallel: one thread per directory waiting on the disk).

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

namespace ws::fuse {

/// The directories of a walk not read yet, shared by the threads reading them.
class WalkQueue {
public:
  explicit WalkQueue(std::string top) { m_todo.push_back(std::move(top)); }

  /// The next directory to read; false when every directory was read (or a reader failed).
  bool take(std::string& dir) {
    std::unique_lock lock(m_mutex);
    m_wake.wait(lock, [&] { return !m_todo.empty() || m_busy == 0 || m_error; });
    if (m_error || m_todo.empty()) {
      return false;
    }
    dir = std::move(m_todo.back());
    m_todo.pop_back();
    ++m_busy;
    return true;
  }

  /// The directory taken last by this reader was read; `found` its subdirectories.
  void done(std::vector<std::string>& found) {
    {
      std::lock_guard lock(m_mutex);
      for (auto& d : found) {
        m_todo.push_back(std::move(d));
      }
      --m_busy;
    }
    found.clear();
    m_wake.notify_all();
  }

  void fail(std::exception_ptr e) {
    {
      std::lock_guard lock(m_mutex);
      if (!m_error) {
        m_error = std::move(e);
      }
    }
    m_wake.notify_all();
  }

  /// Rethrows what a reader failed with.
  void check() const {
    if (m_error) {
      std::rethrow_exception(m_error);
    }
  }

private:
  std::mutex m_mutex;
  std::condition_variable m_wake;
  std::vector<std::string> m_todo;
  size_t m_busy = 0;
  std::exception_ptr m_error;
};

} // namespace ws::fuse
