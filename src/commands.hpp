#pragma once

#include "src/workspace.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ws {

/// Options every command shares, and the workspace they point at.
struct Context {
  std::filesystem::path cwd;  ///< where the command runs (after -C)
  std::filesystem::path repo; ///< the real working tree
  std::string workspace;      ///< -w / WS_WORKSPACE / the view we stand in / "default"
  Workspace ws() const { return Workspace::locate(repo, workspace); }
  /// A path argument as a repository-relative path (git's pathspec convention: relative
  /// to the current directory, whether that is in the real tree or in the view).
  std::string repo_relative(const std::string& arg) const;
};

/// Finds the repository and workspace from `dir` (the real tree, or a view of it).
Context make_context(const std::string& dir, const std::string& workspace_flag);

int cmd_new(const Context& ctx, const std::string& name);
int cmd_mount(const Context& ctx, bool debug);
int cmd_umount(const Context& ctx, bool force);
int cmd_list(const Context& ctx);
int cmd_rm(const Context& ctx, const std::string& name, bool force);
int cmd_status(const Context& ctx, bool json);

struct LogOptions {
  bool json = false;
  std::string since;
  std::string path;
  std::optional<size_t> limit;
};
int cmd_log(const Context& ctx, const LogOptions& options);

} // namespace ws
