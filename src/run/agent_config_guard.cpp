// Planted configuration in --writable directories (agent_config_guard.hpp). With
// `--writable ~/.claude` an agent planted a SessionStart hook; with `~/.codex` an MCP server
// and a replaced helper binary: all ran unconfined the next time the person started the CLI.
#include "src/run/agent_config_guard.hpp"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>

namespace ws {

namespace fs = std::filesystem;

namespace {

struct AgentDir {
  const char* name;
  std::vector<const char*> guarded;
};

/// Per agent config directory: what its CLI reads as code or instructions.
const std::vector<AgentDir>& agent_dirs() {
  static const std::vector<AgentDir> dirs{
      {".claude",
       {"settings.json", "settings.local.json", "hooks", "plugins", "commands", "agents", "skills",
        "output-styles", "CLAUDE.md", ".mcp.json", "local", "bin"}},
      {".codex",
       {"config.toml", "packages", "bin", "AGENTS.md", "AGENTS.override.md", "rules", "prompts",
        "hooks", "skills"}},
      {".gemini", {"settings.json", "extensions", "GEMINI.md", "commands", "bin"}},
      {".cursor", {"mcp.json", "rules", "hooks.json", "bin"}},
      // ws's own config (profiles, read, writable, env for every session), git's (fsmonitor,
      // pager, hooksPath), and what a login runs: systemd user units, autostart entries. Then
      // what editors, terminals and prompts run as code at every start (Lua, Lisp, run-shell,
      // the shell they start, a prompt's commands) and pip's index (the next install's code).
      {".config",
       {"ws",    "git",       "fish",       "systemd", "autostart", "environment.d", "nvim",
        "vim",   "emacs",     "doom",       "tmux",    "direnv",    "starship.toml", "wezterm",
        "kitty", "alacritty", "powershell", "i3",      "sway",      "hypr",          "pip"}},
  };
  return dirs;
}

/// In any writable directory: shell start-up files (and what Debian's .bashrc sources), a
/// repository's code-running parts, and a home's editor start-up files, ssh's config and
/// authorized keys, npm's config (node-options, script-shell).
constexpr const char* k_everywhere[] = {
    ".bashrc",       ".bash_profile", ".bash_login",      ".profile",    ".zshrc",
    ".zprofile",     ".zshenv",       ".zlogin",          ".zlogout",    ".bash_logout",
    ".bash_aliases", ".config/fish",  ".git/hooks",       ".git/config", ".claude.json",
    ".envrc",        ".gitconfig",    ".vimrc",           ".exrc",       ".vim",
    ".emacs",        ".emacs.d",      ".tmux.conf",       ".ssh",        ".npmrc",
    ".xprofile",     ".xsessionrc",   ".pam_environment",
};

/// How far below a writable directory nested repositories are looked for, and how many
/// directories the look may visit: `--writable ~/src` with checkouts two levels down is
/// covered, a whole home is not walked without end.
constexpr int k_repo_depth = 4;
constexpr size_t k_scan_budget = 20000;
constexpr size_t k_max_repos = 256;

/// The git directories of repositories below `w` (not w/.git itself, which k_everywhere has):
/// DIR/sub/.git and the submodules' DIR/.git/modules/NAME (nested to any depth).
std::vector<fs::path> nested_git_dirs(const fs::path& w) {
  std::vector<fs::path> found;
  std::error_code ec;
  size_t visited = 0;
  std::function<void(const fs::path&)> modules = [&](const fs::path& git_dir) {
    for (fs::directory_iterator it(git_dir / "modules", ec), end; !ec && it != end;
         it.increment(ec)) {
      if (++visited > k_scan_budget || found.size() >= k_max_repos) {
        return;
      }
      if (it->is_directory(ec) && !it->is_symlink(ec)) {
        found.push_back(it->path());
        modules(it->path());
      }
    }
    ec.clear();
  };
  if (fs::is_directory(fs::symlink_status(w / ".git", ec))) {
    modules(w / ".git");
  }
  fs::recursive_directory_iterator it(w, fs::directory_options::skip_permission_denied, ec);
  for (fs::recursive_directory_iterator end; !ec && it != end; it.increment(ec)) {
    if (++visited > k_scan_budget || found.size() >= k_max_repos) {
      std::fprintf(stderr,
                   "ws: warning: %s holds more than can be checked for repositories: hooks and "
                   "config of repositories below what was checked are not guarded\n",
                   w.c_str());
      break;
    }
    if (!it->is_directory(ec) || it->is_symlink(ec)) {
      continue;
    }
    const fs::path name = it->path().filename();
    if (name == ".git") {
      it.disable_recursion_pending();
      if (it.depth() > 0) {
        found.push_back(it->path());
        modules(it->path());
      }
    } else if (name == "node_modules" || it.depth() + 1 >= k_repo_depth) {
      it.disable_recursion_pending();
    }
  }
  return found;
}

/// The first symlink on the way from `root` to `p` (`p` itself included), not followed.
std::optional<fs::path> first_symlink(const fs::path& root, const fs::path& p) {
  std::error_code ec;
  fs::path at = root;
  for (const auto& c : p.lexically_relative(root)) {
    at /= c;
    if (fs::is_symlink(fs::symlink_status(at, ec))) {
      return at;
    }
  }
  return std::nullopt;
}

/// The writable directory `p` lies in (the longest), or null.
const fs::path* writable_holding(const std::vector<fs::path>& writable, const fs::path& p) {
  const fs::path* best = nullptr;
  for (const auto& w : writable) {
    auto rel = p.lexically_relative(w);
    if (!rel.empty() && *rel.begin() != ".." &&
        (!best || w.native().size() > best->native().size())) {
      best = &w;
    }
  }
  return best;
}

} // namespace

GuardedPaths guarded_paths(const std::vector<fs::path>& writable) {
  GuardedPaths g;
  std::error_code ec;
  fs::path root;
  std::function<void(const fs::path&)> add = [&](const fs::path& p) {
    if (std::optional<fs::path> link = first_symlink(root, p)) {
      // Never bound: bwrap follows a link on both sides, and the agent chose where it points
      // (`.git/hooks -> ../../..` put the person's home over the private one). The link must
      // be the same at the end; what it leads to is guarded where it really is, if the agent
      // could write it there.
      if (std::none_of(g.links.begin(), g.links.end(),
                       [&](const GuardedPaths::Link& l) { return l.path == *link; })) {
        g.links.push_back({*link, fs::read_symlink(*link, ec)});
      }
      fs::path real = fs::canonical(p, ec);
      const fs::path* in = ec ? nullptr : writable_holding(writable, real);
      if (in && !first_symlink(*in, real)) {
        fs::path saved = root;
        root = *in;
        add(real);
        root = saved;
      }
      return;
    }
    if (fs::exists(fs::symlink_status(p, ec))) {
      g.existing.push_back(p);
      for (fs::path d = p.parent_path(); d != root && d.has_relative_path(); d = d.parent_path()) {
        if (std::find(g.pinned.begin(), g.pinned.end(), d) == g.pinned.end()) {
          g.pinned.push_back(d);
        }
      }
    } else if (fs::is_directory(p.parent_path(), ec)) {
      g.absent.push_back(p);
    }
  };
  for (const auto& w : writable) {
    if (!fs::is_directory(w, ec)) {
      continue;
    }
    root = w;
    int fd = ::open(w.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
      g.roots.push_back({w, std::make_shared<const fuse::UniqueFd>(fd)});
    }
    for (const char* e : k_everywhere) {
      add(w / e);
    }
    for (const auto& git_dir : nested_git_dirs(w)) {
      add(git_dir / "hooks");
      add(git_dir / "config");
    }
    for (const auto& dir : agent_dirs()) {
      fs::path base;
      if (w.filename() == dir.name) {
        base = w;
      } else if (fs::is_directory(w / dir.name, ec)) {
        base = w / dir.name;
      } else {
        continue;
      }
      for (const char* e : dir.guarded) {
        add(base / e);
      }
    }
  }
  std::sort(g.pinned.begin(), g.pinned.end()); // parents before what is below them
  return g;
}

namespace {

/// Moves `name` in the directory `dir_fd` aside (the name itself, never what it points to).
void move_aside(int dir_fd, const fs::path& shown, const std::string& name,
                const std::string& session) {
  std::string aside = name + ".ws-quarantine-" + session;
  int rc = ::renameat2(dir_fd, name.c_str(), dir_fd, aside.c_str(), RENAME_NOREPLACE);
  if (rc != 0 && errno == EINVAL) { // a filesystem without RENAME_NOREPLACE
    rc = ::renameat(dir_fd, name.c_str(), dir_fd, aside.c_str());
  }
  if (rc != 0) {
    std::fprintf(stderr, "ws: WARNING: cannot move the planted %s aside: %s\n", shown.c_str(),
                 std::strerror(errno));
  }
}

/// The writable directory `p` lies in (the longest one, for nested --writable paths).
const GuardedPaths::Root* root_of(const GuardedPaths& guarded, const fs::path& p) {
  const GuardedPaths::Root* best = nullptr;
  for (const auto& r : guarded.roots) {
    auto rel = p.lexically_relative(r.path);
    if (!rel.empty() && *rel.begin() != ".." &&
        (!best || r.path.native().size() > best->path.native().size())) {
      best = &r;
    }
  }
  return best;
}

} // namespace

std::vector<fs::path> quarantine_planted(const GuardedPaths& guarded, const std::string& session) {
  std::vector<fs::path> moved;
  for (const auto& link : guarded.links) {
    const GuardedPaths::Root* root = root_of(guarded, link.path);
    if (!root) {
      continue;
    }
    // The same walk as below; at the end, the same link or nothing is fine, anything else (a
    // directory of hooks in place of `.git/hooks -> ../tools/hooks`) is moved aside.
    fuse::UniqueFd dir(::fcntl(root->fd->get(), F_DUPFD_CLOEXEC, 0));
    fs::path shown = root->path;
    fs::path rel = link.path.lexically_relative(root->path);
    for (auto c = rel.begin(); dir && c != rel.end(); ++c) {
      const std::string name = c->string();
      shown /= name;
      struct stat st {};
      if (::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        break;
      }
      if (std::next(c) == rel.end()) {
        char target[PATH_MAX];
        ssize_t n =
            S_ISLNK(st.st_mode) ? ::readlinkat(dir.get(), name.c_str(), target, sizeof target) : -1;
        if (n < 0 || link.target != std::string(target, static_cast<size_t>(n))) {
          move_aside(dir.get(), shown, name, session);
          moved.push_back(shown);
        }
        break;
      }
      if (!S_ISDIR(st.st_mode)) {
        break;
      }
      dir.reset(::openat(dir.get(), name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    }
  }
  for (const auto& p : guarded.absent) {
    const GuardedPaths::Root* root = root_of(guarded, p);
    if (!root) {
      continue;
    }
    // Component by component from the writable directory's fd, no symlink followed: the
    // agent may have replaced any directory on the way (DIR/.claude -> ~/.claude).
    fuse::UniqueFd dir(::fcntl(root->fd->get(), F_DUPFD_CLOEXEC, 0));
    fs::path shown = root->path;
    fs::path rel = p.lexically_relative(root->path);
    for (auto c = rel.begin(); dir && c != rel.end(); ++c) {
      const std::string name = c->string();
      shown /= name;
      struct stat st {};
      if (::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        break; // absent: nothing planted
      }
      bool last = std::next(c) == rel.end();
      if (last || S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode)) {
        if (last || S_ISLNK(st.st_mode)) {
          move_aside(dir.get(), shown, name, session);
          moved.push_back(shown);
        }
        break;
      }
      dir.reset(::openat(dir.get(), name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    }
  }
  return moved;
}

} // namespace ws
