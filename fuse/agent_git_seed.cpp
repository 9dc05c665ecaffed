// Making the agent's private git state: a copy of the real repository's small git files in
// upper/.git, its object directories merged with the real ones (docs/agent-git.md).
#include "fuse/agent_git_seed.hpp"

#include "fuse/changes.hpp"
#include "fuse/hash.hpp"
#include "fuse/state_edit.hpp"
#include "fuse/state_tree.hpp"
#include "fuse/system_error.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>

namespace ws::fuse {

namespace {

/// Below the private `.git`, merged with the real common directory's.
constexpr std::array<std::string_view, 3> k_shared = {"objects", "modules", "lfs"};

UniqueFd open_real_dir(const std::filesystem::path& p) {
  return UniqueFd(::open(p.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
}

class Seeder {
public:
  explicit Seeder(int git) : m_git(git) {}

  /// Copies `rel` (a file or a whole directory) of the real directory `from` to the same
  /// place in the private `.git`; `skip` names paths (relative to `.git`) left out.
  void copy(int from, const std::string& rel, const std::vector<std::string>& skip = {}) {
    struct stat st {};
    if (::fstatat(from, rel.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      return; // the real repository has none
    }
    size_t slash = rel.rfind('/');
    std::string parent = slash == std::string::npos ? "" : rel.substr(0, slash);
    std::string name = slash == std::string::npos ? rel : rel.substr(slash + 1);
    UniqueFd src_dir = parent.empty() ? dup_fd(from) : open_dir(from, parent, rel);
    UniqueFd dst_dir = parent.empty() ? dup_fd(m_git) : make_dirs(parent);
    if (!S_ISDIR(st.st_mode)) {
      object(src_dir.get(), dst_dir.get(), name, st, rel);
      return;
    }
    if (::mkdirat(dst_dir.get(), name.c_str(), 0700) != 0 && errno != EEXIST) {
      throw_errno("make the agent's git: mkdir", ".git/" + rel);
    }
    UniqueFd s = open_dir(src_dir.get(), name, rel), d = open_dir(dst_dir.get(), name, rel);
    CopyActions act;
    act.object = [&](int sdir, int ddir, const std::string& n, const struct stat& ost,
                     const std::string& path) {
      for (const auto& k : skip) {
        if (path_within(path, k)) {
          return;
        }
      }
      object(sdir, ddir, n, ost, path);
    };
    act.directory = [](int, int ddir, const std::string& n, const struct stat& dst_st,
                       const std::string&) {
      ::fchmodat(ddir, n.c_str(), (dst_st.st_mode & 07777) | S_IRWXU, 0);
    };
    copy_tree(s.get(), d.get(), rel, act);
  }

  void make_shared(int real_common) {
    for (std::string_view name : k_shared) {
      std::string n(name);
      struct stat st {};
      if (::fstatat(real_common, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
          !S_ISDIR(st.st_mode)) {
        continue;
      }
      if (::mkdirat(m_git, n.c_str(), (st.st_mode & 07777) | S_IRWXU) != 0 && errno != EEXIST) {
        throw_errno("make the agent's git: mkdir", ".git/" + n);
      }
    }
  }

  std::vector<std::pair<std::string, PathMeta>>& records() { return m_records; }

private:
  UniqueFd make_dirs(const std::string& rel) {
    UniqueFd dir = dup_fd(m_git);
    for (const std::string& part : split_path(rel)) {
      if (::mkdirat(dir.get(), part.c_str(), 0755) != 0 && errno != EEXIST) {
        throw_errno("make the agent's git: mkdir", ".git/" + rel);
      }
      dir = open_dir(dir.get(), part, rel);
    }
    return dir;
  }

  void object(int src, int dst, const std::string& name, const struct stat& st,
              const std::string& rel) {
    struct stat existing {};
    if (::fstatat(dst, name.c_str(), &existing, AT_SYMLINK_NOFOLLOW) == 0) {
      return; // the agent's already (a workspace older than private git states)
    }
    std::string path = ".git/" + rel;
    Identity id = identity_of(st);
    if (S_ISREG(st.st_mode)) {
      UniqueFd in(::openat(src, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
      UniqueFd out(
          ::openat(dst, name.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600));
      if (!in || !out) {
        throw_errno("make the agent's git: copy", path);
      }
      Hasher hasher;
      copy_content(in.get(), out.get(), st.st_size, &hasher, path);
      id.hash = hasher.digest();
    } else if (S_ISLNK(st.st_mode)) {
      char target[PATH_MAX + 1];
      ssize_t len = ::readlinkat(src, name.c_str(), target, sizeof target - 1);
      if (len < 0) {
        throw_errno("make the agent's git: readlink", path);
      }
      id.hash = hash_bytes(std::string_view(target, static_cast<size_t>(len)));
      target[len] = '\0';
      if (::symlinkat(target, dst, name.c_str()) != 0) {
        throw_errno("make the agent's git: symlink", path);
      }
    } else {
      return; // nothing else belongs in a git directory
    }
    set_attrs(dst, name, st);
    PathMeta meta;
    meta.base = id; // what the agent's git started with: only its own changes show
    m_records.emplace_back(path, meta);
  }

  int m_git;
  std::vector<std::pair<std::string, PathMeta>> m_records;
};

} // namespace

std::optional<std::string_view> shared_git_dir(std::string_view path) {
  if (path.rfind(".git/", 0) != 0) {
    return std::nullopt;
  }
  std::string_view rest = path.substr(5);
  for (std::string_view name : k_shared) {
    if (rest == name) {
      return name;
    }
  }
  return std::nullopt;
}

bool below_shared_git_dir(std::string_view path) {
  for (size_t slash = path.find('/'); slash != std::string_view::npos;
       slash = path.find('/', slash + 1)) {
    if (shared_git_dir(path.substr(0, slash))) {
      return true;
    }
  }
  return false;
}

void adopt_agent_git_file(const StateDirs& dirs, const std::string& path) {
  if (!in_agent_git(path)) {
    throw std::invalid_argument("not in the agent's git: " + path);
  }
  UniqueFd fd(open_beneath(dirs.upper, path, O_RDONLY | O_NOFOLLOW));
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    throw_errno("record the agent's git's start", path);
  }
  Identity id = identity_of(st);
  id.hash = hash_fd(fd.get(), path);
  PathMeta meta = dirs.meta->get(path).value_or(PathMeta{});
  meta.base = id;
  dirs.meta->put(path, meta);
}

std::optional<RealGitSource> agent_git_source(const MetaStore& meta) {
  if (!meta.info(k_git_state_key)) {
    return std::nullopt;
  }
  RealGitSource s;
  s.git_dir = meta.info(k_git_dir_key).value_or("");
  s.common_dir = meta.info(k_git_common_key).value_or("");
  if (s.common_dir.empty()) {
    return std::nullopt;
  }
  return s;
}

void seed_agent_git(const StateDirs& dirs, const RealGitSource& real) {
  UniqueFd git_dir = open_real_dir(real.git_dir);
  UniqueFd common = open_real_dir(real.common_dir);
  if (!git_dir || !common) {
    throw_errno("make the agent's git: open", (!git_dir ? real.git_dir : real.common_dir).string());
  }
  struct stat gst {};
  if (::fstatat(dirs.upper, ".git", &gst, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(gst.st_mode)) {
    // A workspace made before private states whose agent put a file there: keep it.
    return;
  }
  if (::mkdirat(dirs.upper, ".git", 0755) != 0 && errno != EEXIST) {
    throw_errno("make the agent's git: mkdir", ".git");
  }
  UniqueFd git = open_dir(dirs.upper, ".git", ".git");
  Seeder s(git.get());
  // Per working tree: where HEAD and the index are.
  s.copy(git_dir.get(), "HEAD");
  s.copy(git_dir.get(), "index");
  for (const std::string& name : list_names(git_dir.get(), real.git_dir.string())) {
    if (name.rfind("sharedindex.", 0) == 0) {
      s.copy(git_dir.get(), name); // a split index's shared part
    }
  }
  s.copy(git_dir.get(), "logs/HEAD");
  // Shared by every working tree of the repository.
  for (const char* name : {"config", "packed-refs", "description", "shallow"}) {
    s.copy(common.get(), name);
  }
  s.copy(common.get(), "refs", {"refs/ws"});
  s.copy(common.get(), "logs", {"logs/refs/ws", "logs/HEAD"});
  s.copy(common.get(), "hooks");
  s.copy(common.get(), "info");
  s.make_shared(common.get());

  // `.git` itself: opaque (nothing of the real one shows through), based on the real one.
  PathMeta top = dirs.meta->get(".git").value_or(PathMeta{});
  top.opaque = true;
  top.whiteout = false;
  if (!top.base) {
    struct stat lst {};
    top.base = ::fstatat(dirs.lower, ".git", &lst, AT_SYMLINK_NOFOLLOW) == 0 ? identity_of(lst)
                                                                             : Identity{};
  }
  std::vector<std::pair<std::string, PathMeta>> records = dirs.meta->subtree(".git");
  std::map<std::string, PathMeta> merged(records.begin(), records.end());
  for (auto& [path, meta] : s.records()) {
    merged.try_emplace(path, meta);
  }
  merged[".git"] = top;
  dirs.meta->replace_subtree(".git", {merged.begin(), merged.end()});
  dirs.meta->set_info(k_git_dir_key, real.git_dir.string());
  dirs.meta->set_info(k_git_common_key, real.common_dir.string());
  dirs.meta->set_info(k_git_state_key, "1");
}

void restore_agent_git_info(const MetaStore& from, MetaStore& to) {
  for (std::string_view key : k_git_start_keys) {
    if (auto v = from.info(key)) {
      to.set_info(key, *v);
    }
  }
}

} // namespace ws::fuse
