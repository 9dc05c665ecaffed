// Freezing the workspace's state into trees (see snapshot_builder.hpp).
#include "fuse/store/snapshot_builder.hpp"

#include "fuse/changes.hpp"
#include "fuse/journal.hpp"
#include "fuse/log.hpp"
#include "fuse/state_tree.hpp"
#include "fuse/store/upper_reads.hpp"
#include "fuse/system_error.hpp"

#include <climits>

#include <dirent.h>
#include <fcntl.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>

namespace ws::fuse::store {

namespace {

/// A change within this long before a read may share its timestamp with a later change
/// (the kernel stamps files with a clock of a few milliseconds' granularity).
constexpr int64_t k_racy_ns = 100'000'000;

int64_t ns_of(const struct timespec& t) {
  return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

std::string base_name(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

EntryType type_of(mode_t mode) {
  switch (mode & S_IFMT) {
  case S_IFDIR:
    return EntryType::Directory;
  case S_IFREG:
    return EntryType::File;
  case S_IFLNK:
    return EntryType::Symlink;
  case S_IFIFO:
    return EntryType::Fifo;
  case S_IFSOCK:
    return EntryType::Socket;
  case S_IFCHR:
    return EntryType::CharDevice;
  default:
    return EntryType::BlockDevice;
  }
}

} // namespace

SnapshotBuilder::SnapshotBuilder(ContentStore& store, std::optional<ObjectId> base,
                                 SnapshotSource source)
    : m_store(store), m_base(base), m_src(source) {}

void SnapshotBuilder::read(const Marks& marks) {
  m_read_started = now_ns();
  m_walked_now.clear();
  if (marks.all) {
    walk("");
    return;
  }
  std::unordered_set<std::string> done;
  for (auto& [path, tree] : marks.paths) {
    // Ancestors first, top down: one that is a new directory is walked whole, and then
    // covers the path.
    std::vector<std::string> chain;
    for (std::string a = parent_of(path); !a.empty(); a = parent_of(a)) {
      chain.push_back(a);
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      if (!covered_by_walk(*it) && done.insert(*it).second) {
        refresh(*it);
      }
    }
    if (covered_by_walk(path) || (!tree && !done.insert(path).second)) {
      continue;
    }
    if (tree) {
      walk(path);
    } else {
      refresh(path);
    }
  }
}

bool SnapshotBuilder::covered_by_walk(const std::string& path) const {
  if (m_walked_now.empty()) {
    return false;
  }
  for (std::string p = path;; p = parent_of(p)) {
    if (m_walked_now.count(p)) {
      return true;
    }
    if (p.empty()) {
      return false;
    }
  }
}

void SnapshotBuilder::erase_below(const std::string& path) {
  if (path.empty()) {
    m_fresh.clear();
    return;
  }
  std::string prefix = path + "/";
  auto it = m_fresh.lower_bound(prefix);
  while (it != m_fresh.end() && it->first.compare(0, prefix.size(), prefix) == 0) {
    it = m_fresh.erase(it);
  }
}

void SnapshotBuilder::refresh(const std::string& path) {
  if (path.empty()) {
    return; // upper/ itself: its attributes are the real tree's, set at each mount
  }
  std::string parent = parent_of(path), name = base_name(path);
  UniqueFd pdir(parent.empty()
                    ? ::fcntl(m_src.upper, F_DUPFD_CLOEXEC, 0)
                    : open_beneath(m_src.upper, parent, O_PATH | O_DIRECTORY | O_NOFOLLOW));
  struct stat st {};
  bool present = pdir && ::fstatat(pdir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
  std::optional<PathMeta> meta = m_src.meta->get(path);
  if (!present) {
    erase_below(path);
    Fresh f;
    if (meta) {
      f.exists = true;
      f.entry.name = name;
      f.entry.meta = meta;
    }
    m_fresh[path] = std::move(f);
    return;
  }
  if (S_ISDIR(st.st_mode)) {
    auto it = m_fresh.find(path);
    bool fresh_dir =
        it != m_fresh.end() && it->second.exists && it->second.entry.type == EntryType::Directory;
    const TreeEntry* old = fresh_dir ? &it->second.entry : base_entry(path);
    if (!old || old->type != EntryType::Directory || old->ino != st.st_ino) {
      walk(path); // another directory stands here: its whole content is new to us
      return;
    }
    bool walked = fresh_dir && it->second.walked;
    Fresh f{true, walked, make_entry(pdir.get(), name, st, path, meta)};
    m_fresh[path] = std::move(f);
    return;
  }
  erase_below(path);
  m_fresh[path] = Fresh{true, false, make_entry(pdir.get(), name, st, path, meta)};
}

void SnapshotBuilder::walk(const std::string& top) {
  m_walking = true;
  struct Done {
    bool& flag;
    ~Done() { flag = false; }
  } done{m_walking};
  m_walked_now.insert(top);
  erase_below(top);
  std::map<std::string, PathMeta> records;
  for (auto& [p, m] : m_src.meta->subtree(top)) {
    records.emplace(p, m);
  }
  auto meta_of = [&](const std::string& p) -> std::optional<PathMeta> {
    auto it = records.find(p);
    return it == records.end() ? std::nullopt : std::optional<PathMeta>(it->second);
  };
  bool top_is_dir = true;
  if (top.empty()) {
    m_root_walked = true;
  } else {
    std::string parent = parent_of(top), name = base_name(top);
    UniqueFd pdir(parent.empty()
                      ? ::fcntl(m_src.upper, F_DUPFD_CLOEXEC, 0)
                      : open_beneath(m_src.upper, parent, O_PATH | O_DIRECTORY | O_NOFOLLOW));
    struct stat st {};
    Fresh f;
    if (pdir && ::fstatat(pdir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
      f = Fresh{true, S_ISDIR(st.st_mode), make_entry(pdir.get(), name, st, top, meta_of(top))};
      top_is_dir = S_ISDIR(st.st_mode);
    } else {
      top_is_dir = false;
      if (auto m = meta_of(top)) {
        f.exists = true;
        f.walked = true;
        f.entry.name = name;
        f.entry.meta = m;
      }
    }
    m_fresh[top] = std::move(f);
  }
  // The upper directories below `top`, depth first, each opened from the one read last
  // when it lies below it (as compute_changes walks them): no fd per level.
  std::vector<std::string> todo;
  if (top_is_dir) {
    todo.push_back(top);
  }
  std::string last_path;
  UniqueFd last;
  while (!todo.empty()) {
    std::string dir = std::move(todo.back());
    todo.pop_back();
    UniqueFd fd;
    if (last && path_within(dir, last_path) && dir != last_path) {
      fd.reset(open_beneath(last.get(), dir.substr(last_path.empty() ? 0 : last_path.size() + 1),
                            O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
    } else {
      fd.reset(open_beneath(m_src.upper, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
    }
    if (!fd && errno == EACCES && m_may_chmod) {
      std::string parent = parent_of(dir);
      UniqueFd pdir(open_beneath(m_src.upper, parent, O_PATH | O_DIRECTORY | O_NOFOLLOW));
      if (pdir) {
        fd = open_readable(pdir.get(), base_name(dir), O_RDONLY | O_DIRECTORY, true);
      }
    }
    if (!fd) {
      if (errno == ENOENT || errno == ENOTDIR) {
        continue; // gone meanwhile: the change that took it marked it
      }
      if (errno == EACCES) {
        m_retry.add(dir, true); // the agent made it unreadable: read it while writers wait
        continue;
      }
      throw_errno("checkpoint: read directory", dir);
    }
    for (const std::string& name : list_names(fd.get(), dir)) {
      std::string child = join_path(dir, name);
      struct stat st {};
      if (::fstatat(fd.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        continue;
      }
      bool is_dir = S_ISDIR(st.st_mode);
      m_fresh[child] = Fresh{true, is_dir, make_entry(fd.get(), name, st, child, meta_of(child))};
      if (is_dir) {
        todo.push_back(child);
      }
    }
    last = std::move(fd);
    last_path = std::move(dir);
  }
  // Records of paths without an upper object: whiteouts, and the directories above them.
  for (auto& [p, m] : records) {
    if (p == top) {
      continue;
    }
    auto it = m_fresh.find(p);
    if (it != m_fresh.end() && it->second.exists) {
      it->second.entry.meta = m;
      continue;
    }
    Fresh f{true, true, {}};
    f.entry.name = base_name(p);
    f.entry.meta = m;
    m_fresh[p] = std::move(f);
    for (std::string a = parent_of(p); a != top && !a.empty(); a = parent_of(a)) {
      auto up = m_fresh.find(a);
      if (up != m_fresh.end() && up->second.exists) {
        break;
      }
      Fresh container{true, true, {}};
      container.entry.name = base_name(a);
      m_fresh[a] = std::move(container);
    }
  }
}

const TreeEntry* SnapshotBuilder::known(const std::string& path, const struct stat& st) {
  auto same = [&](const TreeEntry* e) {
    return e && !e->racy && e->type == type_of(st.st_mode) && e->ino == st.st_ino &&
           e->size == static_cast<uint64_t>(st.st_size) && e->mtime_ns == ns_of(st.st_mtim) &&
           e->ctime_ns == ns_of(st.st_ctim) &&
           (e->type != EntryType::File || e->ref != ContentRef::None);
  };
  if (const TreeEntry* old = base_entry(path); same(old)) {
    return old;
  }
  if (!m_base || !m_walking) {
    return nullptr;
  }
  // Moved here (a renamed directory): found by its inode number. The index costs the whole
  // base once, so only a walk (which reads a whole subtree anyway) asks for it.
  index_base_by_inode();
  auto it = m_by_inode->find(st.st_ino);
  return it != m_by_inode->end() && same(&it->second) ? &it->second : nullptr;
}

void SnapshotBuilder::index_base_by_inode() {
  if (m_by_inode) {
    return;
  }
  m_by_inode.emplace();
  if (!m_base) {
    return;
  }
  std::vector<ObjectId> todo{*m_base};
  std::unordered_set<ObjectId, ObjectIdHash> seen;
  while (!todo.empty()) {
    ObjectId id = todo.back();
    todo.pop_back();
    if (!seen.insert(id).second) {
      continue;
    }
    Tree t = parse_tree(m_store.read(id));
    for (TreeEntry& e : t.entries) {
      if (e.subtree) {
        todo.push_back(*e.subtree);
      }
      if (e.type == EntryType::File || e.type == EntryType::Symlink) {
        e.meta.reset();
        m_by_inode->emplace(e.ino, std::move(e));
      }
    }
  }
}

const Tree* SnapshotBuilder::base_tree(const std::string& dir) {
  if (auto it = m_base_trees.find(dir); it != m_base_trees.end()) {
    return it->second.get();
  }
  // From the deepest ancestor known, down (no recursion: paths may be deep).
  std::vector<std::string> chain{dir};
  while (!chain.back().empty() && !m_base_trees.count(parent_of(chain.back()))) {
    chain.push_back(parent_of(chain.back()));
  }
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    std::unique_ptr<Tree> t;
    if (m_base) {
      if (it->empty()) {
        t = std::make_unique<Tree>(parse_tree(m_store.read(*m_base)));
      } else if (const Tree* up = m_base_trees.at(parent_of(*it)).get()) {
        const TreeEntry* e = up->find(base_name(*it));
        if (e && e->subtree) {
          t = std::make_unique<Tree>(parse_tree(m_store.read(*e->subtree)));
        }
      }
    }
    m_base_trees.emplace(*it, std::move(t));
  }
  return m_base_trees.at(dir).get();
}

const TreeEntry* SnapshotBuilder::base_entry(const std::string& path) {
  if (!m_base || path.empty()) {
    return nullptr;
  }
  const Tree* t = base_tree(parent_of(path));
  return t ? t->find(base_name(path)) : nullptr;
}

TreeEntry SnapshotBuilder::make_entry(int dir, const std::string& name, const struct stat& st,
                                      const std::string& path,
                                      const std::optional<PathMeta>& meta) {
  TreeEntry e;
  e.name = name;
  e.type = type_of(st.st_mode);
  e.mode = st.st_mode & 07777;
  e.uid = st.st_uid;
  e.gid = st.st_gid;
  // Not the access time: reading a file (this snapshot does) changes it, and a tree that
  // changes with every read would be written again at every checkpoint.
  e.atime_ns = ns_of(st.st_mtim);
  e.mtime_ns = ns_of(st.st_mtim);
  e.ctime_ns = ns_of(st.st_ctim);
  e.ino = st.st_ino;
  e.nlink = st.st_nlink;
  e.size = static_cast<uint64_t>(st.st_size);
  if (e.type == EntryType::CharDevice || e.type == EntryType::BlockDevice) {
    e.rdev = st.st_rdev;
  }
  e.racy = e.ctime_ns > m_read_started - k_racy_ns;
  if (meta && !meta->empty()) {
    e.meta = meta;
  }
  if (e.type == EntryType::File || e.type == EntryType::Symlink) {
    if (const TreeEntry* old = known(path, st)) {
      e.ref = old->ref;
      e.content = old->content;
      e.xxh3 = old->xxh3;
      e.target = old->target;
      e.xattrs = old->xattrs;
      ++m_stats.reused;
      return e;
    }
  }
  if (e.type == EntryType::Symlink) {
    char target[PATH_MAX + 1];
    ssize_t len = ::readlinkat(dir, name.c_str(), target, sizeof target - 1);
    if (len < 0) {
      throw_errno("checkpoint: readlink", path);
    }
    e.target.assign(target, static_cast<size_t>(len));
    e.xxh3 = hash_bytes(e.target);
    return e;
  }
  e.xattrs = user_xattrs(dir, name);
  if (e.type != EntryType::File) {
    return e;
  }
  UniqueFd fd = open_readable(dir, name, O_RDONLY, m_may_chmod);
  if (!fd) {
    if (errno == EACCES) {
      // Unreadable to the daemon until it lends itself the right, which it does only
      // while writers wait: read it again then.
      m_retry.add(path, false);
      e.racy = true;
      return e;
    }
    if (errno == ENOENT) {
      e.racy = true; // gone meanwhile: the change that took it marked it
      return e;
    }
    throw_errno("checkpoint: open", path);
  }
  ContentStore::Stored s = m_store.put_file(fd.get(), e.size, path);
  ++m_stats.files_read;
  m_stats.bytes_read += s.size;
  if (s.added) {
    m_added.push_back(s.id);
  }
  struct stat after {};
  if (::fstat(fd.get(), &after) != 0 || ns_of(after.st_ctim) != e.ctime_ns ||
      after.st_size != st.st_size || s.size != e.size) {
    e.racy = true; // written while read: what was read stands for no moment; marked again
  }
  e.xxh3 = s.xxh3;
  e.ref = ContentRef::Object;
  e.content = s.id;
  // Unchanged since the agent found it: the base in bases/ holds the same bytes (checked
  // byte for byte through SHA-256: XXH3 alone is no proof against the agent).
  if (meta && meta->base && meta->base->hash && *meta->base->hash == s.xxh3 &&
      meta->base->size == s.size && m_src.bases >= 0) {
    std::string hex = s.xxh3.hex();
    UniqueFd b(::openat(m_src.bases, hex.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (b && sha256_of(b.get(), hex) == s.id) {
      e.ref = ContentRef::Base;
      e.content = {};
    }
  }
  return e;
}

ObjectId SnapshotBuilder::assemble() {
  // Every directory to write: those with a fresh entry below them, and those walked.
  std::unordered_map<std::string, std::vector<std::string>> fresh_children;
  std::unordered_map<std::string, std::vector<std::string>> rewritten_children;
  std::unordered_set<std::string> rewrite{""};
  auto add_rewrite = [&](const std::string& dir) {
    for (std::string d = dir; rewrite.insert(d).second; d = parent_of(d)) {
      rewritten_children[parent_of(d)].push_back(d);
      if (d.empty()) {
        break;
      }
    }
  };
  for (auto& [path, f] : m_fresh) {
    fresh_children[parent_of(path)].push_back(path);
    add_rewrite(parent_of(path));
    if (f.exists && f.walked) {
      add_rewrite(path);
    }
  }
  std::vector<std::string> order(rewrite.begin(), rewrite.end());
  auto depth = [](const std::string& p) {
    return p.empty() ? 0 : 1 + std::count(p.begin(), p.end(), '/');
  };
  std::sort(order.begin(), order.end(),
            [&](const std::string& a, const std::string& b) { return depth(a) > depth(b); });

  std::unordered_map<std::string, std::optional<ObjectId>> written;
  std::unordered_map<std::string, uint64_t> written_files; // non-directories below
  std::unordered_set<ObjectId, ObjectIdHash> named;        // content objects the result names
  for (const std::string& dir : order) {
    auto self = m_fresh.find(dir);
    bool complete = dir.empty()
                        ? m_root_walked
                        : self != m_fresh.end() && self->second.exists && self->second.walked;
    if (!dir.empty() && self != m_fresh.end() && self->second.exists &&
        !self->second.entry.is_container()) {
      continue; // a file stands here now: nothing below it
    }
    std::map<std::string, TreeEntry> entries;
    if (!complete) {
      if (const Tree* old = base_tree(dir)) {
        for (const TreeEntry& e : old->entries) {
          entries.emplace(e.name, e);
        }
      }
    }
    for (const std::string& child : fresh_children[dir]) {
      const Fresh& f = m_fresh.at(child);
      std::string name = base_name(child);
      auto w = written.find(child);
      if (!f.exists) {
        if (w != written.end() && w->second) {
          TreeEntry container; // records below a path with nothing of its own
          container.name = name;
          container.subtree = w->second;
          container.files = written_files[child];
          entries[name] = std::move(container);
        } else {
          entries.erase(name);
        }
        continue;
      }
      TreeEntry e = f.entry;
      if (e.is_container()) {
        if (w != written.end()) {
          e.subtree = w->second;
          e.files = written_files[child];
        } else {
          auto old = entries.find(name);
          bool keep = old != entries.end() && old->second.is_container() && !f.walked;
          e.subtree = keep ? old->second.subtree : std::nullopt;
          e.files = keep ? old->second.files : 0;
        }
      } else {
        e.subtree.reset();
        e.files = 0;
      }
      entries[name] = std::move(e);
    }
    for (const std::string& child : rewritten_children[dir]) {
      if (m_fresh.count(child)) {
        continue;
      }
      std::string name = base_name(child);
      auto old = entries.find(name);
      if (old != entries.end() && old->second.is_container()) {
        old->second.subtree = written[child];
        old->second.files = written_files[child];
      } else if (written[child]) {
        TreeEntry container;
        container.name = name;
        container.subtree = written[child];
        container.files = written_files[child];
        entries[name] = std::move(container);
      }
    }
    Tree tree;
    uint64_t files = 0;
    for (auto& [name, e] : entries) {
      if (e.type == EntryType::None && !e.meta && !e.subtree) {
        continue;
      }
      if (!e.subtree) {
        e.files = 0;
      }
      files += e.is_container() ? e.files : 1;
      if (e.type == EntryType::File && e.ref == ContentRef::Object) {
        named.insert(e.content);
      }
      tree.entries.push_back(std::move(e));
    }
    written_files[dir] = files;
    if (tree.entries.empty() && !dir.empty()) {
      written[dir] = std::nullopt;
    } else {
      written[dir] = m_store.put_bytes(serialize_tree(tree));
    }
  }
  // Stored by this build, named by nothing in it (read again later, or equal to a base).
  for (const ObjectId& id : m_added) {
    if (!named.count(id)) {
      std::string hex = id.hex();
      ::unlink((m_store.dir() / "objects" / hex.substr(0, 2) / hex.substr(2)).c_str());
    }
  }
  m_added.clear();
  return *written.at("");
}

} // namespace ws::fuse::store
