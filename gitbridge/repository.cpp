#include "gitbridge/repository.hpp"

#include "gitbridge/git_handles.hpp"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <optional>

namespace ws::gitbridge {

namespace {
std::string last_error() {
  return git_last_error();
}

std::string user_name(uid_t uid) {
  const passwd* pw = ::getpwuid(uid);
  std::string id = "uid " + std::to_string(uid);
  return pw ? std::string(pw->pw_name) + " (" + id + ")" : id;
}

/// The repository above `start` (the first directory with a .git) when it, or its .git,
/// belongs to someone other than this user: what libgit2's ownership check
/// refuses, as git's does. libgit2 1.5.1 reports that refusal as GIT_ENOTFOUND ("config
/// value 'safe.directory' was not found") when no safe.directory is set at all (fixed in
/// 1.6, libgit2 PR 6408), so both codes are checked here, by ownership, not by message.
std::optional<std::pair<std::filesystem::path, uid_t>>
foreign_worktree(const std::filesystem::path& start) {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::absolute(start, ec);
  for (; !ec; dir = dir.parent_path()) {
    struct stat top {
    }, git{};
    if (::lstat((dir / ".git").c_str(), &git) == 0 && ::stat(dir.c_str(), &top) == 0) {
      for (uid_t owner : {top.st_uid, git.st_uid}) {
        if (owner != ::geteuid()) { // root's too: libgit2 1.5 makes no exception for it

          return std::make_pair(dir, owner);
        }
      }
      return std::nullopt;
    }
    if (dir == dir.root_path()) {
      break;
    }
  }
  return std::nullopt;
}
} // namespace

std::filesystem::path find_worktree(const std::filesystem::path& start) {
  git_repository* raw = nullptr;
  int rc = git_repository_open_ext(&raw, start.c_str(), 0, nullptr);
  RepoPtr repo(raw);
  if (rc == GIT_ENOTFOUND || rc == GIT_EOWNER) {
    if (auto foreign = foreign_worktree(start)) {
      const auto& [top, owner] = *foreign;
      throw ForeignRepository(top, owner,
                              "detected dubious ownership in repository at '" + top.string() +
                                  "': it belongs to " + user_name(owner) + ", and you are " +
                                  user_name(::geteuid()) +
                                  ": git refuses another user's repository, whose config could "
                                  "make you run its owner's programs");
    }
  }
  if (rc == GIT_ENOTFOUND) {
    throw GitError(rc,
                   "not a git repository (or any of the parent directories): " + start.string());
  }
  if (rc == GIT_EOWNER) {
    throw GitError(rc,
                   "the git repository at '" + start.string() +
                       "' belongs to another user (git refuses it for safety): " + last_error());
  }
  if (rc < 0) {
    throw GitError(rc, "cannot open git repository at '" + start.string() + "': " + last_error());
  }
  if (git_repository_is_bare(repo.get())) {
    throw GitError(GIT_EBAREREPO, "'" + start.string() +
                                      "' is a bare repository: a workspace needs a working tree");
  }
  const char* workdir = git_repository_workdir(repo.get());
  return std::filesystem::canonical(workdir);
}

} // namespace ws::gitbridge
