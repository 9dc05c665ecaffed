// Writing the agent's git state (`ws sync`): its branch and index, as git itself would.
#include "gitbridge/agent_git_write.hpp"

#include "fuse/unique_fd.hpp"
#include "gitbridge/git_handles.hpp"
#include "gitbridge/git_ids.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

namespace ws::gitbridge {

namespace {

using Fd = fuse::UniqueFd;

/// A directory below `dir`, never through a symlink (the agent may have put one anywhere in
/// its `.git`, pointing out of the view).
int open_dir_beneath(int dir, const std::string& rel) {
  open_how how{};
  how.flags = static_cast<uint64_t>(O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  return static_cast<int>(::syscall(SYS_openat2, dir, rel.c_str(), &how, sizeof how));
}

std::string errno_text(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

Fd open_git_dir(const std::filesystem::path& git_dir) {
  Fd d(::open(git_dir.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!d) {
    throw GitError(-1, errno_text("open the agent's git directory " + git_dir.string()));
  }
  return d;
}

/// The directory `rel` below `root`, made where missing (a branch only in packed-refs).
Fd make_dirs_beneath(int root, const std::string& rel) {
  Fd at(::dup(root));
  size_t from = 0;
  while (from < rel.size()) {
    size_t slash = rel.find('/', from);
    std::string part =
        rel.substr(from, slash == std::string::npos ? std::string::npos : slash - from);
    from = slash == std::string::npos ? rel.size() : slash + 1;
    if (::mkdirat(at.get(), part.c_str(), 0777) != 0 && errno != EEXIST) {
      throw GitError(-1, errno_text("make the agent's " + rel));
    }
    Fd next(open_dir_beneath(at.get(), part));
    if (!next) {
      throw GitError(-1, errno_text("open the agent's " + rel + " (not a directory?)"));
    }
    std::swap(at, next);
  }
  return at;
}

void write_all(int fd, const std::string& data, const std::string& what) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      throw GitError(-1, errno_text("write " + what));
    }
    done += static_cast<size_t>(n);
  }
}

/// A reflog line where the agent's git keeps a log for `ref` (never made: git's
/// core.logAllRefUpdates is the agent's choice).
void append_reflog(int git_dir, const std::string& ref, const std::string& old_id,
                   const std::string& new_id, const std::string& message) {
  open_how how{};
  how.flags = static_cast<uint64_t>(O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  std::string rel = "logs/" + ref;
  Fd f(static_cast<int>(::syscall(SYS_openat2, git_dir, rel.c_str(), &how, sizeof how)));
  struct stat st {};
  if (!f || ::fstat(f.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return;
  }
  std::string zero(40, '0');
  std::string line = (old_id.empty() ? zero : old_id) + " " + new_id + " ws <ws@localhost> " +
                     std::to_string(static_cast<long long>(::time(nullptr))) + " +0000\t" +
                     message + "\n";
  write_all(f.get(), line, "the agent's " + rel);
}

} // namespace

struct AgentIndex::Impl {
  IndexPtr index;
};

AgentIndex::AgentIndex(const std::filesystem::path& git_dir, const AgentGit& git,
                       const std::string& commit)
    : m(std::make_unique<Impl>()) {
  Fd dir = open_git_dir(git_dir);
  struct stat st {};
  if (::fstatat(dir.get(), "index", &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode)) {
    throw GitError(-1, "the agent's " + (git_dir / "index").string() + " is not a file");
  }
  git_index* raw = nullptr;
  git_check(git_index_open(&raw, (git_dir / "index").c_str()),
            "read the agent's index " + (git_dir / "index").string());
  m->index.reset(raw);
  git_oid oid = parse_oid(commit);
  git_commit* c = nullptr;
  git_check(git_commit_lookup(&c, git.repo(), &oid), "read commit " + short_id(commit));
  CommitPtr cp(c);
  git_tree* t = nullptr;
  git_check(git_commit_tree(&t, cp.get()), "read the tree of " + short_id(commit));
  TreePtr tree(t);
  git_check(git_index_read_tree(m->index.get(), tree.get()),
            "make the agent's index from " + short_id(commit));
}

AgentIndex::~AgentIndex() = default;

void AgentIndex::write() {
  git_check(git_index_write(m->index.get()), "write the agent's index");
}

void move_agent_ref(const std::filesystem::path& git_dir, const AgentGit& git,
                    const std::string& ref, const std::string& old_id, const std::string& new_id,
                    const std::string& message) {
  int valid = 0;
  if (ref != "HEAD" && (git_reference_name_is_valid(&valid, ref.c_str()) != 0 || !valid ||
                        ref.rfind("refs/", 0) != 0)) {
    throw GitError(-1, "the agent's HEAD names '" + ref + "', which is not a branch git accepts");
  }
  std::string now;
  if (ref == "HEAD") {
    AgentHead h = git.head();
    now = h.ref.empty() ? h.id : "ref: " + h.ref;
  } else {
    now = git.resolve(ref).value_or("");
  }
  if (now != old_id) {
    throw GitError(-1, "the agent's " + ref + " moved meanwhile (" +
                           (now.empty() ? std::string("gone") : short_id(now)) + ", was " +
                           (old_id.empty() ? std::string("none") : short_id(old_id)) + ")");
  }
  Fd root = open_git_dir(git_dir);
  size_t slash = ref.rfind('/');
  std::string parent = slash == std::string::npos ? "" : ref.substr(0, slash);
  std::string name = slash == std::string::npos ? ref : ref.substr(slash + 1);
  Fd dir = parent.empty() ? Fd(::dup(root.get())) : make_dirs_beneath(root.get(), parent);
  std::string lock = name + ".lock";
  Fd f(::openat(dir.get(), lock.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                0666));
  if (!f) {
    if (errno == EEXIST) {
      throw GitError(-1, "the agent's git holds " + ref +
                             ".lock (a git command of its runs, or "
                             "one was killed and left it)");
    }
    throw GitError(-1, errno_text("lock the agent's " + ref));
  }
  try {
    write_all(f.get(), new_id + "\n", "the agent's " + lock);
    if (::renameat(dir.get(), lock.c_str(), dir.get(), name.c_str()) != 0) {
      throw GitError(-1, errno_text("move the agent's " + ref));
    }
  } catch (...) {
    ::unlinkat(dir.get(), lock.c_str(), 0);
    throw;
  }
  append_reflog(root.get(), ref, old_id, new_id, message);
  if (ref != "HEAD") {
    AgentHead h = git.head();
    if (h.ref == ref) {
      append_reflog(root.get(), "HEAD", old_id, new_id, message);
    }
  }
}

} // namespace ws::gitbridge
