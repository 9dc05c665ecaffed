#include "fuse/changes.hpp"

#include "fuse/agent_git_seed.hpp"
#include "fuse/store/checkpoint_record.hpp"
#include "fuse/store/snapshot_builder.hpp"
#include "fuse/store/tree.hpp"
#include "fuse/system_error.hpp"
#include "fuse/unique_fd.hpp"
#include "fuse/upper_modes.hpp"
#include "fuse/walk_queue.hpp"

#include <climits>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <iterator>
#include <map>
#include <mutex>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>

namespace ws::fuse {

namespace {

/// One non-directory of the upper layer: what classifying it needs of its stat.
struct UpperObject {
  UpperObject(std::string p, const struct stat& st)
      : path(std::move(p)), mode(st.st_mode), size(static_cast<uint64_t>(st.st_size)),
        ino(st.st_ino), mtime_ns(nanoseconds(st.st_mtim)), ctime_ns(nanoseconds(st.st_ctim)) {}
  std::string path;
  mode_t mode = 0;
  uint64_t size = 0;
  uint64_t ino = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
};

/// Non-directories below directory `name` of `dir` (the directory's type from readdir, a
/// stat only where the filesystem does not say). Iterative, two fds at most.
size_t count_files_below(int dir, const std::string& name) {
  size_t count = 0;
  walk_beneath(dir, name, [&](std::string&&, bool is_dir) {
    count += is_dir ? 0 : 1;
    return true;
  });
  return count;
}

/// The number of non-directories below a directory, as a checkpoint's trees record it:
/// one tree read per component, instead of a listing of every directory below.
class FrozenCounts {
public:
  FrozenCounts(const std::filesystem::path& store_dir, const store::ObjectId& root)
      : m_store(store_dir), m_root(root) {}

  /// Nullopt when the checkpoint has no directory at `dir`.
  std::optional<uint64_t> files_below(const std::string& dir) {
    store::ObjectId tree_id = m_root;
    std::string at;
    size_t start = 0;
    while (true) {
      size_t slash = dir.find('/', start);
      std::string name = dir.substr(start, slash == std::string::npos ? slash : slash - start);
      const store::Tree& tree = parsed(at, tree_id);
      const store::TreeEntry* e = tree.find(name);
      if (!e || e->type != store::EntryType::Directory) {
        return std::nullopt;
      }
      if (slash == std::string::npos) {
        return e->subtree ? e->files : 0;
      }
      if (!e->subtree) {
        return std::nullopt;
      }
      tree_id = *e->subtree;
      at = dir.substr(0, slash);
      start = slash + 1;
    }
  }

private:
  const store::Tree& parsed(const std::string& path, const store::ObjectId& id) {
    auto it = m_trees.find(path);
    if (it == m_trees.end() || it->second.first != id) {
      it = m_trees.insert_or_assign(path, std::pair{id, store::parse_tree(m_store.read(id))}).first;
    }
    return it->second.second;
  }

  store::ContentStore m_store;
  store::ObjectId m_root;
  std::unordered_map<std::string, std::pair<store::ObjectId, store::Tree>> m_trees;
};

class ChangeScanner {
public:
  /// `only`: classify these paths alone (and the deletions their records say), not the
  /// whole upper layer. `count_only`: only the number of changes matters (see count()).
  ChangeScanner(const std::filesystem::path& lower_dir, const WorkspaceLayout& layout,
                ChangeScope scope, const std::vector<std::string>* only = nullptr,
                bool count_only = false)
      : m_scope(scope), m_only(only), m_count_only(count_only),
        m_meta(layout.meta_db(), Db::Mode::ReadOnly),
        m_lower(::open(lower_dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)),
        m_upper(::open(layout.upper().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)) {
    if (!m_lower) {
      throw_errno("open project directory", lower_dir.string());
    }
    if (!m_upper) {
      throw_errno("open upper layer", layout.upper().string());
    }
    m_private_git = agent_git_source(m_meta).has_value();
    for (auto& [path, meta] : m_meta.subtree(m_scope == ChangeScope::AgentGit ? ".git" : "")) {
      if (m_private_git && m_scope == ChangeScope::Work && in_agent_git(path)) {
        continue; // the agent's git: one line about it, not a change per file
      }
      m_records.emplace(path, meta);
    }
  }

  // Flat sorted vectors, not maps: an agent may leave hundreds of thousands of new files,
  // and a node and a string copy per file per map was most of the time.
  std::vector<Change> scan() {
    if (m_scope == ChangeScope::AgentGit && !m_private_git) {
      return {};
    }
    auto by_path = [](const auto& a, const auto& b) { return a.path < b.path; };
    if (m_only) {
      look_at_only();
      std::sort(m_upper_files.begin(), m_upper_files.end(), by_path);
    } else {
      walk_upper(); // sorts
    }
    m_changes.reserve(m_upper_files.size());
    for (const auto& obj : m_upper_files) {
      classify_upper(obj);
    }
    for (auto& [path, meta] : m_records) {
      if (m_scope == ChangeScope::AgentGit && path == ".git") {
        continue; // opaque over the real .git: what it hides is the person's, not deleted
      }
      if ((meta.whiteout || meta.opaque) && !created_by_agent(path) &&
          (!m_only || m_only_set.count(path))) {
        collect_hidden_lower(path);
      }
    }
    // Overlapping records (a whiteout inside an opaque directory) may find a path twice.
    std::sort(m_deleted.begin(), m_deleted.end(), by_path);
    m_deleted.erase(std::unique(m_deleted.begin(), m_deleted.end(),
                                [](const Change& a, const Change& b) { return a.path == b.path; }),
                    m_deleted.end());
    pair_renames();
    if (m_deleted.empty()) {
      return std::move(m_changes);
    }
    std::vector<Change> out;
    out.reserve(m_changes.size() + m_deleted.size());
    std::merge(std::make_move_iterator(m_changes.begin()), std::make_move_iterator(m_changes.end()),
               std::make_move_iterator(m_deleted.begin()), std::make_move_iterator(m_deleted.end()),
               std::back_inserter(out), by_path);
    return out;
  }

  /// Files below the directories count-only mode skipped, each one change.
  size_t skipped() const { return m_skipped; }

  /// Count-only: where directories of additions find their file counts first.
  void count_from(FrozenCounts* frozen) { m_frozen = frozen; }

private:
  /// The non-directories of the upper layer among `m_only`.
  void look_at_only() {
    for (const std::string& path : *m_only) {
      if (m_private_git && m_scope == ChangeScope::Work && in_agent_git(path)) {
        continue; // the agent's git (ChangeScope)
      }
      m_only_set.insert(path);
      UniqueFd fd(open_beneath(m_upper.get(), path, O_PATH | O_NOFOLLOW));
      struct stat st {};
      if (fd && ::fstat(fd.get(), &st) == 0 && !S_ISDIR(st.st_mode)) {
        st.st_mode = shown_mode_of(fd.get(), st.st_mode); // the agent's (upper_modes.hpp)
        m_upper_files.emplace_back(path, st);
      }
    }
  }

  /// Count-only: a directory the real tree does not have, with no record at or below it,
  /// holds nothing but additions (no base, no origin, nothing the real tree could lose
  /// there): its files are counted, not classified.
  bool all_added(const std::string& dir) {
    if (lower_identity(dir)) {
      return false;
    }
    for (auto it = m_records.lower_bound(dir); it != m_records.end(); ++it) {
      if (it->first.compare(0, dir.size(), dir) != 0) {
        break;
      }
      if (path_within(it->first, dir)) {
        return false;
      }
    }
    return true;
  }

  /// Every non-directory in the upper layer. Iterative, and holding two directory fds at
  /// most: the agent may nest directories deeper than any stack, and make more of them
  /// than a process may hold open (`ulimit -n`).
  void walk_upper() {
    if (m_scope == ChangeScope::AgentGit) {
      struct stat st {};
      if (::fstatat(m_upper.get(), ".git", &st, AT_SYMLINK_NOFOLLOW) != 0) {
        return; // the agent removed its git directory
      }
      if (!S_ISDIR(st.st_mode)) {
        st.st_mode = shown_mode_at(m_upper.get(), ".git", st.st_mode);
        m_upper_files.emplace_back(".git", st);
        return; // ... and put a file there (a gitdir: redirect)
      }
    }
    // Reading directories and stating files is most of what this costs when the agent made
    // many: two readers share the directories (each stat is a path lookup of its own). Not
    // when counting: that asks the real tree as it goes, from one thread.
    WalkQueue queue(m_scope == ChangeScope::AgentGit ? ".git" : "");
    std::vector<UpperObject> helper_found;
    std::unique_ptr<std::thread> helper;
    if (!m_count_only && std::thread::hardware_concurrency() > 1) {
      try {
        helper = std::make_unique<std::thread>([&] {
          read_dirs(queue, helper_found);
          sort_by_path(helper_found);
        });
      } catch (const std::system_error&) {
        // No thread to be had: this one reads them all.
      }
    }
    read_dirs(queue, m_upper_files);
    sort_by_path(m_upper_files); // while the helper sorts its own
    if (helper) {
      helper->join();
    }
    queue.check();
    if (helper_found.empty()) {
      return;
    }
    std::vector<UpperObject> all;
    all.reserve(m_upper_files.size() + helper_found.size());
    std::merge(std::make_move_iterator(m_upper_files.begin()),
               std::make_move_iterator(m_upper_files.end()),
               std::make_move_iterator(helper_found.begin()),
               std::make_move_iterator(helper_found.end()), std::back_inserter(all),
               [](const UpperObject& a, const UpperObject& b) { return a.path < b.path; });
    m_upper_files = std::move(all);
  }

  static void sort_by_path(std::vector<UpperObject>& objects) {
    std::sort(objects.begin(), objects.end(),
              [](const UpperObject& a, const UpperObject& b) { return a.path < b.path; });
  }

  /// One reader of walk_upper: directories from `queue` until none is left, their
  /// non-directories into `out`. Holds three fds at most.
  void read_dirs(WalkQueue& queue, std::vector<UpperObject>& out) {
    std::string last_path; // the directory read last, still open: its subdirectories are
    UniqueFd last;         // opened from it, not walked again from the top
    std::vector<std::string> found;
    std::string dir;
    try {
      while (queue.take(dir)) {
        UniqueFd fd = read_dir(dir, last, last_path, found, out);
        last = std::move(fd);
        last_path = std::move(dir);
        queue.done(found);
      }
    } catch (...) {
      queue.fail(std::current_exception());
    }
  }

  UniqueFd read_dir(const std::string& dir, const UniqueFd& last, const std::string& last_path,
                    std::vector<std::string>& subdirs, std::vector<UpperObject>& out) {
    UniqueFd fd;
    if (last && path_within(dir, last_path) && dir != last_path) {
      fd.reset(open_beneath(last.get(), dir.substr(last_path.empty() ? 0 : last_path.size() + 1),
                            O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
    } else {
      fd.reset(open_beneath(m_upper.get(), dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
    }
    if (!fd) {
      if (errno == EACCES) {
        // Only a person who is not root meets this: the agent took its own directory's
        // read or search permission away (as ext4 lets an owner do).
        throw SystemError(EACCES, "read upper directory '" + dir +
                                      "', which the agent made unreadable (chmod u+rx it in "
                                      "the view, then try again)");
      }
      throw_errno("read upper directory", dir);
    }
    DIR* d = ::fdopendir(::fcntl(fd.get(), F_DUPFD_CLOEXEC, 0));
    if (!d) {
      throw_errno("read upper directory", dir);
    }
    std::unique_ptr<DIR, int (*)(DIR*)> guard(d, ::closedir);
    while (dirent* e = ::readdir(d)) {
      if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) {
        continue;
      }
      if (m_private_git && dir.empty() && std::strcmp(e->d_name, ".git") == 0) {
        continue; // the agent's git (ChangeScope)
      }
      struct stat st {};
      // A directory needs no stat: the filesystem says what it is.
      if (e->d_type != DT_DIR && ::fstatat(fd.get(), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        continue;
      }
      if (e->d_type == DT_DIR || S_ISDIR(st.st_mode)) {
        std::string child = join_path(dir, e->d_name);
        if (m_count_only && all_added(child)) {
          std::optional<uint64_t> known = m_frozen ? m_frozen->files_below(child) : std::nullopt;
          m_skipped += known ? *known : count_files_below(fd.get(), e->d_name);
          continue;
        }
        subdirs.push_back(std::move(child));
      } else {
        // The agent's mode, not the upper file's (only a marked file costs a read).
        st.st_mode = shown_mode_at(fd.get(), e->d_name, st.st_mode);
        out.emplace_back(join_path(dir, e->d_name), st);
      }
    }
    return fd;
  }

  const PathMeta* record(const std::string& path) const {
    auto it = m_records.find(path);
    return it == m_records.end() ? nullptr : &it->second;
  }

  /// What stands at `path` in the real tree. One fstatat in the directory asked last
  /// time (files come sorted, so siblings follow each other), and none at all below a
  /// directory the real tree does not have (an agent's new directory of new files).
  std::optional<Identity> lower_identity(const std::string& path) {
    struct stat st {};
    if (!m_lower_files.lstat(path, st)) {
      return std::nullopt;
    }
    return identity_of(st);
  }

  std::optional<Hash128> lower_hash(const std::string& path, const Identity& base) {
    // The base's hash was not recorded (a deletion): the real file still is the base only
    // if it has not moved since.
    auto now = lower_identity(path);
    if (!now || now->ino != base.ino || now->size != base.size || now->mtime_ns != base.mtime_ns) {
      return std::nullopt;
    }
    return content_hash(m_lower.get(), path, base.mode);
  }

  static std::optional<Hash128> content_hash(int root, const std::string& path, mode_t mode) {
    if (S_ISLNK(mode)) {
      UniqueFd fd(open_beneath(root, path, O_PATH | O_NOFOLLOW));
      char buf[PATH_MAX];
      ssize_t n = fd ? ::readlinkat(fd.get(), "", buf, sizeof buf) : -1;
      if (n < 0) {
        return std::nullopt;
      }
      return hash_bytes(std::string_view(buf, static_cast<size_t>(n)));
    }
    if (!S_ISREG(mode)) {
      return Hash128{};
    }
    UniqueFd fd(open_beneath(root, path, O_RDONLY | O_NOFOLLOW));
    if (!fd) {
      return std::nullopt;
    }
    return hash_fd(fd.get(), path);
  }

  /// The agent created `path` or a directory above it where the real tree had nothing
  /// (an empty base): whatever the real tree holds there now appeared later, and is not
  /// what the agent changed.
  bool created_by_agent(const std::string& path) const {
    for (std::string p = path;;) {
      const PathMeta* rec = record(p);
      if (rec && rec->base) {
        return rec->base->mode == 0;
      }
      size_t slash = p.rfind('/');
      if (slash == std::string::npos) {
        return false;
      }
      p.resize(slash);
    }
  }

  void classify_upper(const UpperObject& obj) {
    const std::string& path = obj.path;
    const PathMeta* rec = record(path);
    std::optional<mode_t> real_mode;
    std::optional<Identity> base;
    if (rec && rec->base) {
      base = rec->base;
    } else {
      base = lower_identity(path);
      real_mode = base ? base->mode : 0;
    }
    if (m_scope == ChangeScope::AgentGit && !(rec && rec->base) && !below_shared_git_dir(path)) {
      base.reset(); // not copied when the state was made: the agent's git made it
    }
    if (created_by_agent(path)) {
      base.reset();
    }
    Change c;
    c.path = path;
    c.real_mode = real_mode;
    c.mode = obj.mode;
    c.size = obj.size;
    c.ino = obj.ino;
    c.mtime_ns = obj.mtime_ns;
    c.ctime_ns = obj.ctime_ns;
    if (!base || S_ISDIR(base->mode)) {
      if (base) { // a file where a directory stood: the directory's files are deleted
        c.kind = ChangeKind::TypeChanged;
        c.base = base;
      } else {
        c.kind = ChangeKind::Added;
        if (rec && rec->origin_path && *rec->origin_path != path) {
          c.from = *rec->origin_path;
          c.base = rec->origin;
        }
      }
      m_changes.push_back(std::move(c));
      return;
    }
    c.base = base;
    if ((base->mode & S_IFMT) != (obj.mode & S_IFMT)) {
      c.kind = ChangeKind::TypeChanged;
      m_changes.push_back(std::move(c));
      return;
    }
    bool same = (base->mode & 07777) == (obj.mode & 07777);
    if (same && S_ISREG(base->mode)) {
      same = base->size == obj.size;
    }
    if (same && (S_ISREG(base->mode) || S_ISLNK(base->mode))) {
      std::optional<Hash128> before = base->hash ? base->hash : lower_hash(path, *base);
      std::optional<Hash128> now = content_hash(m_upper.get(), path, obj.mode);
      same = before && now && *before == *now;
    }
    if (!same) {
      c.kind = ChangeKind::Modified;
      m_changes.push_back(std::move(c));
    }
  }

  /// Every lower non-directory at or below `top` that the view no longer shows. Iterative,
  /// like walk_upper.
  void collect_hidden_lower(const std::string& top) {
    std::vector<std::string> todo{top};
    while (!todo.empty()) {
      std::string path = std::move(todo.back());
      todo.pop_back();
      UniqueFd fd(open_beneath(m_lower.get(), path, O_PATH | O_NOFOLLOW));
      struct stat st {};
      if (!fd || ::fstat(fd.get(), &st) != 0) {
        continue;
      }
      if (!S_ISDIR(st.st_mode)) {
        add_deleted(path);
        continue;
      }
      UniqueFd dfd(::openat(fd.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
      if (!dfd) {
        continue;
      }
      DIR* d = ::fdopendir(dfd.release());
      std::unique_ptr<DIR, int (*)(DIR*)> guard(d, ::closedir);
      while (dirent* e = ::readdir(d)) {
        if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
          todo.push_back(join_path(path, e->d_name));
        }
      }
    }
  }

  void add_deleted(const std::string& path) {
    auto it =
        std::lower_bound(m_upper_files.begin(), m_upper_files.end(), path,
                         [](const UpperObject& o, const std::string& p) { return o.path < p; });
    if (it != m_upper_files.end() && it->path == path) {
      return; // something stands there in the view: classified above
    }
    Change c;
    c.kind = ChangeKind::Deleted;
    c.path = path;
    const PathMeta* rec = record(path);
    c.base = rec && rec->base ? rec->base : lower_identity(path);
    c.unseen = !(rec && rec->base);
    m_deleted.push_back(std::move(c));
  }

  /// An added path whose origin was deleted is a rename; with the origin still there, a
  /// copy. Each deletion pairs with one addition at most.
  void pair_renames() {
    std::unordered_map<std::string_view, size_t> deleted;
    for (size_t i = 0; i < m_deleted.size(); ++i) {
      deleted.emplace(m_deleted[i].path, i);
    }
    std::vector<bool> paired(m_deleted.size());
    for (auto& c : m_changes) {
      if (c.kind != ChangeKind::Added || c.from.empty()) {
        continue;
      }
      auto it = deleted.find(c.from);
      if (it != deleted.end() && !paired[it->second]) {
        c.kind = ChangeKind::Renamed;
        paired[it->second] = true;
      } else {
        // Copied, not moved (a hard link, or a name the origin's path got back): the origin
        // is still there, so this is a new file; its origin is no base it replaced.
        c.from.clear();
        c.base.reset();
      }
    }
    size_t kept = 0;
    for (size_t i = 0; i < m_deleted.size(); ++i) {
      if (!paired[i]) {
        if (kept != i) { // not onto itself: a self-moved string may come out empty
          m_deleted[kept] = std::move(m_deleted[i]);
        }
        ++kept;
      }
    }
    m_deleted.resize(kept);
  }

  ChangeScope m_scope;
  const std::vector<std::string>* m_only = nullptr;
  std::unordered_set<std::string> m_only_set;
  bool m_count_only = false;
  size_t m_skipped = 0;
  FrozenCounts* m_frozen = nullptr;
  bool m_private_git = false;
  MetaStore m_meta;
  UniqueFd m_lower;
  UniqueFd m_upper;
  std::map<std::string, PathMeta> m_records;
  std::vector<UpperObject> m_upper_files;     ///< sorted by path once walked
  std::vector<Change> m_changes;              ///< of upper files, in their order
  std::vector<Change> m_deleted;              ///< lower files the view no longer shows
  BeneathOpener m_lower_files{m_lower.get()}; ///< lower_identity's: siblings share a walk
};

} // namespace

std::vector<Change> compute_changes(const std::filesystem::path& lower_dir,
                                    const WorkspaceLayout& layout, ChangeScope scope) {
  return ChangeScanner(lower_dir, layout, scope).scan();
}

std::vector<Change> compute_changes_at(const std::filesystem::path& lower_dir,
                                       const WorkspaceLayout& layout,
                                       const std::vector<std::string>& paths) {
  return ChangeScanner(lower_dir, layout, ChangeScope::Work, &paths).scan();
}

size_t count_changes(const std::filesystem::path& lower_dir, const WorkspaceLayout& layout,
                     const std::filesystem::path& frozen) {
  ChangeScanner scanner(lower_dir, layout, ChangeScope::Work, nullptr, true);
  std::optional<FrozenCounts> counts;
  if (!frozen.empty()) {
    if (std::optional<store::ObjectId> root = store::snapshot_root(frozen)) {
      counts.emplace(layout.store(), *root);
      scanner.count_from(&*counts);
    }
  }
  size_t classified = scanner.scan().size();
  return classified + scanner.skipped();
}

} // namespace ws::fuse
