// Keeping the kernel's caches honest while caching for long: the real tree's directories
// the view has shown are watched; a change there invalidates what the kernel holds of it.
#include "fuse/log.hpp"
#include "fuse/overlay_fs.hpp"

#include <sys/inotify.h>

#include <set>
#include <utility>

namespace ws::fuse {

void OverlayFs::start_watching(Invalidator invalidator) {
  m_invalidator = std::move(invalidator);
  m_deferred = std::make_unique<InvalidationQueue>(m_invalidator.entry, m_invalidator.inode);
  m_watcher = std::make_unique<LowerWatcher>(
      [this](const LowerWatcher::Event* events, size_t count, bool overflow) {
        on_lower_events(events, count, overflow);
      });
  std::lock_guard table(m_table);
  watch_locked(m_root.get());
  m_root->stable = m_root->watch.load() >= 0;
}

void OverlayFs::stop_watching() {
  m_watcher.reset();
  m_deferred.reset();
}

void OverlayFs::watch_locked(Node* dir) {
  int lower = dir->lower_fd.get();
  if (!m_watcher || lower < 0) {
    return;
  }
  int wd = m_watcher->add(lower);
  if (wd < 0) {
    static std::once_flag warned;
    std::call_once(warned, [] {
      logger().warn("cannot watch more real-tree directories (fs.inotify.max_user_watches?): "
                    "their entries are cached for 1 s only");
    });
    return;
  }
  dir->watch.store(wd);
  m_watches.emplace(wd, dir);
}

void OverlayFs::unwatch_locked(Node* dir) {
  int wd = dir->watch.exchange(-1);
  if (wd < 0) {
    return;
  }
  auto [first, last] = m_watches.equal_range(wd);
  bool shared = false;
  for (auto it = first; it != last;) {
    if (it->second == dir) {
      it = m_watches.erase(it);
    } else {
      shared = true;
      ++it;
    }
  }
  if (!shared && m_watcher) {
    m_watcher->remove(wd);
  }
}

double OverlayFs::timeout_for(const Node* n, const struct stat& st) const {
  if (n->git_sensitive.load(std::memory_order_acquire)) {
    return 0; // who asks decides what it is (the agent's, or the real tree's): always ask
  }
  if (!n->is_dir() && st.st_nlink > 1) {
    return 0; // another name's node may change the shared object: always ask
  }
  return n->stable ? m_options.long_timeout : m_options.short_timeout;
}

double OverlayFs::negative_timeout(const Node* parent) const {
  bool stable = !parent->lower_fd.exists() || parent->watch.load() >= 0;
  return stable ? m_options.long_timeout : m_options.short_timeout;
}

void OverlayFs::on_lower_events(const LowerWatcher::Event* events, size_t count, bool overflow) {
  std::set<std::pair<uint64_t, std::string>> entries;
  std::set<uint64_t> inodes;
  std::vector<std::pair<std::string, bool>> changed; // for git's fsmonitor: name, directory
  {
    std::lock_guard table(m_table);
    if (overflow) {
      // Events were lost: forget every cached name and attribute the real tree backs.
      for (auto& [node, owned] : m_nodes) {
        if (!node->unlinked && node->parent) {
          entries.emplace(nodeid(node->parent), node->name);
        }
        inodes.insert(nodeid(node));
      }
      inodes.insert(1);
    }
    for (size_t i = 0; i < count; ++i) {
      const auto& e = events[i];
      auto [first, last] = m_watches.equal_range(e.wd);
      for (auto it = first; it != last; ++it) {
        Node* dir = it->second;
        if (e.mask & IN_IGNORED) {
          dir->watch.store(-1);
          continue;
        }
        if (!dir->lower_fd.exists()) {
          continue; // opaque now: the real tree no longer shows through
        }
        if (!dir->unlinked && (dir == m_root.get() || dir->parent)) {
          std::string dir_path = path_locked(dir); // renames move nodes under m_table too
          bool is_dir = e.name.empty() || (e.mask & IN_ISDIR);
          std::string path = e.name.empty() ? dir_path : join_path(dir_path, e.name);
          if (is_dir && (e.mask & (IN_DELETE | IN_MOVED_FROM))) {
            m_changes.unblind(path, true); // gone: nothing there to watch
          }
          changed.emplace_back(std::move(path), is_dir);
        }
        if (e.name.empty()) { // the directory itself: attributes, or it went away
          if (dir->parent && !dir->unlinked) {
            entries.emplace(nodeid(dir->parent), dir->name);
          }
          inodes.insert(nodeid(dir));
          continue;
        }
        inodes.insert(nodeid(dir)); // its listing and mtime
        if (auto g = dir->guards.find(std::string(e.name)); g != dir->guards.end()) {
          inodes.insert(nodeid(g->second)); // the person's view of the real object changed
        }
        auto child = dir->children.find(std::string(e.name));
        if (child != dir->children.end()) {
          Node* c = child->second;
          bool agents = c->is_dir() ? c->upper_fd.exists() : c->on_upper.load();
          bool gained = c->is_dir() && !c->lower_fd.exists() && (e.mask & IN_ISDIR) &&
                        (e.mask & (IN_CREATE | IN_MOVED_TO));
          if (agents && !gained) {
            continue; // the view shows the agent's version here, whatever the person does
          }
          // (gained: the agent's directory now merges the real one of its name; the kernel
          // looks it up again, and that lookup attaches the real side: attach_locked.)
          inodes.insert(nodeid(c));
        }
        entries.emplace(nodeid(dir), std::string(e.name));
      }
      if (e.mask & IN_IGNORED) {
        m_watches.erase(e.wd);
      }
    }
  }
  // Outside every lock: the kernel takes its directory locks to honour these.
  for (uint64_t ino : inodes) {
    m_invalidator.inode(ino);
  }
  for (auto& [parent, name] : entries) {
    m_invalidator.entry(parent, name);
  }
  // Noted once the kernel forgot what it cached: git, told of a name, must not be answered
  // from a stale cache (it would keep the stale facts as clean).
  if (overflow) {
    m_changes.note_everything();
  }
  for (auto& [path, is_dir] : changed) {
    m_changes.note(path, is_dir);
  }
}

bool OverlayFs::sync_watcher() {
  return !m_watcher || m_watcher->sync(2000);
}

} // namespace ws::fuse
