// Operations on names: create directories, links and special files; unlink, rmdir, rename.
#include "fuse/overlay_fs.hpp"
#include "fuse/system_error.hpp"
#include "fuse/upper_modes.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <unordered_set>

namespace ws::fuse {

namespace {
/// Room a new name needs below the disk limit: a file may be empty, but a directory or a long
/// symlink takes a block, and a workspace at its limit makes nothing new.
constexpr uint64_t k_entry_room = 4096;
} // namespace

Entry OverlayFs::attach_entry_locked(Node* parent, std::string_view name, const std::string& path) {
  return entry_from_locked(parent, name, path, resolve_locked(parent, name, path));
}

std::optional<Identity> OverlayFs::lower_at_locked(Node* parent, std::string_view name,
                                                   const std::string& path) {
  int pl = parent->lower_fd.load();
  if (pl < 0 || m_meta.is_whiteout(path)) {
    return std::nullopt;
  }
  struct stat st {};
  if (::fstatat(pl, std::string(name).c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return std::nullopt;
  }
  return lower_identity(st);
}

bool OverlayFs::is_empty_view_dir(const Found& f, const std::string& path) {
  auto has_entries = [&](int fd, bool lower) {
    UniqueFd dfd(::openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dfd) {
      throw_errno("read directory", path);
    }
    DIR* d = ::fdopendir(dfd.release());
    std::unique_ptr<DIR, int (*)(DIR*)> guard(d, ::closedir);
    std::unordered_set<std::string> whiteouts;
    if (lower) {
      for (auto& w : m_meta.whiteouts_in(path)) {
        whiteouts.insert(w);
      }
    }
    while (dirent* e = ::readdir(d)) {
      if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) {
        continue;
      }
      if (!lower || !whiteouts.count(e->d_name)) {
        return true;
      }
    }
    return false;
  };
  if (f.upper && has_entries(f.upper.get(), false)) {
    return false;
  }
  return !(f.lower && has_entries(f.lower.get(), true));
}

void OverlayFs::note_created_locked(Node* parent, const std::string& path) {
  if (parent->lower_fd.load() < 0) {
    return; // inside the agent's own directory: its record already says so
  }
  PathMeta meta = m_meta.get(path).value_or(PathMeta{});
  if (!meta.base) {
    // Remember that nothing stood here: a file the person creates at this path later is
    // theirs, and `ws apply` must see both added, not an edit of theirs.
    meta.base = Identity{};
    m_meta.put(path, meta);
  }
}

void OverlayFs::settle_new_mode(int dirfd, const std::string& name, int fd, mode_t mode,
                                const std::string& path) const {
  if (m_umask_applies && (mode & 0777 & m_umask) == 0) {
    return; // the daemon's umask took nothing from `mode`
  }
  if (m_umask_applies && fd >= 0 && (mode & 07000) == 0) {
    // A new file gains no setuid, setgid or sticky bit it was not made with (unlike a
    // directory in a setgid one): its mode is `mode` exactly, no stat needed to say so.
    if (::fchmod(fd, mode & 0777) != 0) {
      throw_errno("chmod new object", path);
    }
    return;
  }
  struct stat st {};
  int rc = fd >= 0 ? ::fstat(fd, &st) : ::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW);
  if (rc != 0) {
    throw_errno("stat new object", path);
  }
  if ((st.st_mode & 0777) == (mode & 0777)) {
    return; // the common case: the caller's umask took at least what the daemon's takes
  }
  // Only the bits a umask touches: setuid/setgid stay as creating and chown left them.
  mode_t want = (st.st_mode & 07000) | (mode & 0777);
  rc = fd >= 0 ? ::fchmod(fd, want) : ::fchmodat(dirfd, name.c_str(), want, AT_SYMLINK_NOFOLLOW);
  if (rc != 0) {
    throw_errno("chmod new object", path);
  }
}

void OverlayFs::touch_parent_locked(Node* parent) {
  // Deleting a real-tree entry only records a whiteout; the directory must still look
  // changed, as on ext4: copy it up and move its times (overlayfs does the same).
  ensure_upper_dir(parent);
  ::utimensat(AT_FDCWD, proc_fd_path(parent->upper_fd.load()).c_str(), nullptr, 0);
}

void OverlayFs::pin_child_locked(Node* parent, std::string_view name) {
  Node* child = nullptr;
  {
    std::lock_guard table(m_table);
    auto it = parent->children.find(std::string(name));
    if (it != parent->children.end()) {
      child = it->second; // the kernel holds it while it unlinks the name: it stays alive
    }
  }
  if (child) {
    pin_locked(child);
  }
}

Entry OverlayFs::mkdir(const Caller& c, Node* parent, std::string_view name, mode_t mode) {
  std::shared_lock tree(m_tree);
  std::string path = join_path(path_locked(parent), name);
  check_git_change(c, parent, path, S_IFDIR);
  if (try_resolve_locked(parent, name, path)) {
    throw SystemError(EEXIST, "mkdir '" + path + "'");
  }
  m_disk.require(k_entry_room, "mkdir");
  ensure_upper_dir(parent);
  int pu = parent->upper_fd.load();
  std::string n(name);
  if (::mkdirat(pu, n.c_str(), mode & 07777) != 0) {
    throw_errno("mkdir", path);
  }
  m_disk.add(upper_allocated(pu, n));
  set_owner(pu, n.c_str(), c, parent);
  settle_new_mode(pu, n, -1, mode, path);
  struct stat st {};
  if ((mode & S_IRWXU) != S_IRWXU && ::fstatat(pu, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    // `mkdir -m 0`: kept open to the daemon, the mode recorded (upper_modes.hpp). Its node is
    // made below and reads the record then. (The kernel applied the caller's umask to
    // `mode`, which leaves the owner's bits alone in practice: no stat for a usual mkdir.)
    UniqueFd fd(::openat(pu, n.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd) {
      throw_errno("mkdir", path);
    }
    set_upper_dir_mode(fd.get(), st.st_mode & 07777, path);
  }
  if (parent->lower_fd.load() >= 0) {
    // A new directory is the agent's own: it never merges a lower one that appears later
    // or that stood here before (deleted, then created again).
    PathMeta meta = m_meta.get(path).value_or(PathMeta{});
    meta.opaque = true;
    if (!meta.base) {
      meta.base = Identity{}; // nothing stood here: what the real tree gets here later is not ours
    }
    m_meta.put(path, meta);
  }
  record(c, "mkdir", path);
  return attach_entry_locked(parent, name, path);
}

Entry OverlayFs::mknod(const Caller& c, Node* parent, std::string_view name, mode_t mode,
                       dev_t rdev) {
  if ((S_ISCHR(mode) || S_ISBLK(mode)) && !m_hosts.surely_host(c.pid)) {
    // The kernel sent this only for a caller with CAP_MKNOD in the initial user namespace;
    // inside `ws run` nobody has it, and a caller there is refused all the same. The view
    // is mounted nodev: no device node opens through it (docs/conformance.md).
    throw SystemError(EPERM, "mknod: device files are not made by `ws run` sessions");
  }
  std::shared_lock tree(m_tree);
  std::string path = join_path(path_locked(parent), name);
  check_git_change(c, parent, path, mode & S_IFMT);
  if (try_resolve_locked(parent, name, path)) {
    throw SystemError(EEXIST, "mknod '" + path + "'");
  }
  m_disk.require(k_entry_room, "mknod");
  ensure_upper_dir(parent);
  int pu = parent->upper_fd.load();
  std::string n(name);
  if (::mknodat(pu, n.c_str(), mode, rdev) != 0) {
    throw_errno("mknod", path);
  }
  m_disk.add(upper_allocated(pu, n));
  set_owner(pu, n.c_str(), c, parent);
  settle_new_mode(pu, n, -1, mode, path);
  if (S_ISREG(mode) && file_mode_needs_record(mode)) {
    // mknod(2) of a file closed to its owner: kept open to the daemon (upper_modes.hpp).
    UniqueFd fd(::openat(pu, n.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    struct stat st {};
    if (!fd || ::fstat(fd.get(), &st) != 0) {
      throw_errno("mknod", path);
    }
    set_upper_file_mode(fd.get(), true, st.st_mode & 07777, path);
  }
  note_created_locked(parent, path);
  if (S_ISCHR(mode) || S_ISBLK(mode)) {
    record(c, "mknod", path, {},
           std::string(S_ISCHR(mode) ? "char " : "block ") + std::to_string(major(rdev)) + ":" +
               std::to_string(minor(rdev)));
  } else {
    record(c, S_ISFIFO(mode) ? "mkfifo" : (S_ISSOCK(mode) ? "mksock" : "create"), path);
  }
  return attach_entry_locked(parent, name, path);
}

Entry OverlayFs::symlink(const Caller& c, Node* parent, std::string_view name,
                         std::string_view target) {
  std::shared_lock tree(m_tree);
  std::string path = join_path(path_locked(parent), name);
  check_git_change(c, parent, path, S_IFLNK);
  if (try_resolve_locked(parent, name, path)) {
    throw SystemError(EEXIST, "symlink '" + path + "'");
  }
  m_disk.require(k_entry_room, "symlink");
  ensure_upper_dir(parent);
  int pu = parent->upper_fd.load();
  std::string n(name);
  if (::symlinkat(std::string(target).c_str(), pu, n.c_str()) != 0) {
    throw_errno("symlink", path);
  }
  m_disk.add(upper_allocated(pu, n));
  set_owner(pu, n.c_str(), c, parent);
  note_created_locked(parent, path);
  record(c, "symlink", path, std::string(target));
  return attach_entry_locked(parent, name, path);
}

Entry OverlayFs::link(const Caller& c, Node* n, Node* newparent, std::string_view newname) {
  if (n->type == S_IFDIR) {
    throw SystemError(EPERM, "link: directories cannot be hard-linked");
  }
  std::shared_lock tree(m_tree);
  std::string from = path_locked(n);
  std::string path = join_path(path_locked(newparent), newname);
  check_git_change(c, newparent, path, n->type);
  if (n->guard) {
    refuse_guard(from);
  }
  if (try_resolve_locked(newparent, newname, path)) {
    throw SystemError(EEXIST, "link '" + path + "'");
  }
  copy_up(n);
  ensure_upper_dir(newparent);
  std::string nn(newname);
  int rc = n->pinned_fd.load() >= 0
               ? ::linkat(AT_FDCWD, proc_fd_path(n->pinned_fd.load()).c_str(),
                          newparent->upper_fd.load(), nn.c_str(), AT_SYMLINK_FOLLOW)
               : ::linkat(object_dir_locked(n), n->name.c_str(), newparent->upper_fd.load(),
                          nn.c_str(), 0);
  if (rc != 0) {
    throw_errno("link", path);
  }
  // Both names report the inode number of the object they share.
  if (auto src = m_meta.get(from); src && src->origin) {
    PathMeta meta = m_meta.get(path).value_or(PathMeta{});
    meta.origin = src->origin;
    meta.origin_path = src->origin_path;
    m_meta.put(path, meta);
  }
  note_created_locked(newparent, path);
  record(c, "link", from, path);
  // Answer with the linked node itself: the kernel then keeps one inode for both names and
  // takes its new nlink and ctime from this reply, as with any hard link.
  Entry e = entry_for(n);
  {
    std::lock_guard table(m_table);
    ++n->nlookup;
  }
  return e;
}

void OverlayFs::unlink(const Caller& c, Node* parent, std::string_view name) {
  m_disk.wait_counted(); // what it frees is counted once the first count is in
  std::shared_lock tree(m_tree);
  std::string path = join_path(path_locked(parent), name);
  if (parent->guard) {
    refuse_guard(path);
  }
  Found f = resolve_locked(parent, name, path);
  if (S_ISDIR(f.st.st_mode)) {
    throw SystemError(EISDIR, "unlink '" + path + "'");
  }
  check_git_change(c, parent, path, f.st.st_mode & S_IFMT);
  std::optional<Identity> lower = lower_at_locked(parent, name, path);
  PathMeta meta = m_meta.get(path).value_or(PathMeta{});
  meta.origin.reset();
  meta.origin_path.reset();
  if (lower) {
    if (!meta.base) {
      // The first touch may be this unlink (tar -x, cp --remove-destination, git checkout):
      // keep the content, or a later create here could not be merged with the person's edit.
      meta.base = save_base(parent->lower_fd.load(), std::string(name), path, *lower);
    }
    meta.whiteout = true;
  }
  // Metadata before the upper unlink: a crash leaves the file hidden, not resurrected.
  m_meta.put(path, meta);
  pin_child_locked(parent, name);
  int64_t freed = f.on_upper ? upper_allocated(parent->upper_fd.load(), std::string(name)) : 0;
  if (f.on_upper && ::unlinkat(parent->upper_fd.load(), std::string(name).c_str(), 0) != 0) {
    throw_errno("unlink", path);
  }
  m_disk.add(-freed); // an open file keeps its blocks a little longer: counted freed now
  if (!f.on_upper) {
    touch_parent_locked(parent);
  }
  detach_child(parent, name);
  record(c, "unlink", path);
}

void OverlayFs::rmdir(const Caller& c, Node* parent, std::string_view name) {
  m_disk.wait_counted();
  std::shared_lock tree(m_tree);
  std::string path = join_path(path_locked(parent), name);
  if (parent->guard) {
    refuse_guard(path);
  }
  Found f = resolve_locked(parent, name, path);
  if (!S_ISDIR(f.st.st_mode)) {
    throw SystemError(ENOTDIR, "rmdir '" + path + "'");
  }
  check_git_change(c, parent, path, S_IFDIR);
  if (!is_empty_view_dir(f, path)) {
    throw SystemError(ENOTEMPTY, "rmdir '" + path + "'");
  }
  std::optional<Identity> lower = lower_at_locked(parent, name, path);
  PathMeta meta = m_meta.get(path).value_or(PathMeta{});
  meta.opaque = false;
  meta.origin.reset();
  meta.origin_path.reset();
  if (lower) {
    if (!meta.base) {
      meta.base = lower;
    }
    meta.whiteout = true;
  }
  m_meta.put(path, meta);
  int64_t freed = f.on_upper ? upper_allocated(parent->upper_fd.load(), std::string(name)) : 0;
  if (f.on_upper &&
      ::unlinkat(parent->upper_fd.load(), std::string(name).c_str(), AT_REMOVEDIR) != 0) {
    throw_errno("rmdir", path);
  }
  m_disk.add(-freed);
  if (!f.on_upper) {
    touch_parent_locked(parent);
  }
  detach_child(parent, name);
  record(c, "rmdir", path);
}

void OverlayFs::rename(const Caller& c, Node* parent, std::string_view name, Node* newparent,
                       std::string_view newname, unsigned flags) {
  if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE)) {
    throw SystemError(EINVAL, "rename: unsupported flags");
  }
  bool exchange = flags & RENAME_EXCHANGE;
  m_disk.wait_counted();
  std::unique_lock tree(m_tree);
  std::string spath = join_path(path_locked(parent), name);
  std::string dpath = join_path(path_locked(newparent), newname);
  if (parent->guard || newparent->guard) {
    refuse_guard(parent->guard ? spath : dpath);
  }
  Found sf = resolve_locked(parent, name, spath);
  std::optional<Found> df = try_resolve_locked(newparent, newname, dpath);
  if ((flags & RENAME_NOREPLACE) && df) {
    throw SystemError(EEXIST, "rename to '" + dpath + "'");
  }
  if (exchange && !df) {
    throw SystemError(ENOENT, "rename exchange with '" + dpath + "'");
  }
  if (spath == dpath) {
    return;
  }
  if (df && !exchange && !S_ISDIR(sf.st.st_mode) && sf.st.st_dev == df->st.st_dev &&
      sf.st.st_ino == df->st.st_ino) {
    return; // two names of one file: POSIX says rename does nothing
  }
  if (path_within(dpath, spath)) {
    throw SystemError(EINVAL, "rename '" + spath + "' into itself");
  }
  bool sdir = S_ISDIR(sf.st.st_mode);
  bool ddir = df && S_ISDIR(df->st.st_mode);
  mode_t stype = sf.st.st_mode & S_IFMT;
  mode_t dtype = df ? df->st.st_mode & S_IFMT : 0;
  check_git_change(c, parent, spath, stype);
  check_git_change(c, newparent, dpath, stype, true);
  check_git_rename_locked(parent, name, spath, stype, dpath);
  if (exchange) {
    check_git_change(c, parent, spath, dtype, true);
    check_git_change(c, newparent, dpath, dtype);
    check_git_rename_locked(newparent, newname, dpath, dtype, spath);
  }
  if (df && !exchange) {
    if (sdir && !ddir) {
      throw SystemError(ENOTDIR, "rename over '" + dpath + "'");
    }
    if (!sdir && ddir) {
      throw SystemError(EISDIR, "rename over '" + dpath + "'");
    }
    if (ddir && !is_empty_view_dir(*df, dpath)) {
      throw SystemError(ENOTEMPTY, "rename over '" + dpath + "'");
    }
  }
  std::optional<Identity> slower = lower_at_locked(parent, name, spath);
  std::optional<Identity> dlower = lower_at_locked(newparent, newname, dpath);

  // Nodes for both names (the kernel knows them; attach takes a reference we drop below).
  Node* snode = attach_locked(parent, name, std::move(sf), spath);
  Node* dnode = df ? attach_locked(newparent, newname, std::move(*df), dpath) : nullptr;
  struct Unref {
    OverlayFs* fs;
    Node* n;
    ~Unref() {
      if (n) {
        fs->forget(n, 1);
      }
    }
  } unref_s{this, snode}, unref_d{this, dnode};

  // Both sides live wholly in the upper layer after this; rename there never gives EXDEV.
  auto copy_whole = [&](Node* n) {
    if (n->type == S_IFDIR) {
      copy_up_tree(n);
    } else {
      copy_up(n);
    }
  };
  copy_whole(snode);
  if (exchange) {
    copy_whole(dnode);
  }
  ensure_upper_dir(newparent);
  // After copy-up: it records the origins that travel with the objects.
  PathMeta smeta = m_meta.get(spath).value_or(PathMeta{});
  PathMeta dmeta = m_meta.get(dpath).value_or(PathMeta{});
  std::string sn(name), dn(newname);
  flush_pending_of(snode); // journal writes under the names they were written to
  if (dnode) {
    flush_pending_of(dnode);
  }
  int64_t freed = 0;
  if (dnode && !exchange) {
    pin_locked(dnode); // it loses its name, maybe while open
    freed = upper_allocated(newparent->upper_fd.load(), dn);
  }
  if (::renameat2(parent->upper_fd.load(), sn.c_str(), newparent->upper_fd.load(), dn.c_str(),
                  exchange ? RENAME_EXCHANGE : 0) != 0) {
    throw_errno("rename", spath);
  }
  m_disk.add(-freed);

  // Records below each name travel with the object; base and whiteout stay with the path.
  auto settle = [&](const std::string& path, const PathMeta& before,
                    const std::optional<Identity>& lower, const PathMeta& moved_in,
                    bool moved_in_dir, Node* dir_parent) {
    PathMeta m = m_meta.get(path).value_or(PathMeta{});
    m.base = before.base ? before.base : lower;
    if (!before.base && lower && path == dpath && !exchange) {
      m.base = save_base(newparent->lower_fd.load(), dn, dpath, *lower);
    }
    if (!m.base && dir_parent->lower_fd.load() >= 0) {
      m.base = Identity{}; // nothing stood here when the agent put this here
    }
    m.whiteout = before.whiteout;
    m.origin = moved_in.origin;
    m.origin_path = moved_in.origin_path;
    m.opaque = moved_in_dir && dir_parent->lower_fd.load() >= 0;
    m_meta.put(path, m);
  };
  if (exchange) {
    static const std::string tmp("\x01ws-exchange", 12);
    m_meta.move_subtree(spath, tmp);
    m_meta.move_subtree(dpath, spath);
    m_meta.move_subtree(tmp, dpath);
    settle(spath, smeta, slower, dmeta, ddir, parent);
    settle(dpath, dmeta, dlower, smeta, sdir, newparent);
  } else {
    m_meta.move_subtree(spath, dpath);
    settle(dpath, dmeta, dlower, smeta, sdir, newparent);
    PathMeta s;
    s.base = smeta.base ? smeta.base : slower;
    s.whiteout = slower.has_value() || smeta.whiteout;
    m_meta.put(spath, s);
  }

  {
    std::lock_guard table(m_table);
    auto move_node = [&](Node* n, Node* to, const std::string& new_name) {
      Node* from = n->parent;
      auto it = from->children.find(n->name);
      if (it != from->children.end() && it->second == n) {
        from->children.erase(it);
      }
      --from->child_refs;
      n->parent = to;
      n->name = new_name;
      ++to->child_refs;
      to->children[new_name] = n;
    };
    if (exchange) {
      move_node(snode, newparent, dn);
      move_node(dnode, parent, sn);
    } else {
      if (dnode) {
        detach_locked(dnode);
      }
      move_node(snode, newparent, dn);
    }
  }
  // A directory moved under a merging parent must not pick up a lower namesake.
  if (sdir && snode->lower_fd.load() >= 0) {
    std::lock_guard lock(snode->mutex);
    int old = snode->lower_fd.exchange(-1);
    if (old >= 0) {
      snode->retired_fds.push_back(old);
    }
  }
  m_changes.note(spath, sdir || (exchange && ddir));
  m_changes.note(dpath, sdir || ddir);
  snode->noted.store(0); // writes under its new name are noted anew
  if (exchange) {
    dnode->noted.store(0);
  }
  record(c, exchange ? "exchange" : "rename", spath, dpath);
  // Moved names may have become ones the person's git obeys (git's own lock-and-rename of
  // its config does that).
  std::vector<uint64_t> became;
  update_git_flags_locked(snode, dpath, became);
  std::vector<std::pair<uint64_t, std::string>> moved{{nodeid(newparent), dn}};
  if (exchange) {
    update_git_flags_locked(dnode, spath, became);
    moved.emplace_back(nodeid(parent), sn);
  }
  tree.unlock();
  settle_git_rename(became, std::move(moved));
}

} // namespace ws::fuse
