#pragma once

#include "gitbridge/git_handles.hpp"
#include "gitbridge/gitlink_cache.hpp"
#include "gitbridge/ignore_screen.hpp"

#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

namespace ws::gitbridge {

/// Facts about the person's real repository that the transfer policy relies on. Read from
/// the real repository only (its ignore files, info/exclude, index, config): whatever the
/// agent wrote in its view has no say. The index is read on first need. One thread at a time.
class RealRepo {
public:
  /// `gitlink_cache`: a file where the index's gitlinks are kept between commands
  /// (gitlink_cache.hpp), so that a repository whose index did not change is not read whole
  /// for them; empty: none.
  explicit RealRepo(const std::filesystem::path& worktree,
                    std::filesystem::path gitlink_cache = {});

  /// The repository's ignore rules exclude `path` (and it is not tracked: git ignores only
  /// untracked files). libgit2 decides; it is asked only when some rule of the ignore files
  /// it reads could match (IgnoreScreen), which most paths of a large change are not.
  bool ignored(const std::string& path);
  /// libgit2's answer alone, asked every time (what `ignored` must always agree with).
  bool ignored_by_libgit2(const std::string& path);
  bool tracked(const std::string& path);
  /// The index has a submodule (gitlink) at `path`.
  bool gitlink(const std::string& path);
  /// The submodule `path` lies inside: the path of a gitlink in the index strictly above it
  /// (initialized or not), or empty.
  std::string containing_submodule(const std::string& path);
  /// Every symlink (mode 120000) the index has: the person's tree's symlinks, for judging a
  /// path under the names they give it (filters/symlink_aliases.hpp). Read once.
  const std::vector<std::string>& symlinks();
  /// Every path the index has whose last component is exactly `name` (`conftest.py`), sorted:
  /// the files a tool finds by their name in the person's tree (pytest imports every
  /// conftest.py in the directories it collects). One pass over the index, kept beside the
  /// gitlinks and keyed the same way (a file per name), so an unchanged index is not read
  /// again. `name` holds no '/'.
  std::vector<std::string> tracked_named(const std::string& name);
  /// How many paths `ignored` left to libgit2 so far (for tests and benchmarks).
  size_t asked_libgit2() const { return m_asked_libgit2; }
  /// The repository's .git directory (for its config).
  std::filesystem::path git_dir() const;
  /// The ignore files libgit2 may read outside the working tree (info/exclude,
  /// core.excludesFile or git's XDG "ignore"), present or not; nullopt when the config
  /// cannot be read.
  std::optional<std::vector<std::string>> outside_ignore_files();

private:
  const git_index_entry* entry(const std::string& path);
  /// The index's paths that `wanted` takes, sorted; cached in `cache_name` beside the
  /// gitlink cache (when there is one) for an index with the same content.
  std::vector<std::string> index_paths(const std::string& cache_name,
                                       const std::function<bool(const git_index_entry&)>& wanted);
  git_index* index();
  const Gitlinks& gitlinks();
  /// Feeds the screen every ignore file libgit2 reads for a path in `dir` (repository-
  /// relative, "" for the top); false when one could not be read.
  bool load_ignore_files(const std::string& dir);
  void load_global_ignore_files();

  std::filesystem::path m_worktree;
  RepoPtr m_repo;
  IndexPtr m_index;
  std::filesystem::path m_gitlink_cache;
  std::optional<Gitlinks> m_gitlinks;                 ///< every gitlink's path, read on first need
  std::optional<std::vector<std::string>> m_symlinks; ///< every symlink's path, likewise
  IgnoreScreen m_screen;
  bool m_global_loaded = false;
  size_t m_asked_libgit2 = 0;
  std::unordered_set<std::string> m_loaded_dirs; ///< directories whose .gitignore (and every
                                                 ///< one above) the screen has
};

} // namespace ws::gitbridge
