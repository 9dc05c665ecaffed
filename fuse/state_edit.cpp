// Editing a workspace's state files (see state_edit.hpp).
#include "fuse/state_edit.hpp"

#include "fuse/agent_git_seed.hpp"
#include "fuse/change_log_persist.hpp"
#include "fuse/changes.hpp"
#include "fuse/hash.hpp"
#include "fuse/log.hpp"
#include "fuse/state_tree.hpp"
#include "fuse/store/checkpoint_record.hpp"
#include "fuse/store/snapshot_builder.hpp"
#include "fuse/store/tree_writer.hpp"
#include "fuse/system_error.hpp"

#include <climits>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <unordered_set>

namespace ws::fuse {

namespace {

std::atomic<uint64_t> g_tmp_counter{0};

std::string unique_name(const char* prefix) {
  return prefix + std::to_string(::getpid()) + "-" + std::to_string(g_tmp_counter.fetch_add(1));
}

} // namespace

std::vector<std::string> minimal_roots(std::vector<std::string> paths) {
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
  std::vector<std::string> out;
  std::unordered_set<std::string> kept;
  for (std::string& p : paths) {
    // Sorted, an ancestor comes before its descendants, though not always right before
    // them ("a" < "a-b" < "a/c"): look each of p's ancestors up among the kept roots.
    bool covered = kept.count("") > 0;
    for (size_t slash = p.find('/'); !covered && slash != std::string::npos;
         slash = p.find('/', slash + 1)) {
      covered = kept.count(p.substr(0, slash)) > 0;
    }
    if (!covered) {
      kept.insert(p);
      out.push_back(std::move(p));
    }
  }
  if (!out.empty() && out.front().empty()) {
    return {""};
  }
  return out;
}

OfflineState::OfflineState(const std::filesystem::path& lower_dir, const WorkspaceLayout& layout)
    : m_lower(::open(lower_dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)),
      m_upper(::open(layout.upper().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)),
      m_work(::open(layout.work().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)),
      m_bases(::open(layout.bases().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)),
      m_meta(layout.meta_db(), Db::Mode::ReadWrite) {
  if (!m_lower) {
    throw_errno("open project directory", lower_dir.string());
  }
  if (!m_upper || !m_work || !m_bases) {
    throw_errno("open workspace state", layout.dir.string());
  }
  m_dirs = {m_lower.get(), m_upper.get(),    m_work.get(),  m_bases.get(),
            &m_meta,       layout.meta_db(), layout.store()};
}

Trash::Trash(int work_dir) : m_work(work_dir) {}

Trash::~Trash() {
  empty();
}

void Trash::take(int dir, const std::string& name, const std::string& path) {
  if (!m_dir) {
    m_name = unique_name("trash-");
    if (::mkdirat(m_work, m_name.c_str(), 0700) != 0) {
      throw_errno("make trash directory in work/", m_name);
    }
    m_dir = open_dir(m_work, m_name, m_name);
  }
  move_object(dir, name, m_dir.get(), std::to_string(m_count++), path);
}

void Trash::empty() noexcept {
  if (!m_dir) {
    return;
  }
  m_dir.reset();
  try {
    remove_tree(m_work, m_name);
  } catch (const std::exception& e) {
    logger().warn("cannot empty the trash work/{}: {} (the next start removes it)", m_name,
                  e.what());
  }
}

void StateEditor::drop(const std::vector<std::string>& paths) {
  for (const std::string& p : paths) {
    // Walked component by component from upper/'s fd: ".." would leave it, and "/" must not
    // read as "" (everything).
    bool bad =
        !p.empty() && (p.front() == '/' || p.back() == '/' || p.find("//") != std::string::npos ||
                       p.find('\0') != std::string::npos);
    for (const std::string& part : split_path(p)) {
      bad = bad || part == "." || part == "..";
    }
    if (bad) {
      throw SystemError(EINVAL, "reset: not a repository-relative path '" + p + "'");
    }
  }
  std::vector<std::string> roots = minimal_roots(paths);
  if (roots.size() == 1 && roots.front().empty()) {
    drop_all();
    return;
  }
  for (const std::string& p : roots) {
    drop_one(p);
  }
}

void StateEditor::drop_one(const std::string& path) {
  std::vector<std::string> parts = split_path(path);
  if (parts.empty()) {
    drop_all();
    return;
  }
  // Walk upper/ down to the path's parent, noting the first ancestor below which the view
  // stops showing the real tree.
  UniqueFd dir = dup_fd(m_dirs.upper);
  bool chain = true; // upper/ has a directory at every ancestor so far
  std::optional<size_t> hidden;
  std::string a;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    a = join_path(a, parts[i]);
    struct stat st {};
    bool in_upper = chain && ::fstatat(dir.get(), parts[i].c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
    bool upper_dir = in_upper && S_ISDIR(st.st_mode);
    std::optional<PathMeta> rec = m_dirs.meta->get(a);
    if (!hidden &&
        ((rec && rec->whiteout) || (in_upper && !upper_dir) || (upper_dir && rec && rec->opaque))) {
      hidden = i;
    }
    if (upper_dir) {
      dir = open_dir(dir.get(), parts[i], a);
    } else {
      chain = false;
    }
  }
  struct stat st {};
  if (chain && ::fstatat(dir.get(), parts.back().c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    m_trash.take(dir.get(), parts.back(), path);
  }
  m_dirs.meta->replace_subtree(path, {});
  if (hidden) {
    materialize(path, *hidden);
  }
}

void StateEditor::materialize(const std::string& path, size_t hidden_at) {
  UniqueFd real(open_beneath(m_dirs.lower, path, O_PATH | O_NOFOLLOW));
  struct stat rst {};
  if (!real || ::fstat(real.get(), &rst) != 0) {
    return; // the real tree has nothing here to show
  }
  // Upper directories down to the parent. The hiding ancestor stays opaque (the rest of
  // the real directory stays hidden); directories we create take the real one's identity
  // (its inode number keeps being reported) and, at the end, its mode and times.
  std::vector<std::string> parts = split_path(path);
  std::vector<std::pair<UniqueFd, std::pair<std::string, struct stat>>> finish;
  UniqueFd dir = dup_fd(m_dirs.upper);
  std::string a;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    a = join_path(a, parts[i]);
    UniqueFd rdir(open_beneath(m_dirs.lower, a, O_PATH | O_NOFOLLOW | O_DIRECTORY));
    struct stat real_dir {};
    if (!rdir || ::fstat(rdir.get(), &real_dir) != 0) {
      throw_errno("reset: open real directory", a);
    }
    struct stat ust {};
    bool in_upper = ::fstatat(dir.get(), parts[i].c_str(), &ust, AT_SYMLINK_NOFOLLOW) == 0;
    if (in_upper && !S_ISDIR(ust.st_mode)) {
      m_trash.take(dir.get(), parts[i], a); // a file where the real tree has a directory
      in_upper = false;
    }
    if (!in_upper && ::mkdirat(dir.get(), parts[i].c_str(), 0700) != 0) {
      throw_errno("reset: mkdir", a);
    }
    PathMeta rec = m_dirs.meta->get(a).value_or(PathMeta{});
    if (!in_upper) {
      rec.origin = identity_of(real_dir);
      rec.origin_path = a;
      finish.emplace_back(dup_fd(dir.get()), std::make_pair(parts[i], real_dir));
    }
    if (i == hidden_at) {
      rec.opaque = true;
    }
    m_dirs.meta->put(a, rec);
    dir = open_dir(dir.get(), parts[i], a);
  }
  UniqueFd real_parent(open_beneath(m_dirs.lower, parent_of(path), O_PATH | O_DIRECTORY));
  if (!real_parent) {
    throw_errno("reset: open real directory", parent_of(path));
  }
  if (S_ISDIR(rst.st_mode)) {
    if (::mkdirat(dir.get(), parts.back().c_str(), 0700) != 0) {
      throw_errno("reset: mkdir", path);
    }
    UniqueFd top = open_dir(dir.get(), parts.back(), path);
    CopyActions act;
    act.object = [this](int src, int dst, const std::string& name, const struct stat& st,
                        const std::string& p) { copy_as_base(src, dst, name, st, p); };
    act.directory = [this](int, int dst, const std::string& name, const struct stat& st,
                           const std::string& p) {
      PathMeta rec;
      rec.origin = identity_of(st);
      rec.origin_path = p;
      m_dirs.meta->put(p, rec);
      set_attrs(dst, name, st);
    };
    copy_tree(real.get(), top.get(), path, act);
    act.directory(real_parent.get(), dir.get(), parts.back(), rst, path);
  } else {
    copy_as_base(real_parent.get(), dir.get(), parts.back(), rst, path);
  }
  for (auto it = finish.rbegin(); it != finish.rend(); ++it) {
    set_attrs(it->first.get(), it->second.first, it->second.second);
  }
}

void StateEditor::copy_as_base(int src, int dst, const std::string& name, const struct stat& st,
                               const std::string& path) {
  // As copy-up does: the record first, then the object, renamed into place from work/.
  Identity id = identity_of(st);
  std::string tmp = unique_name("m");
  PathMeta rec;
  rec.origin_path = path;
  switch (st.st_mode & S_IFMT) {
  case S_IFREG: {
    UniqueFd in(::openat(src, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    UniqueFd out(::openat(m_dirs.work, tmp.c_str(),
                          O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!in || !out) {
      throw_errno("reset: copy real file", path);
    }
    Hasher hasher;
    copy_content(in.get(), out.get(), st.st_size, &hasher, path);
    id.hash = hasher.digest();
    save_base(out.get(), *id.hash, st.st_size, path);
    copy_user_xattrs(in.get(), out.get());
    break;
  }
  case S_IFLNK: {
    char target[PATH_MAX + 1];
    ssize_t len = ::readlinkat(src, name.c_str(), target, sizeof target - 1);
    if (len < 0) {
      throw_errno("reset: readlink", path);
    }
    id.hash = hash_bytes(std::string_view(target, static_cast<size_t>(len)));
    target[len] = '\0';
    if (::symlinkat(target, m_dirs.work, tmp.c_str()) != 0) {
      throw_errno("reset: symlink", path);
    }
    break;
  }
  case S_IFIFO:
  case S_IFSOCK:
    if (::mknodat(m_dirs.work, tmp.c_str(), st.st_mode, 0) != 0) {
      throw_errno("reset: mknod", path);
    }
    break;
  default:
    logger().warn("reset: cannot show the real device file '{}' below a hidden directory", path);
    return;
  }
  set_attrs(m_dirs.work, tmp, st);
  rec.base = id;
  rec.origin = id;
  m_dirs.meta->put(path, rec);
  if (::renameat(m_dirs.work, tmp.c_str(), dst, name.c_str()) != 0) {
    int err = errno;
    ::unlinkat(m_dirs.work, tmp.c_str(), 0);
    errno = err;
    throw_errno("reset: move into place", path);
  }
}

void StateEditor::rebase(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    UniqueFd real(open_beneath(m_dirs.lower, path, O_PATH | O_NOFOLLOW));
    struct stat st {};
    if (!real || ::fstat(real.get(), &st) != 0) {
      continue; // nothing there (any more): the base stays what it was
    }
    Identity id = identity_of(st);
    if (S_ISREG(st.st_mode)) {
      UniqueFd in(
          ::open(("/proc/self/fd/" + std::to_string(real.get())).c_str(), O_RDONLY | O_CLOEXEC));
      if (!in) {
        throw_errno("rebase: open real file", path);
      }
      id.hash = hash_fd(in.get(), path);
      save_base(in.get(), *id.hash, st.st_size, path);
    } else if (S_ISLNK(st.st_mode)) {
      char target[PATH_MAX];
      ssize_t len = ::readlinkat(real.get(), "", target, sizeof target);
      if (len < 0) {
        throw_errno("rebase: readlink", path);
      }
      id.hash = hash_bytes(std::string_view(target, static_cast<size_t>(len)));
    } else {
      continue;
    }
    PathMeta rec = m_dirs.meta->get(path).value_or(PathMeta{});
    rec.base = id;
    m_dirs.meta->put(path, rec);
  }
}

void StateEditor::save_base(int fd, const Hash128& hash, off_t size, const std::string& path) {
  // Content-addressed, like copy-up's: a 3-way apply of a later edit needs it.
  std::string name = hash.hex();
  if (size > k_base_content_limit ||
      ::faccessat(m_dirs.bases, name.c_str(), F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
    return;
  }
  std::string tmp = unique_name("b");
  UniqueFd b(::openat(m_dirs.work, tmp.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0400));
  if (!b) {
    throw_errno("reset: save base", path);
  }
  copy_content(fd, b.get(), size, nullptr, path);
  if (::renameat(m_dirs.work, tmp.c_str(), m_dirs.bases, name.c_str()) != 0) {
    int err = errno;
    ::unlinkat(m_dirs.work, tmp.c_str(), 0);
    errno = err;
    throw_errno("reset: save base", path);
  }
}

void StateEditor::empty_upper() {
  for (const std::string& name : list_names(m_dirs.upper, "upper/")) {
    m_trash.take(m_dirs.upper, name, name);
  }
}

void StateEditor::drop_all() {
  empty_upper();
  m_dirs.meta->replace_subtree("", {});
  if (auto git = agent_git_source(*m_dirs.meta)) {
    seed_agent_git(m_dirs, *git); // the agent's git starts over from the real one as it is now
  }
  // The view's root shows the real tree's times again, as at mount: emptying upper/ (and
  // the agent's work before) moved its mtime.
  struct stat st {};
  if (::fstat(m_dirs.lower, &st) == 0) {
    struct timespec times[2] = {st.st_atim, st.st_mtim};
    ::utimensat(AT_FDCWD, ("/proc/self/fd/" + std::to_string(m_dirs.upper)).c_str(), times, 0);
  }
}

void StateEditor::restore(const std::filesystem::path& checkpoint_dir) {
  // Open the checkpoint before touching anything: a broken one changes nothing.
  if (std::optional<store::ObjectId> root = store::snapshot_root(checkpoint_dir)) {
    store::ContentStore cs(m_dirs.store);
    if (!cs.contains(*root)) {
      throw SystemError(ENOENT, "restore: the checkpoint's content is missing from " +
                                    m_dirs.store.string());
    }
    empty_upper();
    auto records = store::write_tree(cs, m_dirs.bases, *root, m_dirs.upper);
    m_dirs.meta->replace_subtree("", records);
    return;
  }
  WorkspaceLayout cp{checkpoint_dir};
  UniqueFd cp_upper(::open(cp.upper().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!cp_upper) {
    throw_errno("restore: open checkpoint", cp.upper().string());
  }
  MetaStore cp_meta(cp.meta_db(), Db::Mode::ReadOnly);
  auto records = cp_meta.subtree("");
  empty_upper();
  copy_tree(cp_upper.get(), m_dirs.upper, "", plain_copy(m_dirs.upper));
  m_dirs.meta->replace_subtree("", records);
  restore_agent_git_info(cp_meta, *m_dirs.meta); // the agent's git's start goes with it
}

uint64_t freeze_state(const StateDirs& dirs, const std::filesystem::path& dest) {
  store::ContentStore cs(dirs.store);
  store::ContentStore::Lock lock = cs.lock();
  std::filesystem::path tracker = dirs.store / "tracker";
  store::TrackerState state = store::load_tracker(tracker);
  if (state.serving || (state.base && !cs.contains(*state.base))) {
    state.marks.all = true; // a daemon died with its marks, or the base is gone
  }
  store::SnapshotBuilder builder(cs, state.base, {dirs.upper, dirs.meta, dirs.bases});
  builder.set_may_chmod(true); // nothing else writes: we hold daemon.lock
  builder.read(state.marks);
  store::ObjectId root = builder.assemble();
  return store::commit_snapshot(cs, tracker, state.base, false, root, dest);
}

void note_offline_edit(const StateDirs& dirs, const std::vector<std::string>& paths) {
  store::Marks marks;
  bool view_changed = false;
  for (const std::string& p : paths) {
    marks.add(p, true);
    view_changed = view_changed || !in_agent_git(p);
  }
  if (view_changed && !dirs.meta_db.empty()) {
    // git's fsmonitor record kept at the last unmount knows nothing of this edit.
    std::error_code gone;
    std::filesystem::remove(ChangeLogKeeper::file_in(dirs.meta_db.parent_path()), gone);
  }
  std::error_code ec;
  std::filesystem::create_directories(dirs.store, ec);
  store::add_offline_marks(dirs.store / "tracker", marks);
}

} // namespace ws::fuse
