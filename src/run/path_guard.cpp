// --writable and --read validation (path_guard.hpp). The escape this closes: with a writable
// ancestor of the project, an agent renamed the project's parent and planted a repository
// at the old path, whose hooks ran when the person typed `git status` there.
#include "src/run/path_guard.hpp"

#include "src/cli/error.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

namespace ws {

namespace fs = std::filesystem;

namespace {

using FileId = std::pair<dev_t, ino_t>;

bool file_id(const fs::path& p, FileId& id) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) {
    return false;
  }
  id = {st.st_dev, st.st_ino};
  return true;
}

/// `p` and every directory above it, by device and inode.
std::set<FileId> identity_chain(const fs::path& p) {
  std::set<FileId> chain;
  for (fs::path a = p;; a = a.parent_path()) {
    FileId id{};
    if (file_id(a, id)) {
      chain.insert(id);
    }
    if (a == a.root_path()) {
      return chain;
    }
  }
}

bool is_under(const fs::path& p, const fs::path& dir) {
  auto rel = p.lexically_relative(dir);
  return !rel.empty() && *rel.begin() != ".." && rel.is_relative();
}

/// /proc/self/mountinfo's mount points (field 5), octal escapes decoded.
std::vector<fs::path> mount_points() {
  std::vector<fs::path> out;
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string skip, point;
    fields >> skip >> skip >> skip >> skip >> point;
    std::string decoded;
    for (size_t i = 0; i < point.size(); ++i) {
      if (point[i] == '\\' && i + 3 < point.size()) {
        decoded += static_cast<char>(std::strtol(point.substr(i + 1, 3).c_str(), nullptr, 8));
        i += 3;
      } else {
        decoded += point[i];
      }
    }
    out.emplace_back(decoded);
  }
  return out;
}

} // namespace

fs::path expand_home(const std::string& p) {
  if (p == "~" || p.starts_with("~/")) {
    const char* home = std::getenv("HOME");
    if (!home || !*home) {
      throw Error("cannot expand '" + p + "': HOME is not set");
    }
    return fs::path(home) / p.substr(p.size() > 1 ? 2 : 1);
  }
  return p;
}

fs::path checked_sandbox_path(const std::string& flag, const std::string& raw,
                              const std::vector<ProtectedPath>& protect) {
  std::error_code ec;
  fs::path path = fs::canonical(expand_home(raw), ec);
  if (ec) {
    throw Error(flag + " " + raw + ": " + ec.message(), "name an existing directory or file");
  }
  auto refuse = [&](const std::string& how, const ProtectedPath& x) {
    throw Error(flag + " " + raw + (path.string() != raw ? " (" + path.string() + ")" : "") + " " +
                    how + " " + x.what + " (" + x.path.string() + ")",
                !x.hint.empty() ? x.hint
                                : "the agent must never be able to change " + x.what +
                                      " or move a directory above it; name a narrower path "
                                      "outside it");
  };
  FileId pid{};
  file_id(path, pid);
  // Every ancestor of the path, by identity: the path lies inside X if one of them is X.
  std::set<FileId> path_chain = identity_chain(path);
  std::vector<fs::path> mounts_below;
  for (const auto& m : mount_points()) {
    if (is_under(m, path)) {
      mounts_below.push_back(m);
    }
  }
  for (const auto& x : protect) {
    fs::path xc = fs::weakly_canonical(x.path, ec);
    if (ec) {
      continue;
    }
    if (path == xc) {
      refuse("is", x);
    }
    if (is_under(xc, path)) {
      refuse("contains", x);
    }
    if (x.inside_too && is_under(path, xc)) {
      refuse("lies inside", x);
    }
    // The protected path and its ancestors, by identity.
    std::set<FileId> chain = identity_chain(xc);
    if (chain.count(pid)) {
      refuse("is another name (bind mount or hard link) for", x);
    }
    FileId xid{};
    if (x.inside_too && file_id(xc, xid) && path_chain.count(xid)) {
      refuse("lies inside another name for", x);
    }
    for (const auto& m : mounts_below) {
      FileId mid{};
      if (file_id(m, mid) && chain.count(mid)) {
        refuse("holds a mount (" + m.string() + ") that shows", x);
      }
    }
  }
  return path;
}

void refuse_links_in_writable(const std::string& flag, const std::string& raw,
                              const std::vector<fs::path>& writable) {
  std::error_code ec;
  fs::path named = fs::absolute(expand_home(raw), ec).lexically_normal();
  fs::path at;
  for (const auto& c : named) {
    at /= c;
    if (!fs::is_symlink(fs::symlink_status(at, ec))) {
      continue;
    }
    fs::path where = fs::canonical(at.parent_path(), ec);
    for (const auto& w : writable) {
      if (!ec && (where == w || is_under(where, w))) {
        throw Error(flag + " " + raw + ": " + at.string() + " is a symlink (to " +
                        fs::read_symlink(at, ec).string() + ") in the writable directory " +
                        w.string() + ", where an earlier session's agent could have made it",
                    "name the directory it points to yourself if you mean it, or remove the "
                    "link");
      }
    }
  }
}

namespace {

/// Version managers and toolchain installers: a directory of PATH inside one of these (its
/// shims, rustup's proxies, nvm's current version) runs programs from the rest of its tree,
/// and the manager switches PATH to another of its versions (`nvm use`, `pyenv shell`).
constexpr const char* k_program_trees[] = {
    ".pyenv", ".rbenv",  ".nodenv", ".goenv", ".plenv",   ".jenv", ".asdf",  ".volta", ".nvm",
    ".fnm",   ".sdkman", ".rustup", ".ghcup", ".juliaup", ".elan", ".proto", "mise",   "rtx",
};

/// Where rustup keeps the toolchains its proxies in CARGO_HOME/bin run.
fs::path rustup_home() {
  const char* env = std::getenv("RUSTUP_HOME");
  const char* home = std::getenv("HOME");
  if (env && *env == '/') {
    return env;
  }
  return home && *home == '/' ? fs::path(home) / ".rustup" : fs::path();
}

bool is_cargo_bin(const fs::path& d) {
  const char* cargo = std::getenv("CARGO_HOME");
  return d.filename() == "bin" && (d.parent_path().filename() == ".cargo" ||
                                   (cargo && *cargo == '/' && d.parent_path() == cargo));
}

} // namespace

std::vector<ProtectedPath> path_directories() {
  std::vector<ProtectedPath> out;
  std::vector<fs::path> trees;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  std::string dir;
  std::error_code ec;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty() || dir[0] != '/') {
      continue; // "." or a relative entry names wherever you stand, not a place to guard
    }
    fs::path d = fs::weakly_canonical(dir, ec);
    if (ec) {
      d = fs::path(dir).lexically_normal();
    }
    out.push_back({d, "a directory of your PATH", true,
                   "a program the agent put there would run outside the sandbox the next time you "
                   "type its name; let it install tools inside (its private home, the view), or "
                   "name a narrower directory that holds no PATH entry and no program you run"});
    for (fs::path a = d; a.has_relative_path(); a = a.parent_path()) {
      for (const char* tree : k_program_trees) {
        if (a.filename() == tree) {
          trees.push_back(a);
        }
      }
    }
    if (is_cargo_bin(d) && !rustup_home().empty()) {
      trees.push_back(rustup_home());
    }
  }
  std::sort(trees.begin(), trees.end());
  trees.erase(std::unique(trees.begin(), trees.end()), trees.end());
  for (const auto& t : trees) {
    out.push_back({t, "the toolchains your PATH's shims or proxies run", true,
                   "a shim or proxy in your PATH (rustup's cargo, pyenv's python, nvm's node) runs "
                   "the programs there, so one the agent put there would run outside the sandbox "
                   "the next time you type its name; let it install toolchains inside (its "
                   "private home, the view)"});
  }
  return out;
}

} // namespace ws
