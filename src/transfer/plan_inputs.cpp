// What a plan reads besides the files of the view and of the real tree (plan_inputs.hpp).
#include "src/transfer/plan_inputs.hpp"

#include "gitbridge/agent_git.hpp"
#include "gitbridge/policy_config.hpp"
#include "gitbridge/real_repo.hpp"
#include "src/transfer/self_run_configs.hpp"
#include "src/workspace/agent_git_state.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

extern char** environ;

namespace ws {

namespace {

/// "path: dev ino mode size mtime ctime" or "path: -" (absent).
bool add_stamp(std::string& out, const std::string& path) {
  struct stat st {};
  out += path;
  if (::lstat(path.c_str(), &st) != 0) {
    out += errno == ENOENT || errno == ENOTDIR ? ": -\n" : ": ?\n";
    return errno == ENOENT || errno == ENOTDIR;
  }
  out += ": " + std::to_string(st.st_dev) + " " + std::to_string(st.st_ino) + " " +
         std::to_string(st.st_mode) + " " + std::to_string(st.st_size) + " " +
         std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) + " " +
         std::to_string(st.st_ctim.tv_sec) + "." + std::to_string(st.st_ctim.tv_nsec) + "\n";
  return true;
}

/// "path: = dev ino mode size mtime ctime" of what `path` leads to (symlinks followed: the
/// person's configs are read through them), or "path: = -" when nothing is there.
void add_followed_stamp(std::string& out, const std::filesystem::path& path) {
  struct stat st {};
  out += path.string();
  if (::stat(path.c_str(), &st) != 0) {
    out += errno == ENOENT || errno == ENOTDIR ? ": = -\n" : ": = ?\n";
    return;
  }
  out += ": = " + std::to_string(st.st_dev) + " " + std::to_string(st.st_ino) + " " +
         std::to_string(st.st_mode) + " " + std::to_string(st.st_size) + " " +
         std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) + " " +
         std::to_string(st.st_ctim.tv_sec) + "." + std::to_string(st.st_ctim.tv_nsec) + "\n";
}

/// A config file that may name others (include, includeIf): what those say is not stamped.
bool names_other_files(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return false; // absent (stamped as such)
  }
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text.find("include") != std::string::npos;
}

std::string env_or(const char* name, const std::string& fallback = "") {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

} // namespace

std::optional<std::string> plan_inputs_digest(const Workspace& w) {
  std::string out = "ws plan inputs 2\n";
  // This binary: its policy rules and its way of planning.
  char exe[4096];
  ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) {
    return std::nullopt;
  }
  exe[n] = '\0';
  if (!add_stamp(out, exe)) {
    return std::nullopt;
  }
  // Who asks, from where (a relative core.excludesFile is opened from the working
  // directory), and the environment that names git's and ws's config files.
  out += "uid " + std::to_string(::getuid()) + " " + std::to_string(::geteuid()) + " " +
         std::to_string(::getgid()) + "\n";
  std::error_code ec;
  out += "cwd " + std::filesystem::current_path(ec).string() + "\n";
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    if (std::strncmp(*e, "GIT_", 4) == 0 || std::strncmp(*e, "XDG_CONFIG_HOME=", 16) == 0 ||
        std::strncmp(*e, "HOME=", 5) == 0) {
      env.emplace_back(*e);
    }
  }
  std::sort(env.begin(), env.end());
  for (const auto& e : env) {
    out += "env " + e + "\n";
  }
  // The real repository: a plain .git directory (a worktree's or a submodule's .git file
  // points elsewhere: planned in full).
  const std::string git = (w.repo / ".git").string();
  struct stat st {};
  if (::lstat(git.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
      ::access((git + "/commondir").c_str(), F_OK) == 0) {
    return std::nullopt;
  }
  out += "repo " + w.repo.string() + "\n";
  for (const char* f : {"", "/index", "/HEAD", "/config", "/config.worktree", "/packed-refs",
                        "/info", "/info/exclude", "/info/attributes", "/modules"}) {
    if (!add_stamp(out, git + f)) {
      return std::nullopt;
    }
  }
  // Every config file git (libgit2) or ws reads for the real repository.
  const std::string home = env_or("HOME");
  const std::string xdg = env_or("XDG_CONFIG_HOME", home.empty() ? "" : home + "/.config");
  std::vector<std::string> configs{git + "/config", git + "/config.worktree", "/etc/gitconfig",
                                   env_or("GIT_CONFIG_SYSTEM", "/etc/gitconfig")};
  if (!home.empty()) {
    configs.push_back(home + "/.gitconfig");
  }
  if (!xdg.empty()) {
    configs.push_back(xdg + "/git/config");
  }
  if (const char* global = std::getenv("GIT_CONFIG_GLOBAL"); global && *global) {
    configs.emplace_back(global);
  }
  configs.push_back(gitbridge::default_user_config_file().string());
  for (const auto& c : configs) {
    if (c.empty()) {
      continue;
    }
    if (!add_stamp(out, c) || names_other_files(c)) {
      return std::nullopt;
    }
  }
  try {
    gitbridge::RealRepo repo(w.repo);
    std::optional<std::vector<std::string>> ignores = repo.outside_ignore_files();
    if (!ignores) {
      return std::nullopt;
    }
    for (const auto& f : *ignores) {
      if (!add_stamp(out, f)) {
        return std::nullopt;
      }
    }
    // The person's self-running configs in the real tree (a .pre-commit-config.yaml, a git
    // hook...): the scripts they name are withheld, so an edit of one changes verdicts of
    // paths the daemon's record does not list (self_run_configs.hpp).
    for (const auto& f : read_self_run_configs(w.repo, w.layout.dir / "gitlink-cache").read) {
      add_followed_stamp(out, f);
    }
    // The agent's git: what ws recorded as its start, and where its HEAD is now.
    std::optional<AgentGitStart> start = agent_git_start(w.layout);
    if (!start) {
      return std::nullopt; // its .git is then one of the changes, which the record leaves out
    }
    out += "agent start " + start->start + " " + start->start_index + " " + start->start_ref + " " +
           start->base + " " + start->landed + " " + start->common_dir.string() + "\n";
    gitbridge::AgentGit agent(w.layout.agent_git_dir(), start->common_dir);
    gitbridge::AgentHead head = agent.head();
    out += "agent head " + head.ref + " " + head.id + "\n";
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return out;
}

} // namespace ws
