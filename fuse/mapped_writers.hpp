#pragma once

#include "fuse/journal.hpp"

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ws::fuse {

/// The device number of the FUSE mount at `mountpoint` (from /proc/self/mountinfo, without
/// touching the mount itself: it may not answer yet). nullopt when none is mounted there.
std::optional<dev_t> mount_device(const std::filesystem::path& mountpoint);

/// Names the process behind the writes the kernel makes on its own. The pages a process
/// dirtied through a shared writable mapping are written back with no caller (pid 0): at
/// msync(), at the close() that follows munmap(), or whenever the kernel's flusher runs.
/// The kernel says nothing of the process; the view remembers who last created, wrote,
/// truncated or read the file (a page fault of a mapping is a read), and asks, in order:
///   - /proc/PID/fd of those: does it hold the file open for writing while its pages are
///     written back (at msync() and at the close of a mapping's own fd, the mapper does)?
///   - /proc/PID/maps, of those and then of every process: who has it mapped shared and
///     writable (the flusher's writeback of a mapping whose fd was closed)?
///   - else the last of its reader and its writer (a linker creates and sizes its output
///     before it maps it).
/// Thread-safe.
class MappedWriters {
public:
  struct Writer {
    pid_t tid = 0; ///< 0: unknown
    uid_t uid = 0;
    ProcessInfo info;
    /// "open", "mapped", "last-writer", "last-reader" or "unknown" (JournalEntry::via)
    std::string via;
  };

  /// The view's device, as /proc/PID/maps shows the files mapped from it.
  void set_view_device(dev_t dev);
  /// Thread `tid` of `info`'s process (user `uid`) created, wrote or truncated the file whose
  /// view inode number is `ino`.
  void remember(uint64_t ino, pid_t tid, uid_t uid, const ProcessInfo& info);
  /// Thread `tid` read the file `ino` (a page fault of a mapping is a read). On every READ:
  /// costs a try_lock and a map update, and is skipped when another thread holds the lock.
  void remember_reader(uint64_t ino, pid_t tid);
  /// A process holding the file `ino` open for writing now (the last writer, if it is one
  /// of several), or a Writer with tid 0. Touches no process's memory map and sends the view
  /// no request: safe to call before the writeback's reply. Never throws.
  Writer holder(uint64_t ino, ProcessNames& names);
  /// Who to name for a writeback of the file `ino` that no process holds open: one mapping it
  /// shared and writable
  /// (the last writer, if it is one of several), else whichever came last of its last writer
  /// and its last reader, else nobody. Reads /proc/*/maps, which takes each process's mmap
  /// lock: call it only once the kernel has its reply (a process faulting on this file may
  /// hold that lock until then). Never throws.
  Writer attribute(uint64_t ino, ProcessNames& names);

private:
  struct Reader {
    pid_t tid = 0;
    int64_t boot_ns = 0; ///< CLOCK_BOOTTIME of the read: a thread started later is not it
  };
  struct Last {
    Writer writer; ///< tid 0: none
    int64_t written_boot_ns = 0;
    Reader reader;
  };
  std::optional<Last> last_of(uint64_t ino);
  /// The threads to look at first: the file's last reader, then its last writer.
  static std::vector<pid_t> candidates(const std::optional<Last>& last);
  /// Thread or process `pid`, named.
  static Writer named(pid_t pid, ProcessNames& names, const char* via);

  std::atomic<bool> m_have_dev{false};
  std::atomic<dev_t> m_dev{0};
  std::mutex m_mutex;
  std::unordered_map<uint64_t, Last> m_last; ///< m_mutex; bounded (cleared past 8192)
};

} // namespace ws::fuse
