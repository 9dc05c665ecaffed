#include "src/workspace/workspace.hpp"

#include "fuse/hash.hpp"
#include "fuse/meta_store.hpp"
#include "src/cli/error.hpp"
#include "src/workspace/agent_git_state.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace ws {

namespace fs = std::filesystem;

namespace {
std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

fs::path home() {
  std::string h = env("HOME");
  if (h.empty()) {
    throw Error("HOME is not set", "set HOME, or XDG_DATA_HOME for where workspaces live");
  }
  return h;
}

std::string repo_key(const fs::path& repo) {
  std::string base = repo.filename().string();
  if (base.empty()) {
    base = "root";
  }
  return base + "-" + fuse::hash_bytes(repo.string()).hex().substr(0, 12);
}

void make_private_dirs(const fs::path& p) {
  fs::create_directories(p);
  ::chmod(p.c_str(), 0700);
}
} // namespace

fs::path data_root() {
  std::string xdg = env("XDG_DATA_HOME");
  return (xdg.empty() ? home() / ".local" / "share" : fs::path(xdg)) / "ws";
}

fs::path runtime_root() {
  std::string xdg = env("XDG_RUNTIME_DIR");
  if (!xdg.empty()) {
    return fs::path(xdg) / "ws";
  }
  fs::path run = "/run/user/" + std::to_string(::getuid());
  if (::access(run.c_str(), W_OK | X_OK) == 0) {
    return run / "ws";
  }
  std::string tmp = env("TMPDIR");
  return fs::path(tmp.empty() ? "/tmp" : tmp) / ("ws-" + std::to_string(::getuid()));
}

void validate_name(const std::string& name) {
  bool ok = !name.empty() && name.size() <= 64 && name[0] != '.' && name[0] != '-' &&
            std::all_of(name.begin(), name.end(), [](char c) {
              return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                     c == '.' || c == '_' || c == '-';
            });
  if (!ok) {
    throw Error("invalid workspace name '" + name + "'",
                "use letters, digits, '.', '_' and '-' (not first), at most 64 characters");
  }
}

Workspace Workspace::locate(const fs::path& repo, const std::string& name) {
  validate_name(name);
  Workspace w;
  w.repo = repo;
  w.name = name;
  std::string key = repo_key(repo);
  w.layout.dir = data_root() / key / name;
  w.mountpoint = runtime_root() / key / name;
  return w;
}

bool Workspace::exists() const {
  return fs::exists(layout.meta_db());
}

void Workspace::create() const {
  if (exists()) {
    throw Error("workspace '" + name + "' already exists for " + repo.string(),
                "use it with 'ws mount', or remove it with 'ws rm " + name + "'");
  }
  make_private_dirs(layout.dir.parent_path());
  layout.create_dirs();
  fuse::MetaStore meta(layout.meta_db(), fuse::Db::Mode::ReadWrite);
  meta.set_info("repo", repo.string());
  meta.set_info("name", name);
  meta.set_info("format", "1");
  try {
    init_agent_git(*this); // the agent's git is its own from here on (docs/agent-git.md)
  } catch (const std::exception& e) {
    std::error_code ec;
    std::filesystem::remove_all(layout.dir, ec);
    fs::path git_dir = repo / ".git";
    if (fs::is_directory(git_dir, ec) && ::access(git_dir.c_str(), W_OK) != 0) {
      // another user's repository, opened by safe.directory: readable, not writable
      throw Error("cannot make workspace '" + name + "' its own git state: " + e.what(),
                  "ws pins the agent's starting commit under " + (git_dir / "refs/ws").string() +
                      ", so it needs to write to " + git_dir.string() +
                      ": run ws as a user who may (its owner)");
    }
    throw Error("cannot make workspace '" + name + "' its own git state: " + e.what(),
                "check that 'git status' works in " + repo.string());
  }
}

void Workspace::remove() const {
  remove_agent_git_pins(*this); // refs/ws/<id>/ in the real repository
  // The agent may have left directories without write permission: open them up first.
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(
           layout.dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) {
      ::chmod(it->path().c_str(), 0700);
    }
  }
  ::chmod(layout.dir.c_str(), 0700);
  fs::remove_all(layout.dir, ec);
  if (ec) {
    throw Error("cannot remove workspace '" + name + "' (" + layout.dir.string() +
                    "): " + ec.message(),
                "check the permissions of that directory, then try again");
  }
  fs::remove(mountpoint, ec);
}

std::vector<std::string> list_workspaces(const fs::path& repo) {
  std::vector<std::string> names;
  fs::path dir = Workspace::locate(repo, "default").layout.dir.parent_path();
  std::error_code ec;
  for (auto& e : fs::directory_iterator(dir, ec)) {
    if (fs::exists(e.path() / "meta.db")) {
      names.push_back(e.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<fs::path> repositories_with_workspaces() {
  std::vector<fs::path> repos;
  std::error_code ec;
  for (auto& key : fs::directory_iterator(data_root(), ec)) {
    std::error_code ec2;
    for (auto& ws : fs::directory_iterator(key.path(), ec2)) {
      fs::path meta = ws.path() / "meta.db";
      if (!fs::exists(meta)) {
        continue;
      }
      try {
        if (auto repo = fuse::MetaStore(meta, fuse::Db::Mode::ReadOnly).info("repo")) {
          repos.emplace_back(*repo);
        }
      } catch (const std::exception&) {
        // unreadable state: not a workspace this can list
      }
    }
  }
  std::sort(repos.begin(), repos.end());
  repos.erase(std::unique(repos.begin(), repos.end()), repos.end());
  return repos;
}

} // namespace ws
