// The person's git never runs what the agent planted: at the paths git obeys (config,
// hooks, gitdir redirects; git_paths.hpp), the person's processes get the real tree's
// object, read-only, through nodes of their own; the agent keeps its view. Why it works with
// the kernel's caches, and where it stops: docs/filesystem.md, "The agent's .git and the
// person's git".
#include "fuse/log.hpp"
#include "fuse/overlay_fs.hpp"
#include "fuse/system_error.hpp"

#include <fuse_lowlevel.h>

#include <fcntl.h>
#include <sys/stat.h>

namespace ws::fuse {

namespace {

UniqueFd open_path(int dirfd, const std::string& name, int extra = 0) {
  return UniqueFd(::openat(dirfd, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC | extra));
}

} // namespace

Entry OverlayFs::lookup_git_locked(const Caller& c, Node* parent, std::string_view name,
                                   const std::string& path, GitExposure exposure) {
  std::optional<Found> f = try_resolve_locked(parent, name, path);
  bool sensitive =
      f ? is_git_sensitive(exposure, f->st.st_mode & S_IFMT) : exposure == GitExposure::always;
  if (sensitive && m_hosts.is_host(c.pid)) {
    if (!f) {
      // Nothing planted: a miss in the real tree is a plain miss (git asks for
      // info/attributes, commondir and hooks that are not there on every command).
      try {
        return guard_entry_locked(parent, name, path);
      } catch (const SystemError& e) {
        if (e.err() != EACCES) {
          throw;
        }
        return {nullptr, {}, 0.0};
      }
    }
    return guard_entry_locked(parent, name, path);
  }
  if (!f) {
    // Not cached when the name is sensitive: the person's next lookup must reach us.
    return {nullptr, {}, sensitive ? 0.0 : negative_timeout(parent)};
  }
  return entry_from_locked(parent, name, path, std::move(*f));
}

Entry OverlayFs::guard_entry_locked(Node* parent, std::string_view name, const std::string& path) {
  // From the lower root, not from the parent's lower fd: the agent may have made the parent
  // its own (opaque, renamed) while the real tree still has the object. Below the agent's
  // private `.git`, from the real common git directory (the same one, or, for a linked
  // worktree whose `.git` is a file, where its config and hooks are).
  std::string_view rest = path;
  bool private_git = m_real_git && rest.rfind(".git/", 0) == 0;
  UniqueFd dir(::fcntl(private_git ? m_real_git.get() : m_lower_root.get(), F_DUPFD_CLOEXEC, 0));
  if (private_git) {
    rest.remove_prefix(5);
  }
  for (size_t slash; (slash = rest.find('/')) != std::string_view::npos;) {
    dir = open_path(dir.get(), std::string(rest.substr(0, slash)), O_DIRECTORY);
    if (!dir) {
      break; // missing, or a symlink in the real tree: nothing to show
    }
    rest.remove_prefix(slash + 1);
  }
  struct stat st {};
  if (!dir || ::fstatat(dir.get(), std::string(name).c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    SPDLOG_LOGGER_DEBUG(&logger(), "git guard: '{}' refused, the real tree has none", path);
    throw SystemError(EACCES, "'" + path + "' is the agent's: the real tree has none to show");
  }
  return attach_guard_locked(parent, name, dir.get(), st, path);
}

Entry OverlayFs::guard_child_locked(Node* parent, std::string_view name) {
  std::string path = join_path(path_locked(parent), name);
  struct stat st {};
  if (::fstatat(parent->lower_fd.get(), std::string(name).c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno != ENOENT && errno != ENOTDIR) {
      throw_errno("lookup (real tree)", path);
    }
    return {nullptr, {}, negative_timeout(parent)};
  }
  return attach_guard_locked(parent, name, parent->lower_fd.get(), st, path);
}

Entry OverlayFs::attach_guard_locked(Node* parent, std::string_view name_view, int dir_fd,
                                     const struct stat& st, const std::string& path) {
  std::string name(name_view);
  UniqueFd obj = open_path(dir_fd, name, S_ISDIR(st.st_mode) ? O_DIRECTORY : 0);
  if (!obj) {
    throw_errno("lookup (real tree)", path);
  }
  Node* n = nullptr;
  {
    std::lock_guard table(m_table);
    // Guard children of a guard directory are its only children.
    auto& siblings = parent->guard ? parent->children : parent->guards;
    if (auto it = siblings.find(name); it != siblings.end()) {
      Node* existing = it->second;
      if (existing->backing_ino == st.st_ino && existing->backing_dev == st.st_dev &&
          existing->type == (st.st_mode & S_IFMT)) {
        ++existing->nlookup;
        n = existing;
      } else {
        detach_locked(existing); // replaced in the real tree: a fresh inode for the kernel
      }
    }
    if (!n) {
      auto owned = std::make_unique<Node>();
      n = owned.get();
      n->dir_fds = &m_dir_fds;
      n->parent = parent;
      n->name = name;
      n->guard = true;
      n->type = st.st_mode & S_IFMT;
      n->generation = m_next_generation.fetch_add(1);
      n->nlookup = 1;
      n->backing_dev = st.st_dev;
      n->backing_ino = st.st_ino;
      n->ino = st.st_ino;
      // A guard stands where the agent's object is sensitive, whatever the real one is:
      // neither may be cached, or the other side would be handed this one.
      n->git_sensitive = !parent->guard || is_git_sensitive(path, n->type);
      if (n->is_dir()) {
        n->lower_fd.set(std::move(obj));
        n->lower_fd.fix(); // opened from a place of its own: never evicted
        watch_locked(n);
      } else {
        n->pinned_fd = obj.release();
      }
      n->stable = parent->watch.load() >= 0;
      siblings.emplace(name, n);
      ++parent->child_refs;
      m_nodes.emplace(n, std::move(owned));
    }
  }
  struct stat shown = st;
  present(n, shown);
  return {n, shown, timeout_for(n, shown)};
}

void OverlayFs::refuse_guard(const std::string& path) {
  throw SystemError(EACCES, "'" + path + "' shows the real tree to your processes: read-only");
}

void OverlayFs::refuse_host_on_agent_node(const Caller& c, const Node* n) const {
  if (m_hosts.is_host(c.pid)) {
    throw SystemError(EACCES, "'" + n->name + "' is the agent's, at a path your git obeys");
  }
}

void OverlayFs::check_git_change(const Caller& c, const Node* parent, const std::string& path,
                                 mode_t type, bool with_content) {
  if (parent->guard) {
    refuse_guard(path);
  }
  GitExposure exposure = git_exposure(path);
  bool sensitive = is_git_sensitive(exposure, type) ||
                   // A directory moved there brings what it holds: perhaps a git directory's
                   // config or hooks. (An empty one, made there, brings nothing.)
                   (with_content && S_ISDIR(type) && exposure != GitExposure::none);
  if (sensitive && m_hosts.is_host(c.pid)) {
    throw SystemError(EACCES, "'" + path + "' is where the agent's git keeps what yours obeys: " +
                                  "not changed from outside ws run");
  }
}

void OverlayFs::check_git_rename_locked(Node* parent, std::string_view name,
                                        const std::string& spath, mode_t stype,
                                        const std::string& dpath) {
  if (git_exposure(dpath) == GitExposure::none && git_exposure(spath) == GitExposure::none) {
    return; // no .git component on either side: nothing below changes its class
  }
  if (S_ISLNK(stype)) {
    if (is_git_sensitive(dpath, S_IFLNK) && !is_git_sensitive(spath, S_IFLNK)) {
      throw SystemError(EXDEV, "rename of a symlink to '" + dpath + "', which git obeys");
    }
    return;
  }
  if (!S_ISDIR(stype)) {
    return;
  }
  // Symlinks below a moved directory that the kernel knows (only those can be cached).
  std::lock_guard table(m_table);
  auto it = parent->children.find(std::string(name));
  if (it == parent->children.end()) {
    return;
  }
  std::vector<std::pair<const Node*, std::string>> todo{{it->second, ""}};
  while (!todo.empty()) {
    auto [dir, rel] = std::move(todo.back());
    todo.pop_back();
    for (const auto& [child_name, child] : dir->children) {
      std::string child_rel = rel.empty() ? child_name : rel + "/" + child_name;
      if (child->is_dir()) {
        todo.emplace_back(child, std::move(child_rel));
      } else if (child->type == S_IFLNK && !child->git_sensitive.load() &&
                 is_git_sensitive(join_path(dpath, child_rel), S_IFLNK)) {
        throw SystemError(EXDEV, "rename to '" + dpath + "' would put the symlink '" + child_rel +
                                     "' where git obeys it");
      }
    }
  }
}

void OverlayFs::update_git_flags_locked(Node* n, const std::string& path,
                                        std::vector<uint64_t>& became) {
  // All under m_table (no system call): a child not held by the kernel may be freed by a
  // forget the moment the table is unlocked.
  std::lock_guard table(m_table);
  std::vector<std::pair<Node*, std::string>> todo{{n, path}};
  while (!todo.empty()) {
    auto [node, node_path] = std::move(todo.back());
    todo.pop_back();
    bool now = is_git_sensitive(node_path, node->type);
    if (!node->git_sensitive.exchange(now) && now) {
      became.push_back(nodeid(node));
    }
    for (const auto& [name, child] : node->children) {
      todo.emplace_back(child, join_path(node_path, name));
    }
  }
}

void OverlayFs::settle_git_rename(const std::vector<uint64_t>& became,
                                  std::vector<std::pair<uint64_t, std::string>> entries) {
  if (became.empty() || !m_invalidator.attributes) {
    return;
  }
  // Now, before the reply: the kernel keeps the moved dentries with the timeouts they had
  // (long), so until they are dropped, the permission check of every open of these nodes
  // must fetch attributes, which the person's processes are refused (check_git_guard).
  for (uint64_t id : became) {
    m_invalidator.attributes(id);
  }
  // Soon after the reply: the moved entries themselves, so the person's next lookup of
  // these names reaches us and gets the real tree's version instead of a refusal.
  if (m_deferred) {
    for (auto& [parent, name] : entries) {
      m_deferred->entry(parent, std::move(name));
    }
  }
}

bool OverlayFs::skip_freshen(const Node* n, const std::string& path, int to_set) const {
  constexpr int k_times =
      FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_ATIME_NOW | FUSE_SET_ATTR_MTIME_NOW;
  if (!m_real_git || n->guard || n->is_dir() || n->on_upper.load() || (to_set & ~k_times) != 0 ||
      path.rfind(".git/objects/", 0) != 0) {
    return false;
  }
  return true; // a real object (or pack) the agent's git only touches
}

} // namespace ws::fuse
