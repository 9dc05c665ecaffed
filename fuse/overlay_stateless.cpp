// Files without open handles. Where the kernel supports it, the view answers OPEN and
// OPENDIR with ENOSYS: the kernel then sends no OPEN, RELEASE, OPENDIR or RELEASEDIR at all,
// which halves the round trips of every open()/close() (the main cost of rg, compilers and
// git on FUSE). Each READ/WRITE then resolves its node; copy-up happens at the first write.
#include "fuse/log.hpp"
#include "fuse/overlay_fs.hpp"
#include "fuse/system_error.hpp"
#include "fuse/upper_modes.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ws::fuse {

namespace {
// A (file, process) pair's writes are journaled as one entry once they are this old.
constexpr int64_t k_pending_age_ns = 200'000'000;
} // namespace

IoFd OverlayFs::open_for_read(Node* n) {
  std::shared_lock tree(m_tree);
  return open_stateless_locked(n, O_RDONLY);
}

IoFd OverlayFs::open_for_write(Node* n) {
  std::shared_lock tree(m_tree);
  copy_up(n);
  return open_stateless_locked(n, O_WRONLY);
}

IoFd OverlayFs::open_stateless_locked(Node* n, int accmode) {
  if (CreatedFds::Fd kept = m_created.find(n, accmode)) {
    return IoFd(std::move(kept)); // the fd that created the file: no open, no close
  }
  try {
    return IoFd(open_object_locked(n, accmode));
  } catch (const SystemError& e) {
    if (e.err() != EACCES || m_root_daemon || n->is_dir()) {
      throw;
    }
  }
  return IoFd(open_closed_file_locked(n, accmode));
}

UniqueFd OverlayFs::open_closed_file_locked(Node* n, int accmode) {
  // The kernel let this caller open the file (default_permissions checked the mode the view
  // shows): only the daemon's own access is missing. This ws never leaves an upper file
  // closed to its owner where user xattrs are kept (upper_modes.hpp); a workspace an older
  // ws wrote does hold such files, with the agent's mode on the file itself. Keep this one
  // open to the daemon for good, its mode recorded as this ws would have, never lent and
  // taken back. Where no user xattrs are kept, the open is refused as before.
  std::lock_guard lock(n->mutex);
  UniqueFd obj = open_object_locked(n, O_PATH);
  struct stat st {};
  if (::fstat(obj.get(), &st) != 0) {
    throw_errno("stat", n->name);
  }
  if (!n->on_upper.load() || st.st_uid != ::geteuid() || !S_ISREG(st.st_mode)) {
    throw SystemError(EACCES, "open '" + n->name + "'");
  }
  set_upper_file_mode(obj.get(), true, st.st_mode & 07777, n->name);
  SPDLOG_LOGGER_DEBUG(&logger(), "open({}) -> kept open to the daemon, mode {:04o} recorded",
                      n->name, st.st_mode & 07777);
  return open_object_locked(n, accmode);
}

void OverlayFs::emit_pending_locked(PendingWrite& p) {
  if (!p.ranges.empty()) {
    record(p.writer, "write", p.path, {}, p.ranges.str(), p.since_ns, p.proc, p.via); // as it began
    p.ranges.clear();
  }
}

template <class Continues>
bool OverlayFs::extend_burst(Node* n, uint64_t offset, uint64_t size, Continues continues) {
  bool mark = false;
  {
    std::lock_guard lock(m_pending_mutex);
    auto it = m_pending.find(n);
    if (it == m_pending.end() || !continues(it->second)) {
      return false;
    }
    it->second.ranges.add(offset, size); // the common case: no path, no /proc, no allocation
    uint64_t gen = m_marks.generation();
    mark = it->second.marked != gen;
    it->second.marked = gen;
  }
  if (mark) {
    // Once per checkpoint: the write landed, so the next checkpoint reads the file, at the
    // path it has now (a directory above it may have moved since the burst began).
    std::shared_lock tree(m_tree);
    m_marks.mark(path_locked(n));
  }
  return true;
}

template <class Continues>
void OverlayFs::start_burst(Node* n, uint64_t offset, uint64_t size, Continues continues,
                            PendingWrite fresh) {
  {
    std::shared_lock tree(m_tree); // m_tree before m_pending_mutex
    fresh.path = path_locked(n);
  }
  uint64_t gen = m_marks.generation(); // before marking: a take() in between marks again
  m_marks.mark(fresh.path);
  std::lock_guard lock(m_pending_mutex);
  PendingWrite& p = m_pending[n];
  if (!continues(p)) { // else another request began the burst meanwhile: it goes on
    emit_pending_locked(p);
    p = std::move(fresh);
  }
  p.ranges.add(offset, size);
  p.marked = gen;
}

void OverlayFs::note_write(const Caller& c, Node* n, uint64_t offset, uint64_t size) {
  note_written(n); // after the bytes landed: a token handed out later covers them
  int64_t now = now_ns();
  auto continues = [&](const PendingWrite& p) {
    return !p.ranges.empty() && !p.writeback && p.writer.pid == c.pid && p.ranges.size() < 64 &&
           now - p.since_ns <= k_pending_age_ns;
  };
  if (extend_burst(n, offset, size, continues)) {
    return;
  }
  // A new burst: name the file and the process once.
  ProcessInfo proc = m_process_names.info(c.pid);
  m_mapped.remember(n->ino.load(), c.pid, c.uid, proc);
  PendingWrite fresh;
  fresh.writer = c;
  fresh.proc = std::move(proc);
  fresh.since_ns = now;
  start_burst(n, offset, size, continues, std::move(fresh));
}

bool OverlayFs::continues_writeback(const PendingWrite& p, int64_t now) {
  return !p.ranges.empty() && p.writeback && p.ranges.size() < 64 &&
         now - p.since_ns <= k_pending_age_ns;
}

MappedWriters::Writer OverlayFs::writeback_holder(Node* n) {
  note_written(n); // before the reply: msync() returns with the change on record
  {
    std::lock_guard lock(m_pending_mutex);
    auto it = m_pending.find(n);
    if (it != m_pending.end() && continues_writeback(it->second, now_ns())) {
      return {}; // named when its burst began
    }
  }
  return m_mapped.holder(n->ino.load(), m_process_names);
}

void OverlayFs::note_writeback(Node* n, uint64_t offset, uint64_t size,
                               MappedWriters::Writer holder) {
  try {
    int64_t now = now_ns();
    auto continues = [&](const PendingWrite& p) { return continues_writeback(p, now); };
    if (extend_burst(n, offset, size, continues)) {
      return;
    }
    MappedWriters::Writer who =
        holder.tid > 0 ? std::move(holder) : m_mapped.attribute(n->ino.load(), m_process_names);
    PendingWrite fresh;
    fresh.writer = Caller{who.uid, 0, who.tid, 0};
    fresh.proc = std::move(who.info);
    fresh.writeback = true;
    fresh.via = std::move(who.via);
    fresh.since_ns = now;
    start_burst(n, offset, size, continues, std::move(fresh));
  } catch (const std::exception& e) {
    logger().warn("journal a writeback: {}",
                  e.what()); // the data is written; only its entry is lost
  }
}

void OverlayFs::flush_pending_of(const Node* n) {
  std::lock_guard lock(m_pending_mutex);
  if (auto it = m_pending.find(n); it != m_pending.end()) {
    emit_pending_locked(it->second);
    m_pending.erase(it);
  }
}

void OverlayFs::flush_pending_writes(int64_t age_ns) {
  int64_t now = now_ns();
  std::lock_guard lock(m_pending_mutex);
  for (auto it = m_pending.begin(); it != m_pending.end();) {
    if (age_ns == 0 || now - it->second.since_ns >= age_ns) {
      emit_pending_locked(it->second);
      it = m_pending.erase(it);
    } else {
      ++it;
    }
  }
}

std::shared_ptr<const std::vector<DirEntry>> OverlayFs::listing(Node* dir, off_t offset) {
  std::lock_guard lock(dir->listing_mutex);
  if (offset == 0 || !dir->listing) {
    dir->listing = std::make_shared<const std::vector<DirEntry>>(list_dir(dir));
  }
  return dir->listing;
}

} // namespace ws::fuse
