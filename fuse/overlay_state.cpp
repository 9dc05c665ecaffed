// Editing the workspace's state under a live view (ws reset, ws restore, ws checkpoint).
// The edit runs under the exclusive m_tree through the daemon's own MetaStore (written
// through to meta.db). Then every node the kernel knows in the edited part is resolved
// again: a file whose object moved between layers, changed or vanished is pinned (so the
// agent's open descriptors keep working) and detached, so the next lookup makes a fresh
// node; a directory that is still a directory stays the same node (a shell may stand in it)
// with fresh fds. Last, outside every lock (the kernel takes its directory locks to honour
// these, as for on_lower_events), the kernel is told to forget the entries and attributes
// it cached there, negative entries of names that reappear included.
#include "fuse/log.hpp"
#include "fuse/overlay_fs.hpp"
#include "fuse/state_edit.hpp"
#include "fuse/state_tree.hpp"
#include "fuse/store/checkpoint_record.hpp"
#include "fuse/store/snapshot_builder.hpp"
#include "fuse/system_error.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <chrono>
#include <exception>
#include <fstream>
#include <set>
#include <unordered_set>

namespace ws::fuse {

/// A node the edit may affect, held (nlookup + 1) until the kernel has been told.
struct OverlayFs::StateVisit {
  Node* node = nullptr;
  std::string path;
  UniqueFd object;        ///< non-directories: O_PATH on the object before the edit
  bool had_upper = false; ///< directories: had an upper directory before the edit
};

struct OverlayFs::Invalidations {
  std::set<std::pair<uint64_t, std::string>> entries;
  std::set<uint64_t> inodes;
};

namespace {

/// The roots of an edit's scope, indexed so that `in_scope` costs O(depth log n) rather than
/// a comparison with every root (a drop after applying 200,000 files has 200,000 roots).
struct ScopeIndex {
  bool everything = false;
  std::unordered_set<std::string> roots;
  std::unordered_set<std::string> ancestors; ///< every proper ancestor of a root
  explicit ScopeIndex(const std::vector<std::string>& scope) {
    for (const std::string& root : scope) {
      if (root.empty()) {
        everything = true;
      }
      roots.insert(root);
      for (size_t slash = root.find('/'); slash != std::string::npos;
           slash = root.find('/', slash + 1)) {
        ancestors.insert(root.substr(0, slash));
      }
    }
  }
};

/// True when `path` is within a root of `scope`, or is an ancestor of one: only there can
/// an edit of those roots change what the view shows.
bool in_scope(const std::string& path, const ScopeIndex& scope) {
  if (scope.everything || scope.ancestors.count(path) || scope.roots.count(path)) {
    return true;
  }
  for (size_t slash = path.find('/'); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    if (scope.roots.count(path.substr(0, slash))) {
      return true;
    }
  }
  return false;
}

/// Whether fds `a` and `b` (-1: none) stand for the same object.
bool same_object(int a, int b) {
  if (a < 0 || b < 0) {
    return a < 0 && b < 0;
  }
  struct stat sa {
  }, sb{};
  return ::fstat(a, &sa) == 0 && ::fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

std::vector<std::string> names_in(int dir) {
  if (dir < 0) {
    return {};
  }
  try {
    return list_names(dir, "");
  } catch (const SystemError& e) {
    logger().warn("state edit: cannot list a directory to invalidate: {}", e.what());
    return {};
  }
}

} // namespace

StateDirs OverlayFs::state_dirs() {
  return {m_lower_root.get(), m_upper_root.get(), m_work.get(), m_bases.get(), &m_meta,
          m_layout.meta_db(), m_layout.store()};
}

namespace {
/// Read again while the agent works as long as it wrote more than this meanwhile: what is
/// left is read with writers paused, so the pause stays short.
constexpr size_t k_paused_read_max = 64;
constexpr int k_rounds = 3;
constexpr auto k_pause_wait = std::chrono::seconds(30);
} // namespace

/// A checkpoint being made: the store locked, the marks taken so far (given back if it
/// fails), the builder with what it read.
struct OverlayFs::Freeze {
  store::ContentStore store;
  store::ContentStore::Lock lock;
  std::optional<store::ObjectId> base;
  store::SnapshotBuilder builder;
  store::Marks taken;
  std::chrono::steady_clock::duration paused{};
  Freeze(const std::filesystem::path& dir, std::optional<store::ObjectId> b,
         store::SnapshotSource src)
      : store(dir), lock(store.lock()), base(b), builder(store, base, src) {}
};

std::unique_ptr<OverlayFs::Freeze> OverlayFs::begin_freeze() {
  // Whatever the tracker file says is the truth (a prune may have dropped the base): marks
  // kept since another base mean nothing, so everything is read again then.
  store::TrackerState on_disk = store::load_tracker(m_layout.store() / "tracker");
  std::optional<store::ObjectId> base = on_disk.base;
  auto freeze = std::make_unique<Freeze>(
      m_layout.store(), base, store::SnapshotSource{m_upper_root.get(), &m_meta, m_bases.get()});
  if (base != m_tracked_base || (base && !freeze->store.contains(*base))) {
    m_marks.mark_all();
    if (base && !freeze->store.contains(*base)) {
      freeze->base.reset();
      freeze->builder.drop_base();
    }
  }
  try {
    // While the agent works: what changed since the last checkpoint, then what it changed
    // while we read, until little is left.
    for (int round = 0; round < k_rounds; ++round) {
      store::Marks marks = m_marks.take();
      freeze->taken.merge(marks);
      freeze->builder.read(marks);
      if (m_marks.pending() <= k_paused_read_max) {
        break;
      }
    }
  } catch (...) {
    m_marks.give_back(freeze->taken);
    throw;
  }
  return freeze;
}

void OverlayFs::finish_freeze(Freeze& freeze, const std::filesystem::path& dest) {
  try {
    store::ObjectId root = freeze.builder.assemble();
    uint64_t added = store::commit_snapshot(freeze.store, m_layout.store() / "tracker", freeze.base,
                                            true, root, dest);
    m_tracked_base = root;
    const auto& st = freeze.builder.stats();
    auto paused_us = std::chrono::duration_cast<std::chrono::microseconds>(freeze.paused).count();
    std::ofstream(dest / "snapshot", std::ios::app)
        << "paused_us " << paused_us << "\nfiles_read " << st.files_read << "\n";
    logger().info("checkpoint {}: {} files read ({} bytes), {} reused, {} bytes added, writers "
                  "paused {} us",
                  root.hex().substr(0, 12), st.files_read, st.bytes_read, st.reused, added,
                  paused_us);
  } catch (...) {
    m_marks.give_back(freeze.taken);
    throw;
  }
}

void OverlayFs::snapshot_state(const std::filesystem::path& dest) {
  std::unique_ptr<Freeze> freeze = begin_freeze();
  try {
    auto pause = m_writes.pause(k_pause_wait);
    auto start = std::chrono::steady_clock::now();
    flush_pending_writes(0);
    store::Marks rest = m_marks.take();
    freeze->taken.merge(rest);
    rest.merge(freeze->builder.take_retry());
    freeze->builder.set_may_chmod(true);
    freeze->builder.read(rest);
    freeze->builder.set_may_chmod(false);
    freeze->paused = std::chrono::steady_clock::now() - start;
  } catch (...) {
    m_marks.give_back(freeze->taken);
    throw;
  }
  finish_freeze(*freeze, dest);
}

void OverlayFs::drop_paths(const Caller& c, const std::vector<std::string>& paths,
                           const std::filesystem::path& save_to, bool landed) {
  std::vector<std::string> roots = minimal_roots(paths);
  if (roots.size() == 1 && roots.front().empty()) {
    drop_all(c, save_to);
    return;
  }
  edit_state(
      roots, save_to, [&](StateEditor& e) { e.drop(roots); }, landed);
  for (const std::string& p : roots) {
    record(c, "reset", p);
  }
}

void OverlayFs::drop_all(const Caller& c, const std::filesystem::path& save_to) {
  edit_state({""}, save_to, [](StateEditor& e) { e.drop_all(); });
  record(c, "reset", "", {}, "all");
}

void OverlayFs::rebase_paths(const Caller& c, const std::vector<std::string>& paths) {
  std::vector<std::string> roots = minimal_roots(paths);
  edit_state(roots, {}, [&](StateEditor& e) { e.rebase(paths); });
  for (const std::string& p : roots) {
    record(c, "rebase", p);
  }
}

void OverlayFs::restore_state(const Caller& c, const std::filesystem::path& checkpoint,
                              const std::filesystem::path& save_to) {
  edit_state({""}, save_to, [&](StateEditor& e) { e.restore(checkpoint); });
  record(c, "restore", "", {}, "checkpoint " + checkpoint.filename().string());
}

void OverlayFs::edit_state(const std::vector<std::string>& scope,
                           const std::filesystem::path& save_to,
                           const std::function<void(StateEditor&)>& edit, bool landed) {
  // The checkpoint of the state before, when asked: read while the agent works, the rest
  // below with writers paused and the tree locked, right before the edit.
  std::unique_ptr<Freeze> freeze;
  std::unique_ptr<WriteGate::Pause> pause;
  if (!save_to.empty()) {
    freeze = begin_freeze();
    try {
      pause = m_writes.pause(k_pause_wait);
    } catch (...) {
      m_marks.give_back(freeze->taken);
      throw;
    }
  }
  std::vector<StateVisit> visits;
  // Drops the references taken on the visited nodes once the kernel has been told (their
  // nodeids must stay valid until then).
  struct Unref {
    OverlayFs* fs;
    std::vector<StateVisit>& visits;
    ~Unref() {
      for (size_t i = 1; i < visits.size(); ++i) {
        fs->forget(visits[i].node, 1);
      }
    }
  } unref{this, visits};
  Trash trash(m_work.get());
  Invalidations inval;
  std::exception_ptr failure;
  {
    std::unique_lock tree(m_tree);
    auto start = std::chrono::steady_clock::now();
    flush_pending_writes(0); // journaled under the names they were written to
    collect_visits_locked(scope, visits);
    if (freeze) {
      try {
        store::Marks rest = m_marks.take();
        freeze->taken.merge(rest);
        rest.merge(freeze->builder.take_retry());
        freeze->builder.set_may_chmod(true);
        freeze->builder.read(rest);
        freeze->builder.set_may_chmod(false);
      } catch (...) {
        m_marks.give_back(freeze->taken);
        throw; // nothing edited: the visits' references go with `unref`
      }
      freeze->paused = std::chrono::steady_clock::now() - start;
    }
    try {
      StateEditor editor(state_dirs(), trash);
      edit(editor);
    } catch (...) {
      // Stopped half-way: the nodes must still match what is on disk now.
      failure = std::current_exception();
    }
    for (const std::string& root : scope) {
      m_marks.mark_tree(root); // whatever the edit did there, the next checkpoint reads
    }
    revalidate_locked(visits, inval, landed);
    measure_disk(); // the edit moved whole trees in and out: count again, nothing runs meanwhile
    m_changes.note_everything(); // git's fsmonitor: every token before this answers "/"
  }
  if (m_deferred && m_writes.paused()) {
    // Writers are paused (`ws apply` drops what it landed, or our own checkpoint): a held
    // RENAME keeps its directories locked and a held WRITE its pages until the pause ends,
    // and the pause ends only after this edit returns. Invalidating here would wait for
    // them forever; the queue's thread does it once they are let go.
    for (uint64_t ino : inval.inodes) {
      m_deferred->inode(ino);
    }
    for (auto& [parent, name] : inval.entries) {
      m_deferred->entry(parent, std::move(name));
    }
  } else if (m_invalidator.inode && m_invalidator.entry) {
    for (uint64_t ino : inval.inodes) {
      m_invalidator.inode(ino);
    }
    for (auto& [parent, name] : inval.entries) {
      m_invalidator.entry(parent, name);
    }
  }
  m_changes.note_everything(); // and again once the kernel dropped what it cached
  pause.reset();               // the held requests run now, on this thread
  trash.empty();
  if (freeze) {
    finish_freeze(*freeze, save_to); // kept even when the edit failed: it is the undo
  }
  if (failure) {
    std::rethrow_exception(failure);
  }
}

void OverlayFs::collect_visits_locked(const std::vector<std::string>& scope,
                                      std::vector<StateVisit>& visits) {
  const ScopeIndex index(scope);
  {
    std::lock_guard table(m_table);
    visits.push_back(StateVisit{m_root.get(), {}, {}, true});
    // Breadth first: a parent is revalidated before its children, which resolve through it.
    for (size_t i = 0; i < visits.size(); ++i) {
      Node* dir = visits[i].node;
      std::string dir_path = visits[i].path;
      for (auto& [name, child] : dir->children) {
        std::string path = join_path(dir_path, name);
        if (in_scope(path, index)) {
          ++child->nlookup;
          visits.push_back(StateVisit{child, std::move(path), {}, false});
        }
      }
    }
  }
  // Before the edit: an fd on each file that may lose its name, to pin it afterwards (a
  // process may have it open). As many as the directory fds may be: the kernel may know
  // more files than the daemon may open (an npm install), and a reset must not fail then.
  int64_t budget = m_dir_fds.high();
  for (size_t i = 1; i < visits.size(); ++i) {
    StateVisit& v = visits[i];
    if (v.node->is_dir()) {
      v.had_upper = v.node->upper_fd.exists();
      continue;
    }
    if (budget-- <= 0) {
      if (budget == -1) {
        logger().info("state edit: {} files the kernel knows; those past the first {} are not "
                      "kept open: a process holding one open loses it if the edit drops it",
                      visits.size(), m_dir_fds.high());
      }
      continue;
    }
    try {
      v.object = open_object_locked(v.node, O_PATH);
    } catch (const SystemError&) {
      // Already gone (the person deleted the real file): nothing to keep open.
    }
  }
}

void OverlayFs::revalidate_locked(std::vector<StateVisit>& visits, Invalidations& out,
                                  bool landed) {
  std::unordered_set<const Node*> gone;
  std::vector<Node*> changed_dirs{m_root.get()}; // the root always has an upper directory
  auto drop = [&](StateVisit& v) {
    Node* n = v.node;
    if (!n->is_dir() && v.object && n->pinned_fd.load() < 0) {
      n->pinned_fd.store(v.object.release(), std::memory_order_release);
    }
    if (!gone.count(n->parent)) {
      out.entries.emplace(nodeid(n->parent), n->name);
      out.inodes.insert(nodeid(n->parent));
    }
    gone.insert(n);
    std::lock_guard table(m_table);
    detach_locked(n); // our reference keeps it alive
  };
  for (size_t i = 1; i < visits.size(); ++i) {
    trim_dir_fds_locked(); // a reset of a large known tree opens every directory again
    StateVisit& v = visits[i];
    Node* n = v.node;
    if (gone.count(n->parent)) {
      drop(v); // below a directory that went: unreachable now
      continue;
    }
    std::optional<Found> f;
    try {
      f = try_resolve_locked(n->parent, n->name, v.path);
    } catch (const std::exception& e) {
      logger().warn("state edit: cannot resolve '{}': {}", v.path, e.what());
    }
    if (!n->is_dir()) {
      bool same = f && (f->st.st_mode & S_IFMT) == n->type && f->on_upper == n->on_upper.load() &&
                  f->st.st_dev == n->backing_dev && f->st.st_ino == n->backing_ino;
      if (same) {
        continue;
      }
      // A reset throws the agent's work away: its open files behave as unlinked (as on
      // ext4), so a late write does not bring it back into the view.
      if (landed && f && S_ISREG(f->st.st_mode) && n->type == S_IFREG && !f->on_upper &&
          n->on_upper.load() && !n->guard) {
        show_real_file_locked(n, *f, out);
      } else {
        drop(v);
      }
      continue;
    }
    if (!f || !S_ISDIR(f->st.st_mode)) {
      drop(v);
      continue;
    }
    // The inode number it reports may change too (an agent's directory that is the real
    // one again): stat(".") must agree with the parent's listing, or getcwd()'s fallbacks
    // cannot find their way.
    n->ino = report_ino(v.path, f->st, f->on_upper, f->lower.get());
    bool moved = refresh_dir_locked(n, *f);
    if (moved || v.had_upper || n->upper_fd.exists()) {
      changed_dirs.push_back(n);
    }
  }
  // In directories whose content may have changed, every name that exists now and has no
  // node the kernel keeps: it may hold a negative entry for it. Names of nodes that stay
  // are left alone: invalidating a directory's entry would unhash the cwd of a shell there.
  for (Node* dir : changed_dirs) {
    trim_dir_fds_locked();
    out.inodes.insert(nodeid(dir));
    std::vector<std::string> names = names_in(dir->upper_fd.get());
    std::vector<std::string> lower = names_in(dir->lower_fd.get());
    names.insert(names.end(), lower.begin(), lower.end());
    std::lock_guard table(m_table);
    for (std::string& name : names) {
      if (!dir->children.count(name)) {
        out.entries.emplace(nodeid(dir), std::move(name));
      }
    }
  }
}

void OverlayFs::show_real_file_locked(Node* n, const Found& found, Invalidations& out) {
  // The agent's file left the upper layer (`ws apply` landed it, or a reset) and the real
  // tree's file shows at its name again. The node stays: a process that has it open (an
  // agent halfway through `printf > A.t && mv A.t A`, held by apply's writer pause) keeps
  // writing to the file the view shows, copied up again from the real one at its next
  // write. A fresh node would leave that process writing into the dropped object: its
  // writes lost, and the name then copied up empty (the real file as landed).
  m_created.erase(n); // the fd that created it is on the dropped object
  n->on_upper.store(false, std::memory_order_release);
  n->backing_dev = found.st.st_dev;
  n->backing_ino = found.st.st_ino;
  // What the kernel cached (pages, size, times) is the dropped object's; a merged landing
  // may differ from it.
  out.inodes.insert(nodeid(n));
}

bool OverlayFs::refresh_dir_locked(Node* dir, Found& found) {
  auto swap = [dir](DirFd& slot, UniqueFd& fresh) {
    if (same_object(slot.get(), fresh.get())) {
      return false;
    }
    std::lock_guard lock(dir->mutex);
    int old = slot.take();
    slot.set(std::move(fresh));
    if (old >= 0) {
      dir->retired_fds.push_back(old); // a reader may still hold it: closed with the node
    }
    return true;
  };
  bool changed = swap(dir->upper_fd, found.upper);
  if (found.lower_fixed) {
    dir->lower_fd.fix();
  }
  if (changed) {
    dir->shown_mode.store(Node::k_mode_unread); // another upper directory: its own mode
  }
  if (swap(dir->lower_fd, found.lower)) {
    changed = true;
    std::lock_guard table(m_table);
    unwatch_locked(dir);
    watch_locked(dir);
  }
  // Later lookups compare with the object found now (attach_locked): the node stays.
  dir->backing_dev = found.st.st_dev;
  dir->backing_ino = found.st.st_ino;
  return changed;
}

} // namespace ws::fuse
