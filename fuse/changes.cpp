#include "fuse/changes.hpp"

#include "fuse/agent_git_seed.hpp"
#include "fuse/system_error.hpp"
#include "fuse/unique_fd.hpp"

#include <climits>

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <map>
#include <string_view>
#include <unordered_map>

namespace ws::fuse {

namespace {

int openat2_beneath(int dir, const char* rel, int flags) {
  open_how how{};
  how.flags = static_cast<uint64_t>(flags | O_CLOEXEC);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  return static_cast<int>(::syscall(SYS_openat2, dir, rel, &how, sizeof how));
}

/// The longest path handed to the kernel in one call: PATH_MAX counts the terminating NUL,
/// and a component (at most NAME_MAX) always fits in a chunk.
constexpr size_t k_chunk = PATH_MAX - 1;

} // namespace

int open_beneath(int root, const std::string& rel, int flags) {
  if (rel.size() <= k_chunk) {
    return openat2_beneath(root, rel.empty() ? "." : rel.c_str(), flags);
  }
  // Longer than one path string may be (the agent can nest directories without limit):
  // walk it in chunks of whole components, each resolved beneath the directory the one
  // before opened, with the same rules (no symlink, no "..", never above that directory),
  // so the whole walk stays beneath `root` as one openat2 would.
  UniqueFd dir;
  int at = root;
  size_t start = 0;
  while (rel.size() - start > k_chunk) {
    size_t cut = rel.rfind('/', start + k_chunk);
    if (cut == std::string::npos || cut <= start) {
      errno = ENAMETOOLONG; // one component longer than a chunk: no file has that name
      return -1;
    }
    std::string chunk = rel.substr(start, cut - start);
    UniqueFd next(openat2_beneath(at, chunk.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW));
    if (!next) {
      return -1;
    }
    dir = std::move(next);
    at = dir.get();
    start = cut + 1;
  }
  return openat2_beneath(at, rel.c_str() + start, flags);
}

namespace {

/// One non-directory of the upper layer: what classifying it needs of its stat.
struct UpperObject {
  std::string path;
  mode_t mode = 0;
  uint64_t size = 0;
};

class ChangeScanner {
public:
  ChangeScanner(const std::filesystem::path& lower_dir, const WorkspaceLayout& layout,
                ChangeScope scope)
      : m_scope(scope), m_meta(layout.meta_db(), Db::Mode::ReadOnly),
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
    walk_upper();
    auto by_path = [](const auto& a, const auto& b) { return a.path < b.path; };
    std::sort(m_upper_files.begin(), m_upper_files.end(), by_path);
    m_changes.reserve(m_upper_files.size());
    for (const auto& obj : m_upper_files) {
      classify_upper(obj);
    }
    for (auto& [path, meta] : m_records) {
      if (m_scope == ChangeScope::AgentGit && path == ".git") {
        continue; // opaque over the real .git: what it hides is the person's, not deleted
      }
      if ((meta.whiteout || meta.opaque) && !created_by_agent(path)) {
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

private:
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
        m_upper_files.push_back({".git", st.st_mode, static_cast<uint64_t>(st.st_size)});
        return; // ... and put a file there (a gitdir: redirect)
      }
    }
    std::vector<std::string> todo{m_scope == ChangeScope::AgentGit ? ".git" : ""};
    std::string last_path; // the directory read last, still open: its subdirectories are
    UniqueFd last;         // opened from it, not walked again from the top
    while (!todo.empty()) {
      std::string dir = std::move(todo.back());
      todo.pop_back();
      UniqueFd fd;
      if (last && path_within(dir, last_path) && dir != last_path) {
        fd.reset(open_beneath(last.get(), dir.substr(last_path.empty() ? 0 : last_path.size() + 1),
                              O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
      } else {
        fd.reset(open_beneath(m_upper.get(), dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
      }
      if (!fd) {
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
        if (::fstatat(fd.get(), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
          continue;
        }
        if (S_ISDIR(st.st_mode)) {
          todo.push_back(join_path(dir, e->d_name));
        } else {
          m_upper_files.push_back(
              {join_path(dir, e->d_name), st.st_mode, static_cast<uint64_t>(st.st_size)});
        }
      }
      last = std::move(fd);
      last_path = std::move(dir);
    }
  }

  const PathMeta* record(const std::string& path) const {
    auto it = m_records.find(path);
    return it == m_records.end() ? nullptr : &it->second;
  }

  /// What stands at `path` in the real tree. One fstatat in the directory asked last
  /// time (files come sorted, so siblings follow each other), and none at all below a
  /// directory the real tree does not have (an agent's new directory of new files).
  std::optional<Identity> lower_identity(const std::string& path) {
    size_t slash = path.rfind('/');
    std::string_view parent(path.data(), slash == std::string::npos ? 0 : slash);
    if (!m_lower_parent_valid || parent != m_lower_parent_path) {
      m_lower_parent.reset(parent.empty() ? ::fcntl(m_lower.get(), F_DUPFD_CLOEXEC, 0)
                                          : open_beneath(m_lower.get(), std::string(parent),
                                                         O_PATH | O_DIRECTORY | O_NOFOLLOW));
      m_lower_parent_path.assign(parent);
      m_lower_parent_valid = true;
    }
    struct stat st {};
    const char* leaf = path.c_str() + (slash == std::string::npos ? 0 : slash + 1);
    if (!m_lower_parent || ::fstatat(m_lower_parent.get(), leaf, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      return std::nullopt;
    }
    Identity id;
    id.ino = st.st_ino;
    id.size = static_cast<uint64_t>(st.st_size);
    id.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    id.mode = st.st_mode;
    return id;
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
    std::optional<Identity> base = rec && rec->base ? rec->base : lower_identity(path);
    if (m_scope == ChangeScope::AgentGit && !(rec && rec->base) && !below_shared_git_dir(path)) {
      base.reset(); // not copied when the state was made: the agent's git made it
    }
    if (created_by_agent(path)) {
      base.reset();
    }
    Change c;
    c.path = path;
    c.mode = obj.mode;
    c.size = obj.size;
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

  static bool below_shared_git_dir(const std::string& path) {
    for (size_t slash = path.find('/'); slash != std::string::npos;
         slash = path.find('/', slash + 1)) {
      if (shared_git_dir(std::string_view(path).substr(0, slash))) {
        return true;
      }
    }
    return false;
  }

  ChangeScope m_scope;
  bool m_private_git = false;
  MetaStore m_meta;
  UniqueFd m_lower;
  UniqueFd m_upper;
  std::map<std::string, PathMeta> m_records;
  std::vector<UpperObject> m_upper_files; ///< sorted by path once walked
  std::vector<Change> m_changes;          ///< of upper files, in their order
  std::vector<Change> m_deleted;          ///< lower files the view no longer shows
  // lower_identity's cache: the real tree's directory looked in last (invalid fd: missing).
  std::string m_lower_parent_path;
  UniqueFd m_lower_parent;
  bool m_lower_parent_valid = false;
};

} // namespace

std::vector<Change> compute_changes(const std::filesystem::path& lower_dir,
                                    const WorkspaceLayout& layout, ChangeScope scope) {
  return ChangeScanner(lower_dir, layout, scope).scan();
}

} // namespace ws::fuse
