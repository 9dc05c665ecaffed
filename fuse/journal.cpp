#include "fuse/journal.hpp"

#include "fuse/host_callers.hpp"
#include "fuse/meta_store.hpp"
#include "fuse/unique_fd.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace ws::fuse {

namespace {
constexpr const char* k_schema = R"(
CREATE TABLE IF NOT EXISTS journal(
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  time_ns INTEGER NOT NULL,
  op TEXT NOT NULL,
  path BLOB NOT NULL,
  path2 BLOB,
  pid INTEGER NOT NULL,
  uid INTEGER NOT NULL,
  comm TEXT NOT NULL,
  detail TEXT
);
CREATE INDEX IF NOT EXISTS journal_time ON journal(time_ns);
CREATE TABLE IF NOT EXISTS sessions(
  pidns INTEGER PRIMARY KEY,
  session TEXT NOT NULL,
  command TEXT,
  pid INTEGER,
  started_ns INTEGER
);
CREATE TABLE IF NOT EXISTS session_spans(
  session TEXT PRIMARY KEY,
  pidns INTEGER NOT NULL,
  command TEXT,
  pid INTEGER,
  started_ns INTEGER NOT NULL,
  ended_ns INTEGER,
  profile TEXT
);
CREATE INDEX IF NOT EXISTS session_spans_pidns ON session_spans(pidns);
)";

bool has_column(Db& db, const char* table, const char* column) {
  Stmt st(db, "SELECT count(*) FROM pragma_table_info(?1) WHERE name = ?2");
  st.bind_text(1, table).bind_text(2, column);
  return st.step() && st.int64(0) > 0;
}

/// Columns added since the first journals: the pid namespace (sessions), the thread that
/// asked and its name, how a writeback's writer was found.
constexpr const char* k_added_columns[][2] = {
    {"pidns", "INTEGER"}, {"tid", "INTEGER"}, {"thread", "TEXT"}, {"via", "TEXT"}};

void upgrade(Db& db) {
  for (const auto& [column, type] : k_added_columns) {
    if (!has_column(db, "journal", column)) {
      db.exec(("ALTER TABLE journal ADD COLUMN " + std::string(column) + " " + type).c_str());
    }
  }
  // ... and journals made before agent profiles lack the session's profile.
  if (!has_column(db, "session_spans", "profile")) {
    db.exec("ALTER TABLE session_spans ADD COLUMN profile TEXT");
  }
}

void bind_or_null(Stmt& st, int i, const std::string& text) {
  if (text.empty()) {
    st.bind_null(i);
  } else {
    st.bind_text(i, text);
  }
}
constexpr size_t k_batch_max = 1000;
constexpr auto k_flush_interval = std::chrono::milliseconds(100);
} // namespace

int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

void RangeSet::add(uint64_t start, uint64_t length) {
  uint64_t end = start + length;
  auto it = m_ranges.upper_bound(start);
  if (it != m_ranges.begin()) {
    auto prev = std::prev(it);
    if (prev->second >= start) {
      start = prev->first;
      end = std::max(end, prev->second);
      it = m_ranges.erase(prev);
    }
  }
  while (it != m_ranges.end() && it->first <= end) {
    end = std::max(end, it->second);
    it = m_ranges.erase(it);
  }
  m_ranges.emplace(start, end);
}

std::string RangeSet::str() const {
  std::string out;
  for (auto& [start, end] : m_ranges) {
    if (!out.empty()) {
      out += ',';
    }
    out += std::to_string(start) + '-' + std::to_string(end);
  }
  return out;
}

JournalWriter::JournalWriter(const std::filesystem::path& db_file)
    : m_db(db_file, Db::Mode::ReadWrite) {
  m_db.exec(k_schema);
  upgrade(m_db);
  m_thread = std::thread([this] { run(); });
}

JournalWriter::~JournalWriter() {
  {
    std::lock_guard lock(m_mutex);
    m_stop = true;
  }
  m_wake.notify_all();
  m_thread.join();
}

void JournalWriter::record(JournalEntry entry) {
  bool wake;
  {
    std::lock_guard lock(m_mutex);
    m_queue.push_back(std::move(entry));
    ++m_queued_seq;
    wake = m_queue.size() >= k_batch_max;
  }
  if (wake) {
    m_wake.notify_one();
  }
}

void JournalWriter::flush() {
  std::unique_lock lock(m_mutex);
  uint64_t target = m_queued_seq;
  m_wake.notify_one();
  m_flushed.wait(lock, [&] { return m_flushed_seq >= target || m_stop; });
}

void JournalWriter::run() {
  std::vector<JournalEntry> batch;
  std::unique_lock lock(m_mutex);
  for (;;) {
    m_wake.wait_for(lock, k_flush_interval,
                    [&] { return m_stop || m_queue.size() >= k_batch_max; });
    bool stopping = m_stop;
    batch.swap(m_queue);
    uint64_t seq = m_queued_seq;
    lock.unlock();
    if (!batch.empty()) {
      try {
        write_batch(batch);
      } catch (const std::exception&) {
        // The journal must never take the filesystem down (e.g. a full disk): the entries
        // of this batch are lost, the next batch tries again.
      }
      batch.clear();
    }
    lock.lock();
    m_flushed_seq = seq;
    m_flushed.notify_all();
    if (stopping && m_queue.empty()) {
      return;
    }
  }
}

void JournalWriter::write_batch(std::vector<JournalEntry>& batch) {
  Transaction tx(m_db);
  Stmt st(m_db, "INSERT INTO journal(time_ns, op, path, path2, pid, uid, comm, detail, pidns,"
                " tid, thread, via) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12)");
  for (auto& e : batch) {
    st.bind(1, e.time_ns).bind_text(2, e.op).bind_blob(3, e.path);
    if (e.path2.empty()) {
      st.bind_null(4);
    } else {
      st.bind_blob(4, e.path2);
    }
    st.bind(5, e.pid).bind(6, e.uid).bind_text(7, e.comm);
    bind_or_null(st, 8, e.detail);
    if (e.pidns == 0) {
      st.bind_null(9);
    } else {
      st.bind(9, static_cast<int64_t>(e.pidns));
    }
    st.bind(10, e.tid);
    bind_or_null(st, 11, e.thread);
    bind_or_null(st, 12, e.via);
    st.run();
  }
  tx.commit();
}

std::vector<JournalEntry> read_journal(const std::filesystem::path& db_file,
                                       const JournalQuery& query) {
  std::vector<JournalEntry> out;
  if (!std::filesystem::exists(db_file)) {
    return out;
  }
  Db db(db_file, Db::Mode::ReadOnly);
  bool spans = false;
  {
    Stmt st(db, "SELECT count(*) FROM sqlite_master WHERE name = 'session_spans'");
    spans = st.step() && st.int64(0) > 0;
  }
  auto column = [&](const char* name) {
    return has_column(db, "journal", name) ? std::string("j.") + name : std::string("NULL");
  };
  // A session is its pid namespace WHILE it ran: the kernel reuses namespace ids, so a
  // later session's id never claims an earlier one's writes. Its profile is shown where
  // the session record has one (older records, and sessions without a profile, do not).
  std::string session = "NULL", profile = "NULL", join;
  if (spans) {
    session = "s.session";
    if (has_column(db, "session_spans", "profile")) {
      profile = "s.profile";
    }
    join = " LEFT JOIN session_spans s ON s.rowid = (SELECT s2.rowid FROM session_spans s2 "
           "WHERE s2.pidns = j.pidns AND j.time_ns >= s2.started_ns AND (s2.ended_ns IS NULL OR "
           "j.time_ns <= s2.ended_ns) ORDER BY s2.started_ns DESC LIMIT 1)";
  }
  std::string sql = "SELECT j.id, j.time_ns, j.op, j.path, j.path2, j.pid, j.uid, j.comm, "
                    "j.detail, " +
                    column("pidns") + ", " + session + ", " + column("tid") + ", " +
                    column("thread") + ", " + column("via") + ", " + profile + " FROM journal j" +
                    join + " WHERE j.time_ns >= ?1";
  // By time, not by id: a write entry is committed when its coalescing ends but carries
  // the time it began.
  if (query.limit) {
    sql = "SELECT * FROM (" + sql +
          " ORDER BY j.time_ns DESC, j.id DESC LIMIT ?2) ORDER BY time_ns, id";
  } else {
    sql += " ORDER BY j.time_ns, j.id";
  }
  Stmt st(db, sql.c_str());
  st.bind(1, query.since_ns.value_or(0));
  if (query.limit) {
    st.bind(2, static_cast<int64_t>(*query.limit));
  }
  while (st.step()) {
    JournalEntry e;
    e.id = st.int64(0);
    e.time_ns = st.int64(1);
    e.op = st.text(2);
    e.path = st.text(3);
    e.path2 = st.text(4);
    e.pid = static_cast<int32_t>(st.int64(5));
    e.uid = static_cast<uint32_t>(st.int64(6));
    e.comm = st.text(7);
    e.detail = st.text(8);
    e.pidns = static_cast<uint64_t>(st.int64(9));
    e.session = st.text(10);
    e.tid = static_cast<int32_t>(st.int64(11));
    e.thread = st.text(12);
    e.via = st.text(13);
    e.profile = st.text(14);
    if (query.session && e.session != *query.session) {
      continue;
    }
    if (query.path && !path_within(e.path, *query.path) &&
        !(e.path2.size() && path_within(e.path2, *query.path))) {
      continue;
    }
    out.push_back(std::move(e));
  }
  return out;
}

namespace {

/// A small /proc file, up to 1 KiB ("" if it cannot be read: the thread is gone).
std::string read_proc(const char* file) {
  int fd = ::open(file, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return {};
  }
  char buf[1024];
  ssize_t n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

pid_t read_tgid(pid_t tid) {
  char file[64];
  std::snprintf(file, sizeof file, "/proc/%d/status", static_cast<int>(tid));
  int fd = ::open(file, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return 0;
  }
  char buf[512]; // Name, Umask, State, Tgid: the first lines
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) {
    return 0;
  }
  buf[n] = '\0';
  const char* t = std::strstr(buf, "\nTgid:");
  return t ? static_cast<pid_t>(std::atoi(t + 6)) : 0;
}

std::string read_comm(pid_t pid) {
  char file[64];
  std::snprintf(file, sizeof file, "/proc/%d/comm", static_cast<int>(pid));
  std::string comm = read_proc(file);
  while (!comm.empty() && comm.back() == '\n') {
    comm.pop_back();
  }
  return comm;
}

/// The thread's current name from its held /proc/TID/comm: false once the thread is gone.
bool read_name(int comm_fd, std::string& name) {
  char buf[64]; // TASK_COMM_LEN is 16
  ssize_t n = ::pread(comm_fd, buf, sizeof buf, 0);
  if (n <= 0) {
    return false; // ESRCH: the thread behind this fd exited (its tid may be someone else's now)
  }
  size_t len = static_cast<size_t>(n);
  while (len > 0 && buf[len - 1] == '\n') {
    --len;
  }
  name.assign(buf, len);
  return true;
}

} // namespace

ProcessInfo ProcessNames::info(pid_t tid) {
  if (tid <= 0) {
    return {"?", 0, 0, {}}; // the kernel named no one
  }
  std::shared_ptr<const UniqueFd> comm;
  ProcessInfo info;
  int64_t leader_read_ns = 0;
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_cache.find(tid); it != m_cache.end()) {
      comm = it->second.comm;
      info = it->second.info;
      leader_read_ns = it->second.leader_read_ns;
    }
  }
  std::string name;
  bool known = comm && read_name(comm->get(), name);
  if (!known) { // a new thread, or the cached one exited: what its life does not change
    char file[64];
    std::snprintf(file, sizeof file, "/proc/%d/comm", static_cast<int>(tid));
    comm = std::make_shared<const UniqueFd>(::open(file, O_RDONLY | O_CLOEXEC));
    info = {};
    info.tgid = *comm ? read_tgid(tid) : 0;
    info.pidns = info.tgid ? pid_namespace_of(tid).value_or(0) : 0;
    // Read through the fd opened first: it still names a live thread, so the tid was not
    // reused between the reads above.
    if (info.tgid == 0 || !read_name(comm->get(), name)) {
      std::lock_guard lock(m_mutex);
      m_cache.erase(tid);
      return {"?", 0, 0, {}}; // the thread is gone
    }
  }
  int64_t now = now_ns();
  info.thread = name;
  if (info.tgid == tid) {
    info.comm = name; // the leader itself: its name was just read
  } else if (!known || now - leader_read_ns > 2'000'000'000) {
    info.comm = read_comm(info.tgid);
    if (info.comm.empty()) {
      info.comm = "?"; // the leader exited before its threads
    }
    leader_read_ns = now;
  }
  std::lock_guard lock(m_mutex);
  if (!known && m_cache.size() >= k_max_cached) {
    m_cache.clear(); // mostly exited threads; the live ones cost one more open each
  }
  m_cache.insert_or_assign(tid, Cached{std::move(comm), info, leader_read_ns});
  return info;
}

void register_session(const std::filesystem::path& db_file, uint64_t pidns,
                      const std::string& session, const std::string& command, pid_t pid,
                      const std::string& profile) {
  Db db(db_file, Db::Mode::ReadWrite);
  db.exec(k_schema);
  upgrade(db);
  Stmt st(db, "INSERT OR REPLACE INTO session_spans(pidns, session, command, pid, started_ns,"
              " profile) VALUES(?1,?2,?3,?4,?5,?6)");
  st.bind(1, static_cast<int64_t>(pidns)).bind_text(2, session).bind_text(3, command);
  st.bind(4, static_cast<int64_t>(pid)).bind(5, now_ns());
  if (profile.empty()) {
    st.bind_null(6);
  } else {
    st.bind_text(6, profile);
  }
  st.run();
}

void end_session(const std::filesystem::path& db_file, const std::string& session) {
  Db db(db_file, Db::Mode::ReadWrite);
  db.exec(k_schema);
  Stmt st(db, "UPDATE session_spans SET ended_ns = ?1 WHERE session = ?2");
  st.bind(1, now_ns()).bind_text(2, session);
  st.run();
}

} // namespace ws::fuse
