#pragma once

#include "fuse/change_log.hpp"
#include "fuse/created_fds.hpp"
#include "fuse/disk_usage.hpp"
#include "fuse/git_paths.hpp"
#include "fuse/host_callers.hpp"
#include "fuse/invalidation_queue.hpp"
#include "fuse/journal.hpp"
#include "fuse/layout.hpp"
#include "fuse/lower_watcher.hpp"
#include "fuse/mapped_writers.hpp"
#include "fuse/meta_store.hpp"
#include "fuse/store/change_tracker.hpp"
#include "fuse/unique_fd.hpp"
#include "fuse/write_gate.hpp"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

namespace ws::fuse {

/// Who asked: the FUSE request's caller.
struct Caller {
  uid_t uid = 0;
  gid_t gid = 0;
  pid_t pid = 0;
  mode_t umask = 0;
};

struct DirEntry;
class StateEditor;
struct StateDirs;

/// One object of the view as the kernel knows it (a FUSE nodeid is a Node*).
///
/// A node stands for a name in its parent. Only directories hold fds: an O_PATH fd on their
/// upper directory (once it exists) and on the lower directory they merge. A file, symlink
/// or special file is reached through its parent's fd and its name, so a 100,000-file tree
/// costs fds only for its directories. A non-directory that loses its name while the kernel
/// still holds it (unlinked while open, renamed over) is pinned: it keeps an O_PATH fd.
///
/// Locking (also in docs/locking.md), always in this order:
///   1. OverlayFs::m_tree (shared_mutex): parent/name of every node. Shared for any
///      operation that resolves a node to its object; exclusive for rename.
///   2. Node::mutex, descendant before ancestor: serialises copy-up of this node, and a
///      file's mode changes (record, then mark: upper_modes.hpp).
///   3. OverlayFs::m_table (mutex): nlookup, children maps, node lifetime.
/// The fd fields are atomics set once or retired, never closed while the node lives, so
/// readers need no lock. (A state edit, under the exclusive m_tree, may swap a directory's
/// upper_fd or lower_fd; the old fd is retired like any other.)
///
/// A guard node shows the person's processes the real tree's object at a git-sensitive path
/// (docs/filesystem.md, "The agent's .git and the person's git"): a directory holds only a
/// lower_fd, anything else a pinned_fd on the real object; both are read-only, and so is
/// everything below a guard directory (all guard nodes too). A guard child of an ordinary
/// directory is kept in its `guards`, apart from the agent's node of the same name.
struct Node {
  Node* parent = nullptr; ///< m_tree
  std::string name;       ///< m_tree
  /// No longer reachable by name (unlinked or replaced); written under m_table.
  std::atomic<bool> unlinked{false};

  uint64_t nlookup = 0;                            ///< m_table
  std::unordered_map<std::string, Node*> children; ///< m_table: known children by name
  std::unordered_map<std::string, Node*> guards;   ///< m_table: guard children (see above)
  uint32_t child_refs = 0; ///< m_table: live children, named or detached; they keep us alive

  std::mutex mutex;
  std::atomic<int> upper_fd{-1};     ///< directories: O_PATH on the upper directory
  std::atomic<int> lower_fd{-1};     ///< directories: O_PATH on the merged lower directory
  std::atomic<bool> on_upper{false}; ///< non-directories: the object lives in upper/
  std::atomic<int> pinned_fd{-1};    ///< non-directories without a name: O_PATH on the object
  std::vector<int> retired_fds;      ///< guarded by mutex; closed with the node
  /// Directories, without open handles: the listing readdir pages through (rebuilt at
  /// offset 0, so a listing stays stable while one reader walks it).
  std::mutex listing_mutex;
  std::shared_ptr<const std::vector<DirEntry>> listing; ///< listing_mutex
  std::atomic<int> watch{-1}; ///< inotify watch on the merged lower directory
  /// The ChangeLog number this node's name was last noted with for a write: a write after
  /// that and before the next fsmonitor token need not note it again.
  std::atomic<uint64_t> noted{0};
  /// The kernel may cache this node's entry and attributes for long: nothing can change
  /// them behind the view's back unnoticed (its parent's lower directory is watched, or
  /// it has none). Fixed at creation.
  bool stable = false;
  bool guard = false; ///< the real tree's object, for the person's processes; fixed at creation
  /// Its path is one the person's git obeys (is_git_sensitive): the kernel may cache neither
  /// its entry nor its attributes. Set when the node is made or renamed, under m_tree.
  std::atomic<bool> git_sensitive{false};

  /// Directories with an upper directory: the mode the view shows when the agent gave it
  /// one its owner could not work in (upper_modes.hpp), k_mode_unread until read from the
  /// upper directory, k_mode_real when its real mode is the one to show. Reset to
  /// k_mode_unread whenever upper_fd changes; set by chmod (compare-exchanged by readers).
  mutable std::atomic<int> shown_mode{-1};
  static constexpr int k_mode_unread = -1;
  static constexpr int k_mode_real = -2;

  mode_t type = 0; ///< S_IFMT bits
  /// st_ino reported to the kernel: stable across copy-up. Atomic: lookups and state
  /// edits set it while getattr of a directory reads it without m_tree.
  std::atomic<uint64_t> ino{0};
  uint64_t generation = 0; ///< with the nodeid, unique over the mount's life
  dev_t backing_dev = 0;   ///< identity of the object last resolved for this node, to notice
  ino_t backing_ino = 0;   ///< when the person replaces it in the real tree

  ~Node();
  bool is_dir() const { return type == S_IFDIR; }
  /// Directories: the fd to read attributes from (upper if it exists).
  int dir_fd() const {
    int u = upper_fd.load(std::memory_order_acquire);
    return u >= 0 ? u : lower_fd.load(std::memory_order_acquire);
  }
};

struct Entry {
  Node* node = nullptr;
  struct stat attr {};
  double timeout = 1.0; ///< entry and attribute cache time for the kernel
};

/// How the view tells the kernel to forget what it cached (set by FuseSession).
struct Invalidator {
  std::function<void(uint64_t parent, std::string_view name)> entry;
  std::function<void(uint64_t nodeid)> inode;
  /// Attributes only (no pages): takes no lock of the kernel's but the inode's spinlock, so
  /// a request handler may call it before it replies.
  std::function<void(uint64_t nodeid)> attributes;
};

struct DirEntry {
  std::string name;
  uint64_t ino = 0;
  unsigned char type = 0; ///< DT_*
};

/// An open file (made by CREATE, or any open where the kernel lacks stateless opens).
struct FileHandle {
  std::mutex mutex;
  UniqueFd fd;             ///< opened at open/create; fixed for the handle's life
  bool on_upper = false;   ///< fd is on the upper layer; fixed at open
  bool multi_link = false; ///< the file has other names: the kernel must not keep its pages
  UniqueFd reopened;       ///< mutex: the upper copy, if another open copied the file up later
  std::atomic<int> reopened_fd{-1};
  std::string path; ///< for the journal
};

struct DirHandle {
  std::mutex mutex;
  std::vector<DirEntry> entries; ///< snapshot taken at offset 0: stable while listing
  bool loaded = false;
};

struct OverlayOptions {
  /// Cache time for what cannot change unnoticed: the agent's own objects, and real-tree
  /// objects in watched directories (inotify tells us, and we tell the kernel).
  double long_timeout = 86400.0;
  /// Cache time for real-tree objects in directories we could not watch (watch limit): the
  /// person's edits show within this time.
  double short_timeout = 1.0;
};

/// The copy-on-write view: lower = the real project (only read), upper = the workspace's
/// private tree. Every method takes the calling node(s) and throws SystemError with the
/// errno the kernel should see. Thread-safe (see Node for the lock order).
class OverlayFs {
public:
  OverlayFs(const std::filesystem::path& lower_dir, const WorkspaceLayout& layout,
            OverlayOptions options);
  ~OverlayFs();
  OverlayFs(const OverlayFs&) = delete;
  OverlayFs& operator=(const OverlayFs&) = delete;

  Node* root() { return m_root.get(); }
  const OverlayOptions& options() const { return m_options; }
  Node* node(uint64_t nodeid);
  uint64_t nodeid(const Node* n) const;

  // lookups and attributes (overlay_lookup.cpp)
  /// The entry for `name` in `parent` as `c` sees it; a miss is an Entry without a node (the
  /// kernel caches it for `timeout`). The person's processes get guard nodes at git-sensitive
  /// paths (overlay_git_guard.cpp).
  Entry lookup(const Caller& c, Node* parent, std::string_view name);
  void forget(Node* n, uint64_t count);
  struct stat getattr(Node* n);
  struct stat setattr(const Caller& c, Node* n, const struct stat& attr, int to_set,
                      FileHandle* fh);
  std::string readlink(Node* n);

  // the person's git never takes what the agent planted (overlay_git_guard.cpp)
  /// Throws EACCES when one of the person's processes reaches the agent's node at a
  /// git-sensitive path (only through something the kernel cached before the path became
  /// sensitive, e.g. a renamed dentry). Costs an atomic load unless the node is sensitive.
  void check_git_guard(const Caller& c, const Node* n) {
    if (n->git_sensitive.load(std::memory_order_acquire) && !n->guard) {
      refuse_host_on_agent_node(c, n);
    }
  }

  // namespace operations (overlay_namespace.cpp)
  Entry mkdir(const Caller& c, Node* parent, std::string_view name, mode_t mode);
  Entry mknod(const Caller& c, Node* parent, std::string_view name, mode_t mode, dev_t rdev);
  Entry symlink(const Caller& c, Node* parent, std::string_view name, std::string_view target);
  Entry link(const Caller& c, Node* n, Node* newparent, std::string_view newname);
  void unlink(const Caller& c, Node* parent, std::string_view name);
  void rmdir(const Caller& c, Node* parent, std::string_view name);
  void rename(const Caller& c, Node* parent, std::string_view name, Node* newparent,
              std::string_view newname, unsigned flags);

  // files (overlay_files.cpp)
  std::unique_ptr<FileHandle> open(const Caller& c, Node* n, int flags);
  /// Creates (or, without O_EXCL, opens) `name`. With stateless opens the handle is null:
  /// the kernel sends no RELEASE for it then, so anything it held would leak.
  std::pair<Entry, std::unique_ptr<FileHandle>>
  create(const Caller& c, Node* parent, std::string_view name, mode_t mode, int flags);
  /// The fd to read from (re-opened on the upper copy if another open copied it up).
  int read_fd(Node* n, FileHandle& fh);
  void fallocate(const Caller& c, Node* n, FileHandle* fh, int mode, off_t offset, off_t length);

  // the kernel's caches (overlay_invalidate.cpp)
  /// Starts watching the real tree; from now on lookups in watched directories are cached
  /// for long. Call once mounted; stop before unmounting.
  void start_watching(Invalidator invalidator);
  void stop_watching();
  /// How long the kernel may cache `n`'s entry and attributes `st`: long when nothing can
  /// change them unnoticed, 0 for a file with several names (each name is its own node).
  double timeout_for(const Node* n, const struct stat& st) const;
  double negative_timeout(const Node* parent) const;

  // stateless files: no OPEN/RELEASE from the kernel (overlay_stateless.cpp)
  /// The kernel checked the caller's right to read (or write) when it opened the file; the
  /// upper file itself stays open to the daemon whatever mode the agent gave it
  /// (upper_modes.hpp).
  IoFd open_for_read(Node* n);
  /// Copies the object up first if it still is the real tree's.
  IoFd open_for_write(Node* n);
  /// Coalesces a write into the pending journal entry of (file, process): consecutive
  /// writes of one process to one file within 200 ms make one entry of byte ranges. The
  /// path and command are read when a burst starts, not on every write.
  void note_write(const Caller& c, Node* n, uint64_t offset, uint64_t size);
  /// The same for the kernel's writeback of a shared mapping's pages (no caller), in two
  /// steps around the reply (MappedWriters). Before it: the process holding the file open
  /// for writing, when a new burst starts (the writer may let go the moment it has the
  /// reply). After it: the entry, naming that process, else one mapping the file or the
  /// one that last wrote or read it (reading /proc/*/maps may wait for a process that
  /// waits for the reply). Neither throws.
  MappedWriters::Writer writeback_holder(Node* n);
  void note_writeback(Node* n, uint64_t offset, uint64_t size, MappedWriters::Writer holder);
  /// The view's device number, once mounted (how /proc/PID/maps names its files).
  void set_view_device(dev_t dev) { m_mapped.set_view_device(dev); }
  /// A READ of `n` by thread `tid`: a page fault of a mapping that may write back later.
  void note_read(const Node* n, pid_t tid) { m_mapped.remember_reader(n->ino.load(), tid); }
  /// Journals pending writes older than `age_ns` (0: all of them).
  void flush_pending_writes(int64_t age_ns);
  void set_stateless(bool on) { m_stateless = on; }
  bool stateless() const { return m_stateless; }
  /// CREATE answers FOPEN_DIRECT_IO (fuse_adapter.cpp, ll_create): set when the kernel lets
  /// such a file be mapped shared (device_io.hpp).
  void set_direct_created(bool on) { m_direct_created = on; }
  bool direct_created() const { return m_direct_created; }
  /// A direct write by a caller without CAP_FSETID (FUSE_WRITE_KILL_SUIDGID): clears the
  /// setuid bit, and the setgid bit of a group-executable file, as the kernel does for
  /// writes through its page cache.
  void kill_suid_on_write(int fd);

  // directories (overlay_dirs.cpp)
  std::vector<DirEntry> list_dir(Node* dir);
  /// The listing to answer a handle-less readdir at `offset` from.
  std::shared_ptr<const std::vector<DirEntry>> listing(Node* dir, off_t offset);

  // extended attributes and statfs (overlay_xattr.cpp)
  std::string getxattr(Node* n, const char* name);
  std::string listxattr(Node* n);
  void setxattr(const Caller& c, Node* n, const char* name, std::string_view value, int flags);
  void removexattr(const Caller& c, Node* n, const char* name);
  struct statvfs statfs();

  // the workspace's state under a live view: reset, checkpoints (overlay_state.cpp)
  /// Freezes the state into the store and names it in the new directory `dest` (a
  /// checkpoint draft): reads what changed since the last checkpoint while the agent works
  /// on, then again, with writers paused for the moment, what it wrote meanwhile
  /// (docs/locking.md, "Checkpoints"). Pending writes are journaled first.
  void snapshot_state(const std::filesystem::path& dest);
  /// Makes `paths` show the real tree again (StateEditor::drop) and the kernel forget what
  /// it cached there; the agent's open files keep working. With `save_to`, snapshots the
  /// state there first under the same lock, so it holds exactly what was dropped. `landed`
  /// (`ws apply` dropping what it landed): a file still open stays the same file, now the
  /// real one, so the agent's later writes land in the view (edit_state).
  void drop_paths(const Caller& c, const std::vector<std::string>& paths,
                  const std::filesystem::path& save_to, bool landed = false);
  void drop_all(const Caller& c, const std::filesystem::path& save_to);
  /// The real tree's objects at `paths` become their bases (StateEditor::rebase).
  void rebase_paths(const Caller& c, const std::vector<std::string>& paths);
  /// Replaces the state with the checkpoint in `checkpoint` (snapshotting to `save_to`).
  void restore_state(const Caller& c, const std::filesystem::path& checkpoint,
                     const std::filesystem::path& save_to);

  JournalWriter& journal() { return m_journal; }
  /// What changed since a token, for git's fsmonitor hook (docs/fsmonitor.md).
  ChangeLog& changes() { return m_changes; }
  /// Handles every real-tree event queued so far (false if that took too long).
  bool sync_watcher();
  MetaStore& meta() { return m_meta; }
  /// The agent's share of the disk and its limit (docs/filesystem.md, "Disk limit").
  DiskUsage& disk() { return m_disk; }
  /// Holds back the requests that change the view while `ws apply` reads it
  /// (docs/filesystem.md, "Pausing writers").
  WriteGate& writes() { return m_writes; }

private:
  /// A name resolved in a directory. Directories come with O_PATH fds on their upper
  /// object and the lower directory they merge; other objects only with where they live.
  struct Found {
    UniqueFd upper; ///< directories: O_PATH
    UniqueFd lower; ///< directories: O_PATH
    struct stat st {};
    bool on_upper = false;
  };

  std::string path_locked(const Node* n) const; // needs m_tree held
  /// Walks upper/ and bases/ for the bytes they hold (after state edits, under the exclusive
  /// m_tree; the first count, at start, runs on m_counter).
  void measure_disk();
  /// The allocated bytes of the upper object `name` in `dir_fd` (0 if none).
  static int64_t upper_allocated(int dir_fd, const std::string& name);
  Found resolve_locked(Node* parent, std::string_view name, const std::string& path);
  Node* attach_locked(Node* parent, std::string_view name, Found&& found, const std::string& path);
  Entry entry_for(Node* n);
  Entry attach_entry_locked(Node* parent, std::string_view name, const std::string& path);
  std::optional<Found> try_resolve_locked(Node* parent, std::string_view name,
                                          const std::string& path);
  /// The node and entry for a resolved object (attaching it); needs m_tree held.
  Entry entry_from_locked(Node* parent, std::string_view name, const std::string& path, Found&& f);
  std::optional<Identity> lower_at_locked(Node* parent, std::string_view name,
                                          const std::string& path);
  bool is_empty_view_dir(const Found& f, const std::string& path);
  std::unique_ptr<FileHandle> open_locked(const Caller& c, Node* n, int flags,
                                          const std::string* path);
  void detach_child(Node* parent, std::string_view name);

  // the git guard (overlay_git_guard.cpp); callers hold m_tree
  Entry lookup_git_locked(const Caller& c, Node* parent, std::string_view name,
                          const std::string& path, GitExposure exposure);
  /// The person's node for `path`: the real tree's object, found from the lower root without
  /// following a symlink; EACCES when the real tree has none.
  Entry guard_entry_locked(Node* parent, std::string_view name, const std::string& path);
  /// A name inside a guard directory: the real tree's only (a miss is an Entry without node).
  Entry guard_child_locked(Node* parent, std::string_view name);
  Entry attach_guard_locked(Node* parent, std::string_view name, int dir_fd, const struct stat& st,
                            const std::string& path);
  [[noreturn]] static void refuse_guard(const std::string& path);
  void refuse_host_on_agent_node(const Caller& c, const Node* n) const;
  /// Refuses (EACCES) a change at `path` (an object of `type`) inside `parent` when the
  /// parent is a guard directory, or when one of the person's processes asks for it and the
  /// path is git-sensitive: the person does not edit the agent's planted config in place.
  /// `with_content`: a directory renamed to `path` (it brings its insides along).
  void check_git_change(const Caller& c, const Node* parent, const std::string& path, mode_t type,
                        bool with_content = false);
  /// Before a rename: EXDEV if a symlink the kernel knows would become git-sensitive (it
  /// follows cached symlinks without asking; `mv` then copies, which we answer fresh).
  void check_git_rename_locked(Node* parent, std::string_view name, const std::string& spath,
                               mode_t stype, const std::string& dpath);
  /// After a rename moved `n` to `path`: recomputes the git flags below it, and returns the
  /// nodes that became sensitive (their cached attributes must go before the reply).
  void update_git_flags_locked(Node* n, const std::string& path, std::vector<uint64_t>& became);
  /// After a rename: drops the kernel's attributes of `became` now, and its moved entries soon.
  void settle_git_rename(const std::vector<uint64_t>& became,
                         std::vector<std::pair<uint64_t, std::string>> entries);
  void detach_locked(Node* child);
  void release_locked(Node* n); // frees n and ancestors no longer referenced
  uint64_t upper_ino(uint64_t ino) const { return m_same_dev ? ino : (ino | (1ull << 63)); }
  uint64_t report_ino(const std::string& path, const struct stat& st, bool on_upper,
                      int lower_dir_fd);
  /// Attributes as the view shows them: the reported inode number; nlink 1 for a directory
  /// merging both layers (its true count is unknown, as overlayfs says); nlink 0 for a
  /// real-tree object the view deleted while it was open.
  void present(const Node* n, struct stat& st) const;
  /// The mode the view shows for directory `n`'s upper directory, or -1 for its real one.
  static int shown_dir_mode(const Node* n);
  /// Gives directory `n`'s upper directory the mode `mode` as the view shows it.
  static void set_dir_mode(const Node* n, int upper_fd, mode_t mode, const std::string& path);
  /// The mode recorded for the upper file `n` (upper_modes.hpp); needs m_tree held.
  std::optional<mode_t> recorded_file_mode_locked(const Node* n) const;
  /// The fd of the directory holding a non-directory's object (needs m_tree held).
  int object_dir_locked(const Node* n) const;
  /// Opens a node's object with `flags` (O_PATH for a handle); needs m_tree held.
  UniqueFd open_object_locked(const Node* n, int flags) const;
  struct stat stat_object_locked(const Node* n) const;
  /// open_object_locked for a stateless READ or WRITE (`accmode`): the fd kept when the file
  /// was created, else the object itself (open_closed_file_locked if its mode refuses the
  /// daemon).
  IoFd open_stateless_locked(Node* n, int accmode);
  /// Opens `n`, an upper file the daemon owns whose mode refuses the daemon (left so by an
  /// older ws), after keeping it open to its owner for good, its mode recorded
  /// (upper_modes.hpp), under n->mutex. Throws EACCES otherwise.
  UniqueFd open_closed_file_locked(Node* n, int accmode);
  /// With stateless opens: drops the handle (the kernel never releases it), keeping its fd
  /// (opened with `accmode`) in m_created when `fresh` (the file was created by this
  /// request) or when the daemon could not open the file again (its mode `mode`).
  void settle_created_handle(Node* n, std::unique_ptr<FileHandle>& fh, int accmode, mode_t mode,
                             bool fresh);
  /// Gives a non-directory about to lose its name an fd of its own (needs m_tree held).
  void pin_locked(Node* n);
  void pin_child_locked(Node* parent, std::string_view name);
  void touch_parent_locked(Node* parent);
  /// Records that the agent created `path` where the real tree had nothing (an empty base),
  /// in a directory merging the real one (needs m_tree held).
  void note_created_locked(Node* parent, const std::string& path);

  // copy-up (overlay_copyup.cpp); callers hold m_tree
  void copy_up(Node* n);
  void copy_up_orphan(Node* n); // needs n->mutex
  void ensure_upper_dir(Node* dir);
  void copy_up_tree(Node* dir);
  void copy_tree_locked(int lower_dir, int upper_dir, const std::string& path);
  /// Saves a real regular file's content in bases/ (it is about to be replaced in the view)
  /// and returns `id` with its hash; unchanged if too large or no longer that file.
  Identity save_base(int lower_dir, const std::string& name, const std::string& path, Identity id);
  Identity copy_object(int lower_fd, const struct stat& st, int upper_parent,
                       const std::string& name, const std::string& path);
  void refresh_after_tree_copy(Node* dir);
  Identity lower_identity(const struct stat& st) const;
  void set_owner(int dirfd, const char* name, const Caller& c, Node* parent);
  /// A time-only setattr of a real object below the private `.git/objects` (git freshening
  /// an object it would write again): answered without copying the object (a pack) up.
  bool skip_freshen(const Node* n, const std::string& path, int to_set) const;
  /// Gives the object just made at `dirfd`/`name` (or `fd`, when given) exactly the
  /// permission bits of `mode`: the kernel already took the caller's umask from it, and the
  /// daemon's own umask (or a default ACL above upper/) must not take more (overlay_namespace.cpp).
  void settle_new_mode(int dirfd, const std::string& name, int fd, mode_t mode,
                       const std::string& path) const;

  void watch_locked(Node* dir);   // needs m_table
  void unwatch_locked(Node* dir); // needs m_table
  void on_lower_events(const LowerWatcher::Event* events, size_t count, bool overflow);
  /// Notes `n`'s name for a write, unless already noted since the last token.
  void note_written(Node* n);
  /// Notes what a journaled operation changed.
  void note_change(const char* op, const std::string& path, const std::string& path2);

  // state edits under a live view (overlay_state.cpp)
  struct StateVisit;
  struct Invalidations;
  StateDirs state_dirs();
  /// Runs `edit` under the exclusive m_tree, then brings the kernel-visible nodes whose
  /// path is within (or an ancestor of) a path of `scope` in line with the new state, and
  /// invalidates the kernel's caches outside every lock.
  /// `landed`: what leaves the upper layer has just landed in the real tree, which now holds
  /// it: a file node keeps its identity (show_real_file_locked) instead of being unlinked.
  void edit_state(const std::vector<std::string>& scope, const std::filesystem::path& save_to,
                  const std::function<void(StateEditor&)>& edit, bool landed = false);
  void collect_visits_locked(const std::vector<std::string>& scope,
                             std::vector<StateVisit>& visits);
  void revalidate_locked(std::vector<StateVisit>& visits, Invalidations& out, bool landed);
  /// Gives a directory that stays a directory the fds of what `found` says it is now.
  bool refresh_dir_locked(Node* dir, Found& found);
  /// A file node whose upper object a state edit dropped: now the real tree's file `found`.
  void show_real_file_locked(Node* n, const Found& found, Invalidations& out);

  /// Queues a journal entry, and marks what it changed for the next checkpoint (so every
  /// caller records after its change landed); `time_ns` 0 means now, an empty `comm` means
  /// the caller's now. `via`: how a writer the kernel did not name was found
  /// (JournalEntry::via). Returns the process named.
  ProcessInfo record(const Caller& c, const char* op, std::string path, std::string path2 = {},
                     std::string detail = {}, int64_t time_ns = 0, ProcessInfo proc = {},
                     std::string via = {});

  std::filesystem::path m_lower_dir;
  WorkspaceLayout m_layout;
  OverlayOptions m_options;
  UniqueFd m_lower_root;
  UniqueFd m_upper_root;
  UniqueFd m_work;
  UniqueFd m_bases;
  /// O_PATH on the real common git directory when the workspace has a private git state
  /// (docs/agent-git.md): its objects/ show below the agent's `.git/objects`, and the git
  /// guard shows the person its config and hooks. Invalid otherwise.
  UniqueFd m_real_git;
  bool m_same_dev = true;
  bool m_root_daemon = false;
  uid_t m_euid = 0; ///< the daemon's, fixed for its life
  gid_t m_egid = 0;
  /// The daemon's umask (read at start; nothing in the daemon changes it), and whether it
  /// alone decides what it takes from a new object's mode: false when upper/ has a default
  /// ACL (its mask applies instead) or the umask could not be read.
  mode_t m_umask = 0;
  bool m_umask_applies = false;

  MetaStore m_meta;
  JournalWriter m_journal;
  ChangeLog m_changes;
  DiskUsage m_disk;
  ProcessNames m_process_names;
  MappedWriters m_mapped; ///< who to name for the kernel's writeback of mapped pages

  mutable std::shared_mutex m_tree;
  std::mutex m_table;
  std::unique_ptr<Node> m_root;
  std::unordered_map<Node*, std::unique_ptr<Node>> m_nodes; ///< m_table: every live node but root
  std::atomic<uint64_t> m_next_generation{1};
  std::unique_ptr<LowerWatcher> m_watcher;
  Invalidator m_invalidator;
  std::unique_ptr<InvalidationQueue> m_deferred; ///< entries to drop once a request replied
  HostCallers m_hosts;
  std::unordered_multimap<int, Node*> m_watches; ///< m_table: watch -> directories using it
  bool m_stateless = false;
  bool m_direct_created = false;
  CreatedFds m_created; ///< the newest files' creating fds; after every other lock (a leaf)
  WriteGate m_writes;
  /// What changed since the last checkpoint (its mutex is a leaf), and the tree that is
  /// relative to (the control thread's).
  store::ChangeTracker m_marks; ///< what the next checkpoint reads (fuse/store/)
  std::optional<store::ObjectId> m_tracked_base;
  /// The snapshot half of a state edit with a checkpoint (overlay_state.cpp).
  struct Freeze;
  std::unique_ptr<Freeze> begin_freeze();
  void finish_freeze(Freeze& freeze, const std::filesystem::path& dest);

  /// Writes without an open handle, waiting to be journaled as one entry per (file, process).
  struct PendingWrite {
    Caller writer;
    ProcessInfo proc;       ///< read at the first write: the process may be gone when journaled
    bool writeback = false; ///< the kernel's writeback of mapped pages (no caller)
    std::string via;        ///< writeback: how `proc` was found
    std::string path;
    RangeSet ranges;
    int64_t since_ns = 0;
    uint64_t marked = 0; ///< the change tracker's generation the path was marked in
  };
  /// A writeback at `now` joins `p` (the kernel's writebacks of one file, within 200 ms).
  static bool continues_writeback(const PendingWrite& p, int64_t now);
  std::mutex m_pending_mutex; ///< after m_table when both are held
  std::unordered_map<const Node*, PendingWrite> m_pending;
  void emit_pending_locked(PendingWrite& p);
  /// Adds a write to `n`'s pending burst if `continues` accepts that burst (marking the path
  /// for the next checkpoint once per checkpoint); false: the caller starts a burst.
  template <class Continues>
  bool extend_burst(Node* n, uint64_t offset, uint64_t size, Continues continues);
  /// Starts `n`'s burst as `fresh` (its writer named by the caller) with this write, unless
  /// another request started one that `continues` accepts meanwhile; journals the one before.
  template <class Continues>
  void start_burst(Node* n, uint64_t offset, uint64_t size, Continues continues,
                   PendingWrite fresh);
  /// Journals `n`'s pending writes now, under the name they were written to (before a rename).
  void flush_pending_of(const Node* n);
  std::atomic<uint64_t> m_tmp_counter{0};
  std::thread m_counter; ///< the first count of m_disk; joined by the destructor
};

/// "/proc/self/fd/N": reopens an O_PATH fd with real access modes.
std::string proc_fd_path(int fd);

} // namespace ws::fuse
