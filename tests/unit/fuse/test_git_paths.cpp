#include "fuse/git_paths.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>

#include <string>

using namespace ws::fuse;

TEST_CASE("fuse::git_exposure classifies what the person's git obeys") {
  struct Case {
    const char* path;
    GitExposure expected;
  };
  const Case cases[] = {
      {"", GitExposure::none},
      {"README.md", GitExposure::none},
      {"src/git/config", GitExposure::none},
      {".gitignore", GitExposure::none},
      {".github/workflows/ci.yml", GitExposure::none},
      {"a.git/config", GitExposure::none},
      {".git", GitExposure::unless_directory},
      {"sub/.git", GitExposure::unless_directory},
      {"a/b/c/.git", GitExposure::unless_directory},
      {".git/config", GitExposure::always},
      {"deep/sub/.git/config", GitExposure::always},
      {".git/config.worktree", GitExposure::always},
      {".git/commondir", GitExposure::always},
      {".git/hooks", GitExposure::always},
      {".git/hooks/pre-commit", GitExposure::always},
      {".git/hooks/sub/dir/x", GitExposure::always},
      {".git/info/attributes", GitExposure::always},
      {".git/info/exclude", GitExposure::if_symlink},
      {".git/info", GitExposure::if_symlink},
      {".git/worktrees/wt/config.worktree", GitExposure::always},
      {".git/worktrees/wt/commondir", GitExposure::always},
      {".git/worktrees/wt/gitdir", GitExposure::always},
      {".git/worktrees/wt/HEAD", GitExposure::if_symlink},
      {".git/worktrees/gitdir", GitExposure::if_symlink},
      {".git/modules/lib/config", GitExposure::always},
      {".git/modules/lib/hooks/post-checkout", GitExposure::always},
      {".git/modules/lib/hooks", GitExposure::always},
      {".git/modules/path/with/slashes/config", GitExposure::always},
      {".git/modules/a/modules/b/config", GitExposure::always},
      {".git/modules/lib/info/attributes", GitExposure::always},
      {".git/modules/lib/worktrees/w/gitdir", GitExposure::always},
      {".git/modules/lib/HEAD", GitExposure::if_symlink},
      {".git/modules/config", GitExposure::if_symlink}, // no submodule name before it
      {".git/modules", GitExposure::if_symlink},
      {".git/HEAD", GitExposure::if_symlink},
      {".git/index", GitExposure::if_symlink},
      {".git/index.lock", GitExposure::if_symlink},
      {".git/config.lock", GitExposure::if_symlink},
      {".git/refs/heads/config", GitExposure::if_symlink},
      {".git/objects/ab/cdef", GitExposure::if_symlink},
      {".git/x/.git", GitExposure::unless_directory}, // the stronger of two .git components
      {"vendor/.git/hooks/x", GitExposure::always},
  };
  for (const Case& c : cases) {
    INFO(c.path);
    CHECK(git_exposure(c.path) == c.expected);
  }
}

TEST_CASE("fuse::is_git_sensitive depends on the object's type") {
  CHECK(is_git_sensitive(".git", S_IFREG));
  CHECK(is_git_sensitive(".git", S_IFLNK));
  CHECK(!is_git_sensitive(".git", S_IFDIR));
  CHECK(is_git_sensitive(".git/config", S_IFREG));
  CHECK(is_git_sensitive(".git/hooks", S_IFDIR));
  CHECK(is_git_sensitive(".git/modules/lib", S_IFLNK));
  CHECK(!is_git_sensitive(".git/modules/lib", S_IFDIR));
  CHECK(!is_git_sensitive(".git/HEAD", S_IFREG));
  CHECK(is_git_sensitive(".git/HEAD", S_IFLNK));
  CHECK(!is_git_sensitive("src/main.c", S_IFLNK));
}
