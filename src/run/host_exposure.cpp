// The private home and the masked host (host_exposure.hpp). The rule is "hidden unless
// harmless": a home holds keys, tokens, histories and agent credentials, so the agent gets an
// empty one with a few files read-only, and any path more must be named (--read).
#include "src/run/host_exposure.hpp"

#include "src/run/path_set.hpp"

#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace ws {

namespace fs = std::filesystem;

namespace {

/// Read-only in the private home: settings that make tools behave as the person expects
/// and hold no secret of their own. git's XDG directory file by file: git's credential
/// store writes ~/.config/git/credentials when ~/.git-credentials does not exist. Not git's
/// config files (~/.gitconfig, ~/.config/git/config: tokens in URLs, headers, helpers): the
/// agent gets its own ~/.gitconfig (git_home_config.hpp). Not the shells' start-up files
/// (~/.bashrc, ~/.profile, ~/.zshrc...): people export their API tokens there, and every shell
/// the agent starts would source them (`--read ~/.bashrc` shows one on purpose).
constexpr const char* k_home_files[] = {
    ".config/git/ignore", ".config/git/attributes", ".gitignore_global", ".inputrc", ".vimrc",
    ".config/nvim",       ".editorconfig",          ".tmux.conf",
};

/// Toolchains people install in their home; executables and libraries, no credentials
/// (~/.cargo/credentials* is not in ~/.cargo/bin).
constexpr const char* k_home_toolchains[] = {
    ".local/bin",
    ".cargo/bin",
    ".rustup",
    ".pyenv",
    ".nvm",
    ".volta",
    ".bun/bin",
    ".deno/bin",
    "go/bin",
    ".sdkman/candidates",
    ".local/share/pnpm",
    ".npm-global/bin",
    ".npm-global/lib",
};

/// Version managers whose shims (DIR/shims or DIR/bin in PATH) run the manager itself.
constexpr const char* k_version_managers[] = {".pyenv", ".rbenv", ".nodenv", ".goenv",
                                              ".asdf",  ".volta", ".nvm",    ".plenv"};

/// Host secrets outside any home, readable by root.
constexpr const char* k_host_secrets[] = {
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/shadow-",
    "/etc/gshadow-",
    "/etc/ssh/ssh_host_*_key",
    "/etc/ssl/private/*",
};

/// Where the agent's program really lives, if PATH finds it.
fs::path resolve_command(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    std::error_code ec;
    return fs::canonical(name, ec);
  }
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    fs::path c = fs::path(dir.empty() ? "." : dir) / name;
    if (::access(c.c_str(), X_OK) == 0) {
      std::error_code ec;
      return fs::canonical(c, ec);
    }
  }
  return {};
}

} // namespace

std::vector<fs::path> host_socket_paths() {
  std::vector<fs::path> out;
  std::ifstream in("/proc/net/unix");
  std::string line;
  std::getline(in, line); // header
  while (std::getline(in, line)) {
    // Num RefCount Protocol Flags Type St Inode Path: the path is the rest after 7 fields.
    std::istringstream f(line);
    std::string skip;
    for (int i = 0; i < 7; ++i) {
      f >> skip;
    }
    std::string path;
    std::getline(f >> std::ws, path);
    // "/proc/self/fd/N/x" (bound through a directory fd, as ws's own daemon does) names
    // nothing we can resolve from here; the daemon refuses sandboxed peers itself.
    if (!path.empty() && path[0] == '/' && !path.starts_with("/proc/")) {
      out.emplace_back(path);
    }
  }
  return out;
}

HostExposure plan_host_exposure(const std::vector<std::string>& command) {
  HostExposure e;
  const char* home_env = std::getenv("HOME");
  fs::path home = home_env && *home_env ? fs::path(home_env) : fs::path();
  for (const char* d : {"/home", "/root", "/tmp", "/var/tmp", "/run"}) {
    struct stat st {};
    if (::lstat(d, &st) == 0 && S_ISDIR(st.st_mode)) {
      e.private_dirs.emplace_back(d);
    }
  }
  struct stat st {};
  if (::lstat("/var/run", &st) == 0 && S_ISDIR(st.st_mode)) {
    e.private_dirs.emplace_back("/var/run");
  }
  std::error_code ec;
  fs::path real_home = home.empty() ? fs::path() : fs::weakly_canonical(home, ec);
  if (!real_home.empty() && real_home != "/" && !under_any(real_home, e.private_dirs)) {
    e.private_dirs.push_back(real_home);
  }
  // Each tree once: PATH often names a directory twice, or one inside another already shown
  // (~/.pyenv/shims and ~/.pyenv), and every bind is work for bwrap before the agent starts.
  auto expose = [&](const fs::path& p) {
    if (!p.empty() && under_any(p, e.private_dirs) && !under_any(p, e.read_only) &&
        fs::exists(p, ec)) {
      std::erase_if(e.read_only, [&](const fs::path& r) { return is_under_or_same(r, p); });
      e.read_only.push_back(p);
    }
  };
  if (!real_home.empty()) {
    for (const char* f : k_home_files) {
      expose(real_home / f);
    }
    for (const char* t : k_home_toolchains) {
      expose(real_home / t);
    }
  }
  // PATH directories the private dirs would hide (the person's tools stay usable); a version
  // manager's shims need the manager itself (~/.pyenv/shims runs ~/.pyenv/libexec/pyenv).
  if (const char* path = std::getenv("PATH")) {
    std::istringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
      if (dir.empty() || dir[0] != '/') {
        continue;
      }
      fs::path d = fs::weakly_canonical(dir, ec);
      fs::path root = d.parent_path();
      if (d.filename() == "shims" || d.filename() == "bin") {
        for (const char* manager : k_version_managers) {
          if (root.filename() == manager) {
            d = root;
          }
        }
      }
      expose(d);
    }
  }
  // The agent's own program, and the package it belongs to (npm installs keep their files
  // beside the entry point, e.g. node_modules/@openai/codex/{bin,vendor}).
  if (!command.empty()) {
    fs::path real = resolve_command(command[0]);
    if (!real.empty() && under_any(real, e.private_dirs)) {
      fs::path dir = real.parent_path();
      for (fs::path up = dir; up.has_relative_path() && up != real_home; up = up.parent_path()) {
        if (fs::exists(up / "package.json", ec)) {
          dir = up;
          break;
        }
        if (up.filename() == "node_modules") {
          break;
        }
      }
      // A program straight in the home or in /tmp: the program alone, never the whole
      // directory (`ws run -- ~/agent.sh` showed every file of the home).
      bool whole =
          dir == real_home || is_under_or_same(real_home, dir) ||
          std::find(e.private_dirs.begin(), e.private_dirs.end(), dir) != e.private_dirs.end();
      expose(whole ? real : dir);
    }
  }
  for (const char* pattern : k_host_secrets) {
    glob_t g{};
    if (::glob(pattern, 0, nullptr, &g) == 0) {
      for (size_t i = 0; i < g.gl_pathc; ++i) {
        e.masked.emplace_back(g.gl_pathv[i]);
      }
    }
    ::globfree(&g);
  }
  for (const auto& s : host_socket_paths()) {
    if (!under_any(s, e.private_dirs) && fs::is_socket(s, ec)) {
      e.host_sockets.push_back(s);
    }
  }
  return e;
}

} // namespace ws
