// Reading the agent's private git state without trusting it (docs/agent-git.md).
#include "gitbridge/agent_git.hpp"

#include "filters/text_lines.hpp"
#include "fuse/unique_fd.hpp"
#include "gitbridge/git_handles.hpp"
#include "gitbridge/git_ids.hpp"
#include "gitbridge/tree_compare.hpp"

#include <git2/sys/mempack.h>
#include <git2/sys/repository.h>

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>

namespace ws::gitbridge {

namespace {

using RefIterPtr = GitPtr<git_reference_iterator, git_reference_iterator_free>;
using TreeEntryPtr = GitPtr<git_tree_entry, git_tree_entry_free>;

/// Refs are small; packed-refs of a large repository a few megabytes.
constexpr off_t k_max_ref_file = 1 << 20;
constexpr off_t k_max_packed_refs = 256ll << 20;

int open_beneath(int dir, const std::string& rel, int flags) {
  open_how how{};
  how.flags = static_cast<uint64_t>(flags | O_CLOEXEC | O_NOFOLLOW);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  return static_cast<int>(::syscall(SYS_openat2, dir, rel.c_str(), &how, sizeof how));
}

using Fd = fuse::UniqueFd;

/// The whole of a regular file below `dir`; nullopt if there is none (or it is something
/// else: a FIFO must never block us, a symlink never lead elsewhere).
std::optional<std::string> read_regular(int dir, const std::string& rel, off_t max) {
  Fd f(open_beneath(dir, rel, O_RDONLY | O_NONBLOCK));
  struct stat st {};
  if (!f || ::fstat(f.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > max) {
    return std::nullopt;
  }
  std::string out(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < out.size()) {
    ssize_t n = ::pread(f.get(), out.data() + got, out.size() - got, static_cast<off_t>(got));
    if (n <= 0) {
      if (n < 0 && errno == EINTR) {
        continue;
      }
      break;
    }
    got += static_cast<size_t>(n);
  }
  out.resize(got);
  return out;
}

/// The tree of the commit `id`.
TreePtr tree_of_commit(git_repository* repo, const std::string& id) {
  git_oid oid = parse_oid(id);
  git_commit* c = nullptr;
  git_check(git_commit_lookup(&c, repo, &oid), "read commit " + short_id(id));
  CommitPtr commit(c);
  git_tree* t = nullptr;
  git_check(git_commit_tree(&t, commit.get()), "read the tree of " + short_id(id));
  return TreePtr(t);
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) {
    s.pop_back();
  }
  return s;
}

CommitInfo info_of(const git_commit* c) {
  CommitInfo out;
  out.id = oid_hex(git_commit_id(c));
  for (unsigned i = 0; i < git_commit_parentcount(c); ++i) {
    out.parents.push_back(oid_hex(git_commit_parent_id(c, i)));
  }
  const git_signature* a = git_commit_author(c);
  out.author_name = a->name ? a->name : "";
  out.author_email = a->email ? a->email : "";
  out.author_time = static_cast<int64_t>(a->when.time);
  out.author_offset = a->when.offset;
  const char* msg = git_commit_message_raw(c);
  out.message = msg ? msg : "";
  return out;
}

} // namespace

std::string CommitInfo::summary() const {
  size_t nl = message.find('\n');
  return message.substr(0, nl);
}

std::string AgentHead::branch() const {
  constexpr std::string_view heads = "refs/heads/";
  return ref.rfind(heads, 0) == 0 ? ref.substr(heads.size()) : ref;
}

std::string short_id(const std::string& id) {
  return id.substr(0, 7);
}

std::string blob_id(const std::string& content) {
  git_oid oid;
  git_check(git_odb_hash(&oid, content.data(), content.size(), GIT_OBJECT_BLOB), "hash a blob");
  return oid_hex(&oid);
}

RealGitDirs real_git_dirs(const std::filesystem::path& worktree) {
  RepoPtr repo = open_repository_at(worktree);
  RealGitDirs out;
  out.git_dir = std::filesystem::path(git_repository_path(repo.get())).lexically_normal();
  out.common_dir = std::filesystem::path(git_repository_commondir(repo.get())).lexically_normal();
  for (auto* p : {&out.git_dir, &out.common_dir}) {
    if (!p->has_filename()) {
      *p = p->parent_path(); // no trailing slash
    }
  }
  return out;
}

struct AgentGit::Impl {
  std::filesystem::path dir;
  int dirfd = -1;
  RepoPtr repo;
  OdbPtr odb;
  ConfigPtr config;
  // packed-refs, parsed on first need
  mutable std::optional<std::map<std::string, std::string>> packed;
  /// Commit id -> its tree, for `entry`: a large top tree is past libgit2's object cache
  /// limit, and would be read and inflated again for every path asked. Freed before `repo`.
  std::map<std::string, TreePtr> trees;
  ~Impl() {
    if (dirfd >= 0) {
      ::close(dirfd);
    }
  }
};

AgentGit::AgentGit(const std::filesystem::path& agent_git_dir,
                   const std::filesystem::path& real_common)
    : m(std::make_unique<Impl>()) {
  m->dir = agent_git_dir;
  m->dirfd = ::open(agent_git_dir.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (m->dirfd < 0) {
    throw GitError(-1, "open the agent's git directory " + agent_git_dir.string() + ": " +
                           std::strerror(errno));
  }
  git_odb* odb = nullptr;
  // The real repository's objects (and its alternates: the person's, trusted).
  std::filesystem::path real_objects = real_common / "objects";
  git_check(git_odb_open(&odb, real_objects.c_str()),
            "open the object database " + real_objects.string());
  m->odb.reset(odb);
  // The agent's own objects, first. No alternates file of the agent's is read.
  std::filesystem::path own = agent_git_dir / "objects";
  struct stat st {};
  if (::fstatat(m->dirfd, "objects", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
    git_odb_backend* loose = nullptr;
    git_check(git_odb_backend_loose(&loose, own.c_str(), -1, 0, 0, 0),
              "open the agent's objects " + own.string());
    git_check(git_odb_add_backend(m->odb.get(), loose, 20), "add the agent's objects");
    git_odb_backend* pack = nullptr;
    git_check(git_odb_backend_pack(&pack, own.c_str()), "open the agent's packs " + own.string());
    git_check(git_odb_add_backend(m->odb.get(), pack, 21), "add the agent's packs");
  }
  git_repository* repo = nullptr;
  git_check(git_repository_new(&repo), "create a repository over the agent's objects");
  m->repo.reset(repo);
  git_check(git_repository_set_odb(m->repo.get(), m->odb.get()), "attach object database");
  git_config* cfg = nullptr;
  git_check(git_config_new(&cfg), "create empty configuration");
  m->config.reset(cfg);
  git_repository_set_config(m->repo.get(), m->config.get());
}

AgentGit::~AgentGit() = default;

git_repository* AgentGit::repo() const {
  return m->repo.get();
}

void AgentGit::keep_new_objects_in_memory() {
  git_odb_backend* mempack = nullptr;
  git_check(git_mempack_new(&mempack), "create in-memory object store");
  // Written objects go to the first writable backend: this one (the odb owns it now).
  git_check(git_odb_add_backend(m->odb.get(), mempack, 1000), "attach in-memory objects");
}

std::filesystem::path AgentGit::objects_dir() const {
  return m->dir / "objects";
}

std::optional<std::string> AgentGit::read_ref_file(const std::string& rel) const {
  auto text = read_regular(m->dirfd, rel, k_max_ref_file);
  if (!text) {
    return std::nullopt;
  }
  return trim(*text);
}

std::optional<std::string> AgentGit::packed(const std::string& ref) const {
  if (!m->packed) {
    m->packed.emplace();
    auto text = read_regular(m->dirfd, "packed-refs", k_max_packed_refs);
    if (text) {
      filters::for_each_line(*text, [this](std::string_view line) {
        if (line.size() > GIT_OID_HEXSZ + 1 && line[GIT_OID_HEXSZ] == ' ' &&
            is_hex_id(line.substr(0, GIT_OID_HEXSZ))) {
          (*m->packed)[std::string(line.substr(GIT_OID_HEXSZ + 1))] =
              std::string(line.substr(0, GIT_OID_HEXSZ));
        }
      });
    }
  }
  auto it = m->packed->find(ref);
  return it == m->packed->end() ? std::nullopt : std::optional<std::string>(it->second);
}

std::optional<std::string> AgentGit::resolve(const std::string& start) const {
  std::string ref = start;
  for (int depth = 0; depth < 5; ++depth) {
    if (ref != "HEAD" && ref.rfind("refs/", 0) != 0) {
      return std::nullopt; // never a path outside refs/
    }
    std::optional<std::string> text = read_ref_file(ref);
    if (!text && ref != "HEAD") {
      text = packed(ref);
    }
    if (!text) {
      return std::nullopt;
    }
    if (text->rfind("ref: ", 0) == 0) {
      ref = text->substr(5);
      continue;
    }
    if (is_hex_id(*text)) {
      return *text;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

AgentHead AgentGit::head() const {
  AgentHead h;
  std::optional<std::string> text = read_ref_file("HEAD");
  if (text && text->rfind("ref: ", 0) == 0) {
    h.ref = text->substr(5);
  }
  h.id = resolve("HEAD").value_or("");
  return h;
}

std::vector<std::pair<std::string, std::string>> AgentGit::refs() const {
  std::map<std::string, std::string> out;
  packed("");
  for (const auto& [name, id] : *m->packed) {
    out[name] = id;
  }
  // Loose refs: every regular file below refs/, walked without following symlinks.
  std::vector<std::string> todo{"refs"};
  while (!todo.empty()) {
    std::string dir = std::move(todo.back());
    todo.pop_back();
    int fd = open_beneath(m->dirfd, dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0) {
      continue;
    }
    DIR* d = ::fdopendir(fd);
    if (!d) {
      ::close(fd);
      continue;
    }
    while (dirent* e = ::readdir(d)) {
      if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) {
        continue;
      }
      std::string path = dir + "/" + e->d_name;
      if (e->d_type == DT_DIR) {
        todo.push_back(path);
      } else if (e->d_type == DT_REG) {
        if (auto id = resolve(path)) {
          out[path] = *id;
        }
      }
    }
    ::closedir(d);
  }
  if (auto id = resolve("HEAD")) {
    out["HEAD"] = *id;
  }
  return {out.begin(), out.end()};
}

std::vector<CommitInfo> AgentGit::commits_between(const std::string& start,
                                                  const std::string& tip) const {
  std::vector<CommitInfo> out;
  if (tip.empty()) {
    return out;
  }
  git_revwalk* raw = nullptr;
  git_check(git_revwalk_new(&raw, m->repo.get()), "walk the agent's history");
  RevwalkPtr walk(raw);
  git_revwalk_sorting(walk.get(), GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
  git_oid t = parse_oid(tip);
  git_check(git_revwalk_push(walk.get(), &t), "walk the agent's history from " + short_id(tip));
  if (!start.empty()) {
    git_oid s = parse_oid(start);
    if (git_odb_exists(m->odb.get(), &s)) {
      git_check(git_revwalk_hide(walk.get(), &s), "walk the agent's history");
    }
  }
  git_oid id;
  int rc;
  while ((rc = git_revwalk_next(&id, walk.get())) == 0) {
    git_commit* c = nullptr;
    git_check(git_commit_lookup(&c, m->repo.get(), &id), "read commit " + oid_hex(&id));
    CommitPtr commit(c);
    out.push_back(info_of(commit.get()));
  }
  if (rc != GIT_ITEROVER) {
    git_check(rc, "walk the agent's history");
  }
  return out;
}

std::vector<CommitInfo> AgentGit::dropped_from(const std::string& start, const std::string& tip,
                                               size_t max) const {
  std::vector<CommitInfo> out;
  if (start.empty()) {
    return out;
  }
  git_revwalk* raw = nullptr;
  git_check(git_revwalk_new(&raw, m->repo.get()), "walk the agent's history");
  RevwalkPtr walk(raw);
  // Unsorted: yields as it walks, so an unrelated tip costs `max` commits, not the history.
  git_oid s = parse_oid(start);
  git_check(git_revwalk_push(walk.get(), &s), "walk the workspace's start " + short_id(start));
  if (!tip.empty()) {
    git_oid t = parse_oid(tip);
    git_check(git_revwalk_hide(walk.get(), &t), "walk the agent's history");
  }
  git_oid id;
  while (git_revwalk_next(&id, walk.get()) == 0) {
    if (out.size() >= max) {
      out.push_back({}); // "and more": an entry without an id
      break;
    }
    git_commit* c = nullptr;
    git_check(git_commit_lookup(&c, m->repo.get(), &id), "read commit " + oid_hex(&id));
    CommitPtr commit(c);
    out.push_back(info_of(commit.get()));
  }
  return out;
}

CommitInfo AgentGit::commit(const std::string& id) const {
  git_oid oid = parse_oid(id);
  git_commit* c = nullptr;
  git_check(git_commit_lookup(&c, m->repo.get(), &oid), "read commit " + short_id(id));
  CommitPtr commit(c);
  return info_of(commit.get());
}

bool AgentGit::has_object(const std::string& id) const {
  if (!is_hex_id(id)) {
    return false;
  }
  git_oid oid = parse_oid(id);
  return git_odb_exists(m->odb.get(), &oid) != 0;
}

AgentGit::Entry AgentGit::entry(const std::string& commit, const std::string& path) const {
  Entry out;
  if (commit.empty() || path.empty()) {
    return out;
  }
  TreePtr& tree = m->trees[commit];
  if (!tree) {
    tree = tree_of_commit(m->repo.get(), commit);
  }
  git_tree_entry* raw = nullptr;
  if (git_tree_entry_bypath(&raw, tree.get(), path.c_str()) != 0) {
    return out;
  }
  TreeEntryPtr e(raw);
  out.id = oid_hex(git_tree_entry_id(e.get()));
  out.mode = static_cast<uint32_t>(git_tree_entry_filemode(e.get()));
  return out;
}

std::string AgentGit::blob(const std::string& id) const {
  git_oid oid = parse_oid(id);
  git_blob* b = nullptr;
  git_check(git_blob_lookup(&b, m->repo.get(), &oid), "read blob " + short_id(id));
  std::string out(static_cast<const char*>(git_blob_rawcontent(b)),
                  static_cast<size_t>(git_blob_rawsize(b)));
  git_blob_free(b);
  return out;
}

std::string AgentGit::merge_base(const std::string& a, const std::string& b) const {
  if (a.empty() || b.empty()) {
    return {};
  }
  git_oid x = parse_oid(a), y = parse_oid(b), base;
  if (git_merge_base(&base, m->repo.get(), &x, &y) != 0) {
    return {};
  }
  return oid_hex(&base);
}

std::vector<std::string> AgentGit::changed_paths(const std::string& from,
                                                 const std::string& to) const {
  auto tree_of = [&](const std::string& id) {
    return id.empty() ? TreePtr() : tree_of_commit(m->repo.get(), id);
  };
  TreePtr a = tree_of(from), b = tree_of(to);
  return changed_files(m->repo.get(), a.get(), b.get()); // costs what changed
}

} // namespace ws::gitbridge
