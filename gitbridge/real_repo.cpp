#include "gitbridge/real_repo.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <strings.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <functional>
#include <string_view>
#include <vector>

namespace ws::gitbridge {

namespace {

enum class Read { Ok, Absent, Failed };

/// The whole file at `path`, following symlinks as libgit2 does when it reads ignore files.
Read read_file(const std::string& path, std::string& out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return errno == ENOENT || errno == ENOTDIR ? Read::Absent : Read::Failed;
  }
  out.clear();
  char buf[65536];
  Read result = Read::Ok;
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      result = errno == EISDIR ? Read::Absent : Read::Failed; // libgit2 skips a directory too
      break;
    }
    if (n == 0) {
      break;
    }
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return result;
}

std::string home_dir() {
  if (const char* home = std::getenv("HOME"); home && *home) {
    return home;
  }
  const passwd* pw = ::getpwuid(::getuid());
  return pw && pw->pw_dir ? pw->pw_dir : "";
}

} // namespace

RealRepo::RealRepo(const std::filesystem::path& worktree, std::filesystem::path gitlink_cache)
    : m_worktree(worktree), m_gitlink_cache(std::move(gitlink_cache)) {
  m_repo = open_repository_at(worktree);
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

const Gitlinks& RealRepo::gitlinks() {
  if (m_gitlinks) {
    return *m_gitlinks;
  }
  // The file libgit2 reads (git_repository_index): the index of this worktree.
  std::filesystem::path file = std::filesystem::path(git_repository_path(m_repo.get())) / "index";
  std::optional<IndexStamp> before;
  if (!m_gitlink_cache.empty() && (before = index_stamp(file))) {
    if (auto cached = load_gitlinks(m_gitlink_cache, *before)) {
      m_gitlinks = std::move(cached);
      return *m_gitlinks;
    }
  }
  m_gitlinks.emplace();
  size_t n = git_index_entrycount(index());
  for (size_t i = 0; i < n; ++i) {
    const git_index_entry* e = git_index_get_byindex(index(), i);
    if (e && e->mode == GIT_FILEMODE_COMMIT) {
      bool& staged = (*m_gitlinks)[e->path];
      staged = staged || git_index_entry_stage(e) == 0;
    }
  }
  // Kept only when the file libgit2 read is the one stamped: git replaces the index by a
  // rename (a new inode) and any write in place changes its ctime.
  if (before && git_index_path(index()) && file == git_index_path(index()) &&
      index_stamp(file) == before) {
    save_gitlinks(m_gitlink_cache, *before, *m_gitlinks);
  }
  return *m_gitlinks;
}

std::vector<std::string>
RealRepo::index_paths(const std::string& cache_name,
                      const std::function<bool(const git_index_entry&)>& wanted) {
  std::vector<std::string> out;
  // Kept beside the gitlinks, keyed the same way: reading a 100,000-entry index for a few
  // of its paths would cost a status of 10 changes most of its time again.
  std::filesystem::path file = std::filesystem::path(git_repository_path(m_repo.get())) / "index";
  std::filesystem::path cache = m_gitlink_cache.empty()
                                    ? std::filesystem::path{}
                                    : m_gitlink_cache.parent_path() / cache_name;
  std::optional<IndexStamp> before;
  if (!cache.empty() && (before = index_stamp(file))) {
    if (auto cached = load_gitlinks(cache, *before)) {
      for (const auto& entry : *cached) {
        out.push_back(entry.first);
      }
      return out;
    }
  }
  Gitlinks found; // the same file format: path -> (unused) flag
  size_t n = git_index_entrycount(index());
  for (size_t i = 0; i < n; ++i) {
    const git_index_entry* e = git_index_get_byindex(index(), i);
    if (e && wanted(*e)) {
      found.emplace(e->path, true);
    }
  }
  for (const auto& entry : found) {
    out.push_back(entry.first);
  }
  if (before && git_index_path(index()) && file == git_index_path(index()) &&
      index_stamp(file) == before) {
    save_gitlinks(cache, *before, found);
  }
  return out;
}

const std::vector<std::string>& RealRepo::symlinks() {
  if (!m_symlinks) {
    m_symlinks = index_paths("symlink-cache",
                             [](const git_index_entry& e) { return e.mode == GIT_FILEMODE_LINK; });
  }
  return *m_symlinks;
}

std::vector<std::string> RealRepo::tracked_named(const std::string& name) {
  // Compared on the last component only: the index's paths are sorted, not by their names.
  return index_paths("named-cache-" + name, [&](const git_index_entry& e) {
    const std::string_view path = e.path;
    return path.ends_with(name) &&
           (path.size() == name.size() || path[path.size() - name.size() - 1] == '/');
  });
}

std::string RealRepo::containing_submodule(const std::string& path) {
  const Gitlinks& links = gitlinks();
  if (links.empty()) {
    return {};
  }
  for (size_t slash = path.find('/'); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    std::string prefix = path.substr(0, slash);
    if (links.count(prefix)) {
      return prefix;
    }
  }
  return {};
}

std::optional<std::vector<std::string>> RealRepo::outside_ignore_files() {
  // Every file libgit2 may read besides the .gitignore files (ignore.c
  // git_ignore__for_path): info/exclude, and core.excludesFile or, unset, git's XDG
  // "ignore". Naming one more than libgit2 reads only makes the screen answer "maybe" more.
  std::vector<std::string> files{std::string(git_repository_path(m_repo.get())) + "info/exclude",
                                 std::string(git_repository_commondir(m_repo.get())) +
                                     "info/exclude"};
  git_config* raw = nullptr;
  if (git_repository_config_snapshot(&raw, m_repo.get()) != 0) {
    return std::nullopt;
  }
  ConfigPtr config(raw);
  const char* value = nullptr;
  if (git_config_get_string(&value, config.get(), "core.excludesfile") == 0 && value) {
    files.emplace_back(value); // relative: to the working directory, as libgit2 opens it
    if (value[0] == '~' && value[1] == '/') {
      files.push_back(home_dir() + (value + 1));
    }
    GitBuf expanded;
    if (git_config_get_path(&expanded.buf, config.get(), "core.excludesfile") == 0) {
      files.push_back(expanded.str());
    }
  }
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) {
    files.push_back(std::string(xdg) + "/git/ignore");
  }
  files.push_back(home_dir() + "/.config/git/ignore");
  return files;
}

void RealRepo::load_global_ignore_files() {
  m_global_loaded = true;
  std::optional<std::vector<std::string>> files = outside_ignore_files();
  if (!files) {
    m_screen.give_up();
    return;
  }
  std::string text;
  for (const auto& f : *files) {
    Read r = read_file(f, text);
    if (r == Read::Failed) {
      m_screen.give_up(); // libgit2 decides every path
      return;
    }
    if (r == Read::Ok) {
      m_screen.add_file(text);
    }
  }
}

bool RealRepo::load_ignore_files(const std::string& dir) {
  const char* workdir = git_repository_workdir(m_repo.get());
  if (!workdir) {
    return true; // bare: no .gitignore files are read
  }
  // The top first, then each directory down to `dir`, as libgit2 walks them.
  std::vector<std::string> chain{std::string()};
  for (size_t slash = dir.find('/'); slash != std::string::npos; slash = dir.find('/', slash + 1)) {
    chain.push_back(dir.substr(0, slash));
  }
  if (!dir.empty()) {
    chain.push_back(dir);
  }
  std::string text;
  for (const auto& d : chain) {
    if (m_loaded_dirs.count(d)) {
      continue;
    }
    Read r = read_file(std::string(workdir) + (d.empty() ? "" : d + "/") + ".gitignore", text);
    if (r == Read::Failed) {
      return false; // libgit2 decides the paths below
    }
    if (r == Read::Ok) {
      m_screen.add_file(text);
    }
    m_loaded_dirs.insert(d);
  }
  return true;
}

bool RealRepo::ignored(const std::string& path) {
  if (!m_global_loaded) {
    load_global_ignore_files();
  }
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? std::string() : path.substr(0, slash);
  bool screened = m_loaded_dirs.count(dir) > 0 || load_ignore_files(dir);
  if (screened && !m_screen.may_match(path)) {
    return false; // no rule of any file libgit2 reads can match: not ignored
  }
  ++m_asked_libgit2;
  return ignored_by_libgit2(path);
}

bool RealRepo::ignored_by_libgit2(const std::string& path) {
  int ignored = 0;
  git_check(git_ignore_path_is_ignored(&ignored, m_repo.get(), path.c_str()),
            "check the ignore rules for '" + path + "'");
  return ignored != 0 && !tracked(path);
}

bool RealRepo::tracked(const std::string& path) {
  return entry(path) != nullptr;
}

bool RealRepo::gitlink(const std::string& path) {
  const Gitlinks& links = gitlinks();
  auto it = links.find(path);
  if (it != links.end() && it->second) {
    return true; // a gitlink at stage 0, as the index has it
  }
  // An index of core.ignorecase finds a path in any case: libgit2 decides when one differs
  // only so (the index is read then; usually no gitlink is near).
  bool other_case = std::any_of(links.begin(), links.end(), [&](const auto& l) {
    return l.second && ::strcasecmp(l.first.c_str(), path.c_str()) == 0;
  });
  if (!other_case) {
    return false;
  }
  const git_index_entry* e = entry(path);
  return e && e->mode == GIT_FILEMODE_COMMIT;
}

std::filesystem::path RealRepo::git_dir() const {
  return git_repository_commondir(m_repo.get()); // where config lives, for linked worktrees too
}

} // namespace ws::gitbridge
