// Node table, name resolution and attributes of the copy-on-write view.
#include "fuse/agent_git_seed.hpp"
#include "fuse/log.hpp"
#include "fuse/overlay_fs.hpp"
#include "fuse/system_error.hpp"
#include "fuse/upper_modes.hpp"

#include <fcntl.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>

namespace ws::fuse {

std::string proc_fd_path(int fd) {
  return "/proc/self/fd/" + std::to_string(fd);
}

Node::~Node() {
  for (int fd : {upper_fd.load(), lower_fd.load(), pinned_fd.load()}) {
    if (fd >= 0) {
      ::close(fd);
    }
  }
  for (int fd : retired_fds) {
    ::close(fd);
  }
}

namespace {

UniqueFd open_path(int dirfd, const char* name, int extra = 0) {
  return UniqueFd(::openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC | extra));
}

/// The process's umask, read without changing it (Linux 4.7+ shows it in /proc/self/status).
std::optional<mode_t> process_umask() {
  std::FILE* f = std::fopen("/proc/self/status", "re");
  if (!f) {
    return std::nullopt;
  }
  std::optional<mode_t> mask;
  char line[256];
  unsigned value = 0;
  while (std::fgets(line, sizeof line, f)) {
    if (std::sscanf(line, "Umask: %o", &value) == 1) {
      mask = static_cast<mode_t>(value);
      break;
    }
  }
  std::fclose(f);
  return mask;
}

UniqueFd open_dir_checked(const std::filesystem::path& p, int flags, const char* what) {
  UniqueFd fd(::open(p.c_str(), flags | O_DIRECTORY | O_CLOEXEC));
  if (!fd) {
    throw_errno(what, p.string());
  }
  return fd;
}

} // namespace

OverlayFs::OverlayFs(const std::filesystem::path& lower_dir, const WorkspaceLayout& layout,
                     OverlayOptions options)
    : m_lower_dir(lower_dir), m_layout(layout), m_options(options),
      m_lower_root(open_dir_checked(lower_dir, O_PATH, "open project directory")),
      m_upper_root(open_dir_checked(layout.upper(), O_PATH, "open upper layer")),
      m_work(open_dir_checked(layout.work(), O_RDONLY, "open work directory")),
      m_bases(open_dir_checked(layout.bases(), O_RDONLY, "open base store")),
      m_meta(layout.meta_db(), Db::Mode::ReadWrite), m_journal(layout.journal_db()),
      m_marks(layout.store() / "tracker") {
  struct stat lst {
  }, ust{};
  if (::fstat(m_lower_root.get(), &lst) != 0 || ::fstat(m_upper_root.get(), &ust) != 0) {
    throw_errno("stat layer roots", lower_dir.string());
  }
  m_same_dev = lst.st_dev == ust.st_dev;
  // The view's root shows the project directory's own mode, owner and times.
  std::string upper_root = proc_fd_path(m_upper_root.get());
  // (Open to the daemon whatever that mode: the view shows it, upper_modes.hpp.)
  set_upper_dir_mode(m_upper_root.get(), lst.st_mode & 07777, lower_dir.string());
  if (::geteuid() == 0) {
    (void)::fchownat(m_upper_root.get(), "", lst.st_uid, lst.st_gid, AT_EMPTY_PATH);
  }
  struct timespec times[2] = {lst.st_atim, lst.st_mtim};
  ::utimensat(AT_FDCWD, upper_root.c_str(), times, 0);
  m_root_daemon = ::geteuid() == 0;
  m_euid = ::geteuid();
  m_egid = ::getegid();
  if (std::optional<mode_t> mask = process_umask()) {
    m_umask = *mask;
    ssize_t acl = ::getxattr(upper_root.c_str(), "system.posix_acl_default", nullptr, 0);
    m_umask_applies = acl < 0 && (errno == ENODATA || errno == EOPNOTSUPP);
  }
  if (auto git = agent_git_source(m_meta)) {
    m_real_git = UniqueFd(::open(git->common_dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!m_real_git) {
      logger().warn("the real git directory {} cannot be opened ({}): the agent's git sees "
                    "only its own objects",
                    git->common_dir.string(), std::strerror(errno));
    }
  }
  m_root = std::make_unique<Node>();
  m_root->type = S_IFDIR;
  m_root->ino = lst.st_ino;
  m_root->nlookup = 1;
  m_root->generation = 0;
  m_root->upper_fd = ::fcntl(m_upper_root.get(), F_DUPFD_CLOEXEC, 0);
  m_root->lower_fd = ::fcntl(m_lower_root.get(), F_DUPFD_CLOEXEC, 0);
  std::error_code store_ec;
  std::filesystem::create_directories(layout.store(), store_ec);
  m_tracked_base = m_marks.start_serving(); // what changed before us, for the next checkpoint
  // Scratch files of an interrupted copy-up are garbage: nothing points at them.
  for (auto& e : std::filesystem::directory_iterator(layout.work())) {
    std::error_code ec;
    std::filesystem::remove_all(e.path(), ec);
  }
  // Counted while the view already serves: a 100,000-file upper/ takes a third of a second
  // to walk (docs/filesystem.md); only changes wait for it.
  m_disk.begin_count();
  m_counter = std::thread([this] {
    auto start = std::chrono::steady_clock::now();
    uint64_t total = measure_allocated(m_upper_root.get()) + measure_allocated(m_bases.get());
    m_disk.finish_count(total);
    auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start);
    logger().info("upper/ and bases/ hold {} bytes (counted in {:.1f} ms)", total, ms.count());
  });
}

int64_t OverlayFs::upper_allocated(int dir_fd, const std::string& name) {
  struct stat st {};
  if (dir_fd < 0 || ::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return 0;
  }
  // A file with other names keeps its blocks when one name goes.
  return S_ISDIR(st.st_mode) || st.st_nlink <= 1 ? static_cast<int64_t>(st.st_blocks) * 512 : 0;
}

void OverlayFs::measure_disk() {
  m_disk.wait_counted(); // the first count must not land on top of this one
  m_disk.set_used(measure_allocated(m_upper_root.get()) + measure_allocated(m_bases.get()));
}

OverlayFs::~OverlayFs() {
  if (m_counter.joinable()) {
    m_counter.join();
  }
  m_marks.stop_serving(m_tracked_base);
}

Node* OverlayFs::node(uint64_t nodeid) {
  return nodeid == 1 ? m_root.get() : reinterpret_cast<Node*>(static_cast<uintptr_t>(nodeid));
}

uint64_t OverlayFs::nodeid(const Node* n) const {
  return n == m_root.get() ? 1 : static_cast<uint64_t>(reinterpret_cast<uintptr_t>(n));
}

std::string OverlayFs::path_locked(const Node* n) const {
  // Collect names leaf to root, then join root to leaf.
  const Node* parts[256];
  size_t count = 0;
  std::vector<const Node*> deep;
  for (const Node* p = n; p && p != m_root.get(); p = p->parent) {
    if (count < 256) {
      parts[count++] = p;
    } else {
      deep.push_back(p);
    }
  }
  std::string out;
  for (auto it = deep.rbegin(); it != deep.rend(); ++it) {
    if (!out.empty()) {
      out += '/';
    }
    out += (*it)->name;
  }
  while (count > 0) {
    if (!out.empty()) {
      out += '/';
    }
    out += parts[--count]->name;
  }
  return out;
}

uint64_t OverlayFs::report_ino(const std::string& path, const struct stat& st, bool on_upper,
                               int lower_dir_fd) {
  if (!on_upper) {
    return st.st_ino;
  }
  if (S_ISDIR(st.st_mode) && lower_dir_fd >= 0) {
    struct stat lst {};
    if (::fstat(lower_dir_fd, &lst) == 0) {
      return lst.st_ino;
    }
  }
  if (auto m = m_meta.get(path); m && m->origin) {
    return m->origin->ino;
  }
  return upper_ino(st.st_ino);
}

OverlayFs::Found OverlayFs::resolve_locked(Node* parent, std::string_view name,
                                           const std::string& path) {
  std::optional<Found> f = try_resolve_locked(parent, name, path);
  if (!f) {
    throw SystemError(ENOENT, "lookup '" + path + "'");
  }
  return std::move(*f);
}

std::optional<OverlayFs::Found>
OverlayFs::try_resolve_locked(Node* parent, std::string_view name_view, const std::string& path) {
  // A miss is the common case of every create (LOOKUP, then MKNOD): no exception for it.
  std::string name(name_view);
  Found f;
  int pu = parent->upper_fd.load();
  int pl = parent->lower_fd.load();
  bool lower_ok = pl >= 0 && !m_meta.is_whiteout(path);
  if (pu >= 0 && ::fstatat(pu, name.c_str(), &f.st, AT_SYMLINK_NOFOLLOW) == 0) {
    f.on_upper = true;
    if (S_ISDIR(f.st.st_mode)) {
      f.upper = open_path(pu, name.c_str(), O_DIRECTORY);
      if (!f.upper) {
        throw_errno("lookup (upper)", path);
      }
      // An upper directory merges the lower one of the same name unless it is opaque. Below
      // the agent's shared git directories it always does: objects are named by their
      // content, and a fan-out directory the agent's git made first (.git/objects/ab) must
      // still show the person's objects written there later (ws sync's commits need them).
      if (lower_ok && (!m_meta.is_opaque(path) || below_shared_git_dir(path))) {
        f.lower = open_path(pl, name.c_str(), O_DIRECTORY);
      } else if (m_real_git && shared_git_dir(path) && !m_meta.is_opaque(path)) {
        // The agent's .git/objects: the real repository's objects, shared read-only.
        f.lower = open_path(m_real_git.get(), name.c_str(), O_DIRECTORY);
      }
    }
    return f;
  }
  if (pu >= 0 && errno != ENOENT && errno != ENOTDIR) {
    throw_errno("lookup (upper)", path);
  }
  if (lower_ok) {
    if (::fstatat(pl, name.c_str(), &f.st, AT_SYMLINK_NOFOLLOW) == 0) {
      if (S_ISDIR(f.st.st_mode)) {
        f.lower = open_path(pl, name.c_str(), O_DIRECTORY);
        if (!f.lower) {
          throw_errno("lookup (lower)", path);
        }
      }
      return f;
    }
    if (errno != ENOENT && errno != ENOTDIR) {
      throw_errno("lookup (lower)", path);
    }
  }
  return std::nullopt;
}

int OverlayFs::object_dir_locked(const Node* n) const {
  return n->on_upper.load(std::memory_order_acquire) ? n->parent->upper_fd.load()
                                                     : n->parent->lower_fd.load();
}

UniqueFd OverlayFs::open_object_locked(const Node* n, int flags) const {
  UniqueFd fd;
  if (n->is_dir()) {
    // O_PATH: a copy of the node's own O_PATH fd. Opening "." through it would need search
    // permission on the directory, which its owner may have taken away: `chmod 000 d` then
    // `chmod 755 d` must work for a daemon that is not root, as on ext4.
    fd = UniqueFd((flags & O_PATH) ? ::fcntl(n->dir_fd(), F_DUPFD_CLOEXEC, 0)
                                   : ::openat(n->dir_fd(), ".", (flags & ~O_NOFOLLOW) | O_CLOEXEC));
  } else if (int pinned = n->pinned_fd.load(); pinned >= 0) {
    fd = UniqueFd((flags & O_PATH) ? ::fcntl(pinned, F_DUPFD_CLOEXEC, 0)
                                   : ::open(proc_fd_path(pinned).c_str(), flags | O_CLOEXEC));
  } else {
    fd = UniqueFd(::openat(object_dir_locked(n), n->name.c_str(), flags | O_NOFOLLOW | O_CLOEXEC));
  }
  if (!fd) {
    throw_errno("open", n->name);
  }
  return fd;
}

struct stat OverlayFs::stat_object_locked(const Node* n) const {
  struct stat st {};
  int rc;
  if (n->is_dir()) {
    rc = ::fstat(n->dir_fd(), &st);
  } else if (int pinned = n->pinned_fd.load(); pinned >= 0) {
    rc = ::fstat(pinned, &st);
  } else {
    rc = ::fstatat(object_dir_locked(n), n->name.c_str(), &st, AT_SYMLINK_NOFOLLOW);
  }
  if (rc != 0) {
    throw_errno("stat", n->name);
  }
  return st;
}

void OverlayFs::pin_locked(Node* n) {
  if (n->is_dir() || n->pinned_fd.load() >= 0) {
    return;
  }
  int fd = ::openat(object_dir_locked(n), n->name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    n->pinned_fd.store(fd, std::memory_order_release);
  }
}

Node* OverlayFs::attach_locked(Node* parent, std::string_view name, Found&& f,
                               const std::string& path) {
  std::lock_guard table(m_table);
  auto it = parent->children.find(std::string(name));
  if (it != parent->children.end()) {
    Node* existing = it->second;
    if (existing->backing_ino == f.st.st_ino && existing->backing_dev == f.st.st_dev &&
        existing->type == (f.st.st_mode & S_IFMT)) {
      if (existing->is_dir() && f.lower && existing->lower_fd.load() < 0) {
        // The agent made this directory before the real tree had it; now it does (the
        // person's `mkdir`, git writing an object into a fan-out directory the agent's git
        // made first): merged from now on, as a lookup today would find it.
        existing->lower_fd.store(f.lower.release(), std::memory_order_release);
        watch_locked(existing);
        if (m_watcher) {
          if (existing->watch.load() >= 0) {
            m_changes.unblind(path, false);
          } else {
            m_changes.blind(path);
          }
        }
      }
      ++existing->nlookup;
      return existing;
    }
    // The object behind this name was replaced (the person saved the real file anew): a
    // fresh node, so the kernel gets a fresh inode and drops what it cached of the old one.
    detach_locked(existing);
  }
  auto owned = std::make_unique<Node>();
  Node* n = owned.get();
  n->parent = parent;
  n->name = std::string(name);
  n->type = f.st.st_mode & S_IFMT;
  n->generation = m_next_generation.fetch_add(1);
  n->nlookup = 1;
  n->on_upper = f.on_upper;
  n->backing_dev = f.st.st_dev;
  n->backing_ino = f.st.st_ino;
  n->upper_fd = f.upper.release();
  n->lower_fd = f.lower.release();
  n->stable = parent->lower_fd.load() < 0 || parent->watch.load() >= 0;
  n->git_sensitive = is_git_sensitive(path, n->type);
  if (n->is_dir()) {
    watch_locked(n); // before the kernel hears of it: no change inside can be missed
    if (m_watcher && n->lower_fd.load() >= 0) {
      if (n->watch.load() >= 0) {
        m_changes.unblind(path, false);
      } else {
        m_changes.blind(path); // its changes go unseen: fsmonitor answers everything
      }
    }
  }
  parent->children.emplace(n->name, n);
  ++parent->child_refs;
  m_nodes.emplace(n, std::move(owned));
  return n;
}

Entry OverlayFs::entry_from_locked(Node* parent, std::string_view name, const std::string& path,
                                   Found&& f) {
  uint64_t ino = report_ino(path, f.st, f.on_upper, f.lower.get());
  struct stat st = f.st;
  Node* n = attach_locked(parent, name, std::move(f), path);
  n->ino = ino;
  present(n, st);
  return {n, st, timeout_for(n, st)};
}

Entry OverlayFs::lookup(const Caller& c, Node* parent, std::string_view name) {
  std::shared_lock tree(m_tree);
  if (parent->guard) {
    return guard_child_locked(parent, name);
  }
  std::string path = join_path(path_locked(parent), name);
  if (GitExposure exposure = git_exposure(path); exposure != GitExposure::none) {
    return lookup_git_locked(c, parent, name, path, exposure);
  }
  std::optional<Found> f = try_resolve_locked(parent, name, path);
  if (!f) {
    return {nullptr, {}, negative_timeout(parent)}; // the kernel remembers the miss
  }
  return entry_from_locked(parent, name, path, std::move(*f));
}

void OverlayFs::forget(Node* n, uint64_t count) {
  if (n == m_root.get()) {
    return;
  }
  std::lock_guard table(m_table);
  n->nlookup = n->nlookup > count ? n->nlookup - count : 0;
  release_locked(n);
}

void OverlayFs::release_locked(Node* n) {
  // Free this node and any ancestors that were kept only as its path.
  while (n && n != m_root.get() && n->nlookup == 0 && n->child_refs == 0) {
    Node* parent = n->parent;
    if (!n->unlinked) {
      auto& siblings = n->guard && !parent->guard ? parent->guards : parent->children;
      auto it = siblings.find(n->name);
      if (it != siblings.end() && it->second == n) {
        siblings.erase(it);
      }
    }
    --parent->child_refs;
    if (n->watch.load() >= 0 && !n->unlinked && parent->lower_fd.load() >= 0) {
      // The kernel forgot a directory the real tree still has: its changes go unseen now.
      struct stat st {};
      if (::fstatat(parent->lower_fd.load(), n->name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
          S_ISDIR(st.st_mode)) {
        m_changes.blind(path_locked(n)); // renames change parent/name under m_table too
      }
    }
    unwatch_locked(n);
    flush_pending_of(n);
    m_created.erase(n); // before the address can be reused
    m_nodes.erase(n);
    n = parent;
  }
}

void OverlayFs::detach_locked(Node* child) {
  if (!child->unlinked) {
    child->unlinked = true;
    Node* parent = child->parent;
    auto& siblings = child->guard && !parent->guard ? parent->guards : parent->children;
    auto it = siblings.find(child->name);
    if (it != siblings.end() && it->second == child) {
      siblings.erase(it);
    }
  }
  release_locked(child);
}

Entry OverlayFs::entry_for(Node* n) {
  struct stat st = getattr(n);
  return {n, st, timeout_for(n, st)};
}

void OverlayFs::present(const Node* n, struct stat& st) const {
  st.st_ino = n->ino;
  if (n->is_dir()) {
    if (int mode = shown_dir_mode(n); mode >= 0) {
      st.st_mode = (st.st_mode & S_IFMT) | static_cast<mode_t>(mode);
    }
  } else if (file_mode_marked(st.st_mode) && n->on_upper.load(std::memory_order_acquire)) {
    // Only a file the agent closed to its owner: no xattr read for any other (upper_modes.hpp).
    if (std::optional<mode_t> mode = recorded_file_mode_locked(n)) {
      st.st_mode = S_IFREG | *mode;
    }
  }
  if (n->guard) {
    st.st_mode &= ~static_cast<mode_t>(S_IWUSR | S_IWGRP | S_IWOTH); // read-only: as it behaves
  }
  if (n->is_dir() && n->upper_fd.load() >= 0 && n->lower_fd.load() >= 0) {
    st.st_nlink = 1;
    // Its listing changes with either layer: the later ctime of the two, so that what
    // checks a directory's stat for changes (git's untracked cache) sees the person's.
    struct stat lower {};
    if (::fstat(n->lower_fd.load(), &lower) == 0 &&
        (lower.st_ctim.tv_sec > st.st_ctim.tv_sec ||
         (lower.st_ctim.tv_sec == st.st_ctim.tv_sec &&
          lower.st_ctim.tv_nsec > st.st_ctim.tv_nsec))) {
      st.st_ctim = lower.st_ctim;
    }
  }
  if (n->unlinked.load()) {
    bool lower_object = n->is_dir() || !n->on_upper.load();
    if (lower_object) {
      st.st_nlink = 0; // the real tree still has it; the view does not
    }
  }
}

struct stat OverlayFs::getattr(Node* n) {
  struct stat st {};
  if (n->is_dir()) {
    if (::fstat(n->dir_fd(), &st) != 0) {
      throw_errno("getattr");
    }
  } else {
    std::shared_lock tree(m_tree);
    st = stat_object_locked(n);
  }
  present(n, st);
  return st;
}

std::string OverlayFs::readlink(Node* n) {
  std::shared_lock tree(m_tree);
  UniqueFd fd = open_object_locked(n, O_PATH);
  char buf[PATH_MAX + 1];
  ssize_t len = ::readlinkat(fd.get(), "", buf, sizeof buf - 1);
  if (len < 0) {
    throw_errno("readlink", n->name);
  }
  return std::string(buf, static_cast<size_t>(len));
}

void OverlayFs::detach_child(Node* parent, std::string_view name) {
  std::lock_guard table(m_table);
  auto it = parent->children.find(std::string(name));
  if (it != parent->children.end()) {
    detach_locked(it->second);
  }
}

ProcessInfo OverlayFs::record(const Caller& c, const char* op, std::string path, std::string path2,
                              std::string detail, int64_t time_ns, ProcessInfo proc,
                              std::string via) {
  JournalEntry e;
  e.time_ns = time_ns ? time_ns : now_ns();
  e.op = op;
  e.path = std::move(path);
  e.path2 = std::move(path2);
  if (proc.comm.empty()) {
    proc = m_process_names.info(c.pid); // the kernel names the thread: find its process
  }
  e.pid = proc.tgid ? proc.tgid : c.pid;
  e.tid = c.pid;
  e.uid = c.uid;
  e.comm = proc.comm;
  e.thread = proc.thread;
  e.pidns = proc.pidns;
  e.detail = std::move(detail);
  e.via = std::move(via);
  // Marked after the change landed (record() comes last): a checkpoint that takes the
  // marks before reading can then miss nothing (docs/checkpoints.md).
  // Writes are marked by note_write as they land; their entry comes later.
  std::string_view kind = e.op;
  bool moves = kind == "rename" || kind == "exchange" || kind == "reset";
  if (moves) {
    m_marks.mark_tree(e.path);
  } else if (kind != "write") {
    m_marks.mark(e.path);
  }
  if (moves || kind == "link") {
    if (!e.path2.empty()) {
      m_marks.mark_tree(e.path2);
    }
  }
  note_change(op, e.path, e.path2);
  m_journal.record(std::move(e));
  return proc;
}

void OverlayFs::note_change(const char* op, const std::string& path, const std::string& path2) {
  std::string_view o(op);
  if (o == "write" || o == "rename" || o == "exchange") {
    return; // noted as they happen (note_written, rename)
  }
  if (o == "reset" || o == "rebase" || o == "restore") {
    return; // edit_state says everything
  }
  m_changes.note(path, o == "mkdir" || o == "rmdir");
  if (o == "link") {
    m_changes.note(path2, false); // the new name (path is the old one)
  }
}

void OverlayFs::note_written(Node* n) {
  if (n->noted.load(std::memory_order_acquire) > m_changes.issued()) {
    return; // the next answer names it already
  }
  std::string path;
  {
    std::shared_lock tree(m_tree);
    path = path_locked(n);
  }
  uint64_t seq = m_changes.note(path, false);
  n->noted.store(seq ? seq : 0, std::memory_order_release);
}

struct statvfs OverlayFs::statfs() {
  struct statvfs sv {};
  if (::fstatvfs(m_work.get(), &sv) != 0) {
    throw_errno("statfs");
  }
  return sv;
}

} // namespace ws::fuse
