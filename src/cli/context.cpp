#include "fuse/meta_store.hpp"
#include "gitbridge/repository.hpp"
#include "src/cli/commands.hpp"
#include "src/cli/error.hpp"

#include <cstdlib>

namespace ws {

namespace fs = std::filesystem;

namespace {
/// `path` as a shell word: as it is when plain, else in single quotes.
std::string shell_word(const std::string& path) {
  if (path.find_first_not_of(
          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._+-") ==
      std::string::npos) {
    return path;
  }
  std::string out = "'";
  for (char c : path) {
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return out + "'";
}

/// If `dir` lies in a view (runtime_root()/<key>/<name>/...), the real tree and workspace
/// name it shows; the view has the repository's .git too, so git alone would be fooled.
std::optional<std::pair<fs::path, std::string>> view_of(const fs::path& dir) {
  std::error_code ec;
  fs::path root = fs::weakly_canonical(runtime_root(), ec);
  fs::path rel = dir.lexically_relative(root);
  if (ec || rel.empty() || *rel.begin() == "..") {
    return std::nullopt;
  }
  auto it = rel.begin();
  fs::path key = *it++;
  if (it == rel.end()) {
    return std::nullopt;
  }
  std::string name = it->string();
  fs::path meta = data_root() / key / name / "meta.db";
  if (!fs::exists(meta)) {
    return std::nullopt;
  }
  fuse::MetaStore store(meta, fuse::Db::Mode::ReadOnly);
  auto repo = store.info("repo");
  if (!repo) {
    return std::nullopt;
  }
  return std::make_pair(fs::path(*repo), name);
}
} // namespace

Context make_context(const std::string& dir, const std::string& workspace_flag) {
  Context ctx;
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  if (ec) {
    throw Error("cannot get the current directory: " + ec.message());
  }
  fs::path start = dir.empty() ? cwd : fs::path(dir).is_absolute() ? fs::path(dir) : cwd / dir;
  if (!fs::is_directory(start, ec)) {
    throw Error("cannot change to '" + dir + "': No such directory");
  }
  ctx.cwd = fs::canonical(start, ec);
  std::string name = workspace_flag;
  if (auto view = view_of(ctx.cwd)) {
    ctx.repo = view->first;
    if (name.empty()) {
      name = view->second;
    }
  } else {
    try {
      ctx.repo = gitbridge::find_worktree(ctx.cwd);
    } catch (const gitbridge::ForeignRepository& e) {
      // git's own advice, with the exact path: libgit2 1.5 does not take safe.directory=*
      throw Error(e.what(), "if you trust it: git config --global --add safe.directory " +
                                shell_word(e.top().string()) +
                                "   (ws and git both obey it; '*' is not enough for ws); or "
                                "run ws as the repository's owner");
    } catch (const gitbridge::GitError& e) {
      throw Error(e.what(), e.code() == -36 /* GIT_EOWNER */
                                ? "run ws as the repository's owner"
                                : "run ws inside a git working tree, or point at one with -C DIR");
    }
  }
  ctx.workspace = name.empty() ? "default" : name;
  validate_name(ctx.workspace);
  return ctx;
}

std::string Context::repo_relative(const std::string& arg) const {
  fs::path abs = (fs::path(arg).is_absolute() ? fs::path(arg) : cwd / arg).lexically_normal();
  for (const fs::path& top : {repo, ws().mountpoint}) {
    fs::path rel = abs.lexically_relative(top);
    if (!rel.empty() && *rel.begin() != "..") {
      std::string s = rel.string();
      if (s == ".") {
        return "";
      }
      while (!s.empty() && s.back() == '/') {
        s.pop_back();
      }
      return s;
    }
  }
  throw Error("'" + arg + "' is outside the repository " + repo.string());
}

} // namespace ws
