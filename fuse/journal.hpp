#pragma once

#include "fuse/sqlite.hpp"
#include "fuse/unique_fd.hpp"

#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace ws::fuse {

/// One mutating operation the view served.
struct JournalEntry {
  int64_t id = 0;      ///< assigned by the database, increasing
  int64_t time_ns = 0; ///< CLOCK_REALTIME
  std::string op;      ///< "write", "create", "unlink", "rename", ...
  std::string path;    ///< workspace-relative, raw bytes
  std::string path2;   ///< rename/link target
  int32_t pid = 0;     ///< the process (thread group) that asked; 0 when unknown
  uint32_t uid = 0;
  std::string comm;   ///< the process's command name: its thread group leader's /proc/PID/comm
  std::string detail; ///< writes: coalesced byte ranges "0-4096,8192-8200" (half-open)
  /// Inode of the writer's pid namespace: every `ws run` session has its own, so this says
  /// which session wrote, and a process cannot forge it. 0 when unknown.
  uint64_t pidns = 0;
  std::string session; ///< read back: the `ws run` session of `pidns` (empty outside one)
  int32_t tid = 0;     ///< the thread that asked (the kernel names threads, not processes)
  std::string thread;  ///< that thread's own name ("tokio-rt-worker", "Bun Pool 0")
  /// How the writer was found when the kernel named none (a shared mapping's pages written
  /// back): "" it named it; "mapped": `pid` has the file mapped shared and writable;
  /// "last-writer": `pid` last created, wrote or truncated it through the view; "unknown".
  std::string via;
  std::string profile; ///< read back: the agent profile the session ran with, where recorded
};

/// Records that `ws run` session `session` runs in pid namespace `pidns` from now on (before
/// its agent starts): its processes' journal entries name it until end_session.
/// `profile`: the agent profile the session runs under (src/profile; empty: none), kept in
/// session_spans.profile for `ws log` to show.
void register_session(const std::filesystem::path& db_file, uint64_t pidns,
                      const std::string& session, const std::string& command, pid_t pid,
                      const std::string& profile = {});

/// Records that session `session` ended: its pid namespace's id may be reused from now on,
/// and writes after this moment are never its.
void end_session(const std::filesystem::path& db_file, const std::string& session);

/// Coalesces written byte ranges of one open file: [start, end) intervals, merged when
/// they touch or overlap.
class RangeSet {
public:
  void add(uint64_t start, uint64_t length);
  bool empty() const { return m_ranges.empty(); }
  size_t size() const { return m_ranges.size(); }
  std::string str() const;
  void clear() { m_ranges.clear(); }

private:
  std::map<uint64_t, uint64_t> m_ranges; // start -> end
};

/// Append-only, crash-safe journal (`journal.db`). record() only queues; a flusher thread
/// commits a batch every 100 ms (or at 1,000 entries) in one transaction. kill -9 loses at
/// most the queued batch; SQLite's WAL keeps every committed batch intact. Thread-safe.
class JournalWriter {
public:
  explicit JournalWriter(const std::filesystem::path& db_file);
  ~JournalWriter();
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;

  void record(JournalEntry entry);
  /// Commits everything queued so far before returning.
  void flush();

private:
  void run();
  void write_batch(std::vector<JournalEntry>& batch);

  Db m_db;
  std::mutex m_mutex; // guards m_queue, m_stop, m_flushed_seq, m_queued_seq
  std::condition_variable m_wake;
  std::condition_variable m_flushed;
  std::vector<JournalEntry> m_queue;
  uint64_t m_queued_seq = 0;
  uint64_t m_flushed_seq = 0;
  bool m_stop = false;
  std::thread m_thread;
};

struct JournalQuery {
  std::optional<int64_t> since_ns;
  std::optional<std::string> path;    ///< this path or anything below it (either path of a rename)
  std::optional<size_t> limit;        ///< the newest N
  std::optional<std::string> session; ///< only this `ws run` session's entries
};

/// Reads the journal, oldest first. A missing journal reads as empty.
std::vector<JournalEntry> read_journal(const std::filesystem::path& db_file,
                                       const JournalQuery& query);

/// What the journal says about the thread that asked: its process and their names.
struct ProcessInfo {
  std::string comm;   ///< the process's command (its thread group leader's name)
  uint64_t pidns = 0; ///< the pid namespace's inode number
  pid_t tgid = 0;     ///< the process; 0 when unknown
  std::string thread; ///< the thread's own name
};

/// Names the thread a FUSE request comes from (the kernel gives its tid) by its process:
/// the thread group and its leader's command, and the pid namespace. What cannot change in a
/// thread's life (its thread group, its pid namespace) is read once and cached by tid, with an
/// open /proc/TID/comm: every call reads the thread's current name through it (exec renames)
/// with one pread, which fails once that thread has exited, so a reused tid is never named by
/// its previous owner. The leader's name is read again after 2 s (a process may rename itself).
class ProcessNames {
public:
  std::string name(pid_t tid) { return info(tid).comm; }
  ProcessInfo info(pid_t tid);

private:
  static constexpr size_t k_max_cached = 256; ///< open fds held, at most
  struct Cached {
    std::shared_ptr<const UniqueFd> comm; ///< /proc/TID/comm of the thread this entry names
    ProcessInfo info;
    int64_t leader_read_ns = 0;
  };
  std::mutex m_mutex;
  std::map<pid_t, Cached> m_cache;
};

int64_t now_ns();

} // namespace ws::fuse
