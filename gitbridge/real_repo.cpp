#include "gitbridge/real_repo.hpp"

namespace ws::gitbridge {

RealRepo::RealRepo(const std::filesystem::path& worktree) : m_worktree(worktree) {
  git_repository* raw = nullptr;
  git_check(git_repository_open_ext(&raw, worktree.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr),
            "open repository " + worktree.string());
  m_repo.reset(raw);
}

const git_index_entry* RealRepo::entry(const std::string& path) {
  if (!m_index) {
    git_index* raw = nullptr;
    git_check(git_repository_index(&raw, m_repo.get()), "read the index of " + m_worktree.string());
    m_index.reset(raw);
  }
  return git_index_get_bypath(m_index.get(), path.c_str(), 0);
}

bool RealRepo::ignored(const std::string& path) {
  int ignored = 0;
  git_check(git_ignore_path_is_ignored(&ignored, m_repo.get(), path.c_str()),
            "check the ignore rules for '" + path + "'");
  return ignored != 0 && !tracked(path);
}

bool RealRepo::tracked(const std::string& path) {
  return entry(path) != nullptr;
}

bool RealRepo::gitlink(const std::string& path) {
  const git_index_entry* e = entry(path);
  return e && e->mode == GIT_FILEMODE_COMMIT;
}

std::filesystem::path RealRepo::git_dir() const {
  return git_repository_commondir(m_repo.get()); // where config lives, for linked worktrees too
}

} // namespace ws::gitbridge
