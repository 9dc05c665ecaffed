#include "fuse/git_paths.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <vector>

namespace ws::fuse {

namespace {

std::vector<std::string_view> components(std::string_view path) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    size_t end = slash == std::string_view::npos ? path.size() : slash;
    if (end > start) {
      out.push_back(path.substr(start, end - start));
    }
    if (slash == std::string_view::npos) {
      break;
    }
    start = slash + 1;
  }
  return out;
}

using Parts = std::vector<std::string_view>;

/// `rest`: the components below a git directory (`.git`, or a submodule's under modules/).
bool git_dir_entry_obeyed(const Parts& rest, size_t from) {
  size_t n = rest.size() - from;
  std::string_view first = rest[from];
  if (first == "config" || first == "config.worktree" || first == "commondir") {
    return n == 1;
  }
  if (first == "hooks") {
    return true; // the directory itself too: a symlink there would move every hook
  }
  if (first == "info") {
    return n == 2 && rest[from + 1] == "attributes";
  }
  if (first == "worktrees") {
    if (n != 3) {
      return false;
    }
    std::string_view leaf = rest[from + 2];
    return leaf == "config.worktree" || leaf == "commondir" || leaf == "gitdir";
  }
  if (first == "modules") {
    // modules/<name>/..., where a name may have several components: any split may be the
    // submodule's git directory.
    for (size_t i = from + 2; i < rest.size(); ++i) {
      if (git_dir_entry_obeyed(rest, i)) {
        return true;
      }
    }
  }
  return false;
}

} // namespace

GitExposure git_exposure(std::string_view path) {
  if (path.find(".git") == std::string_view::npos) {
    return GitExposure::none; // the common case, without splitting anything
  }
  Parts parts = components(path);
  GitExposure strongest = GitExposure::none;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i] != ".git") {
      continue;
    }
    GitExposure here;
    if (i + 1 == parts.size()) {
      here = GitExposure::unless_directory;
    } else if (git_dir_entry_obeyed(parts, i + 1)) {
      here = GitExposure::always;
    } else {
      here = GitExposure::if_symlink;
    }
    strongest = std::max(strongest, here);
  }
  return strongest;
}

bool is_git_sensitive(GitExposure exposure, mode_t type) {
  switch (exposure) {
  case GitExposure::none:
    return false;
  case GitExposure::if_symlink:
    return S_ISLNK(type);
  case GitExposure::unless_directory:
    return !S_ISDIR(type);
  case GitExposure::always:
    return true;
  }
  return true;
}

} // namespace ws::fuse
