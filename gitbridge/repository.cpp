#include "gitbridge/repository.hpp"

#include "gitbridge/git_handles.hpp"

namespace ws::gitbridge {

namespace {
std::string last_error() {
  return git_last_error();
}
} // namespace

std::filesystem::path find_worktree(const std::filesystem::path& start) {
  git_repository* raw = nullptr;
  int rc = git_repository_open_ext(&raw, start.c_str(), 0, nullptr);
  RepoPtr repo(raw);
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
