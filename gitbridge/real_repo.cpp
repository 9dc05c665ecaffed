#include "gitbridge/real_repo.hpp"

namespace ws::gitbridge {

RealRepo::RealRepo(const std::filesystem::path& worktree) : m_worktree(worktree) {
  git_repository* raw = nullptr;
  git_check(git_repository_open_ext(&raw, worktree.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr),
            "open repository " + worktree.string());
  m_repo.reset(raw);
}

git_index* RealRepo::index() {
  if (!m_index) {
    git_index* raw = nullptr;
    git_check(git_repository_index(&raw, m_repo.get()), "read the index of " + m_worktree.string());
    m_index.reset(raw);
  }
  return m_index.get();
}

const git_index_entry* RealRepo::entry(const std::string& path) {
  return git_index_get_bypath(index(), path.c_str(), 0);
}

std::string RealRepo::containing_submodule(const std::string& path) {
  if (!m_gitlinks) {
    m_gitlinks.emplace();
    size_t n = git_index_entrycount(index());
    for (size_t i = 0; i < n; ++i) {
      const git_index_entry* e = git_index_get_byindex(index(), i);
      if (e && e->mode == GIT_FILEMODE_COMMIT) {
        m_gitlinks->insert(e->path);
      }
    }
  }
  if (m_gitlinks->empty()) {
    return {};
  }
  for (size_t slash = path.find('/'); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    std::string prefix = path.substr(0, slash);
    if (m_gitlinks->count(prefix)) {
      return prefix;
    }
  }
  return {};
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
