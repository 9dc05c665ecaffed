#pragma once

#include "gitbridge/git_handles.hpp"

#include <filesystem>
#include <optional>
#include <set>
#include <string>

namespace ws::gitbridge {

/// Facts about the person's real repository that the transfer policy relies on. Read from
/// the real repository only (its ignore files, info/exclude, index, config): whatever the
/// agent wrote in its view has no say. The index is read on first need.
class RealRepo {
public:
  explicit RealRepo(const std::filesystem::path& worktree);

  /// The repository's ignore rules exclude `path` (and it is not tracked: git ignores only
  /// untracked files).
  bool ignored(const std::string& path);
  bool tracked(const std::string& path);
  /// The index has a submodule (gitlink) at `path`.
  bool gitlink(const std::string& path);
  /// The submodule `path` lies inside: the path of a gitlink in the index strictly above it
  /// (initialized or not), or empty.
  std::string containing_submodule(const std::string& path);
  /// The repository's .git directory (for its config).
  std::filesystem::path git_dir() const;

private:
  const git_index_entry* entry(const std::string& path);
  git_index* index();
  std::filesystem::path m_worktree;
  RepoPtr m_repo;
  IndexPtr m_index;
  std::optional<std::set<std::string>> m_gitlinks; ///< every gitlink's path, read on first need
};

} // namespace ws::gitbridge
