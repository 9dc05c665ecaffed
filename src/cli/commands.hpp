#pragma once

#include "src/workspace/workspace.hpp"

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
/// ws list [--json]: this repository's workspaces; ws list --all: every repository's.
int cmd_list(const Context& ctx, bool json);
/// `ws list --all`; `here` (if ws runs in a repository) marks its current workspace.
int cmd_list_all(const std::optional<Context>& here, bool json);
/// Workspace names for shell completion (ws __complete workspaces); nothing outside a
/// repository.
int print_workspace_names(const std::string& dir, const std::string& workspace);
int cmd_rm(const Context& ctx, const std::string& name, bool force);
int cmd_status(const Context& ctx, bool json, bool verbose);

struct LogOptions {
  bool json = false;
  std::string since;
  std::string path;
  std::optional<size_t> limit;
  std::string session;  ///< only this `ws run` session's entries
  bool commits = false; ///< the agent's commits instead (src/transfer/cmd_commits.cpp)
  bool verbose = false; ///< also the thread of each process
};
int cmd_log(const Context& ctx, const LogOptions& options);
int cmd_log_commits(const Context& ctx, const LogOptions& options);

/// What `ws diff` shows (src/cmd_diff.cpp).
struct DiffOptions {
  std::vector<std::string> paths;     ///< pathspecs: only changes at or below these
  std::vector<std::string> include;   ///< withheld paths the person takes anyway
  std::optional<unsigned> checkpoint; ///< diff a checkpoint instead of the live state
  bool stat = false;
  bool name_status = false;
  bool withheld = false; ///< only the withheld (and blocked) list
  bool json = false;
  bool exit_code = false; ///< exit 1 when something would transfer
  std::string color = "auto";
  bool no_pager = false;
  bool commits = false; ///< one patch per agent commit, then the uncommitted rest
  bool verbose = false; ///< every path in the report, none folded; and the agent's git files
};
int cmd_diff(const Context& ctx, const DiffOptions& options);
int cmd_diff_commits(const Context& ctx, const DiffOptions& options);

/// What `ws apply` lands (src/cmd_apply.cpp).
struct ApplyOptions {
  std::vector<std::string> paths;
  std::vector<std::string> include;
  std::optional<unsigned> checkpoint;
  std::string expect;   ///< the patch id the person reviewed
  bool index = false;   ///< also stage in the real index
  bool check = false;   ///< dry run
  bool markers = false; ///< --conflicts=markers: write conflict markers instead of refusing
  bool verbose = false; ///< every path in the report, none folded into its directory
  bool commits = false; ///< land the agent's commits as commits (src/transfer/apply_commits.cpp)
};
int cmd_apply(const Context& ctx, const ApplyOptions& options);
int cmd_apply_commits(const Context& ctx, const ApplyOptions& options);

/// ws sync (src/transfer/cmd_sync.cpp): the workspace onto the person's current HEAD.
struct SyncOptions {
  bool check = false; ///< dry run
  bool json = false;
  bool markers = false; ///< --conflicts=markers: write conflict markers into the agent's files
};
int cmd_sync(const Context& ctx, const SyncOptions& options);

/// ws reset [PATH...] (src/cmd_reset.cpp): drops all (no paths) or the named changes,
/// keeping them as a checkpoint first.
int cmd_reset(const Context& ctx, const std::vector<std::string>& paths);
/// ws checkpoint / checkpoints / restore (src/cmd_checkpoint.cpp).
int cmd_checkpoint(const Context& ctx, const std::string& message);
/// `keep`: delete all but the newest N checkpoints first.
int cmd_checkpoints(const Context& ctx, bool json, std::optional<size_t> keep);
int cmd_restore(const Context& ctx, unsigned id);

/// ws run / ws shell (src/cmd_run.cpp): the agent, confined to the workspace's view.
struct RunOptions {
  std::vector<std::string> command;  ///< empty: the person's $SHELL (ws shell)
  std::vector<std::string> writable; ///< --writable PATH
  std::vector<std::string> read;     ///< --read PATH: one more path visible, read-only
  std::vector<std::string> env;      ///< --env NAME or NAME=VALUE
  /// --network=on|off|host|allow:HOST,...; empty: not given (the profile's hosts, else "on").
  std::string network;
  /// --profile NAME, or "none"; empty: the profile whose command the agent's program is.
  std::string profile;
  /// `ws run NAME -- ARGS`: `command` holds only ARGS, the profile's program goes first.
  bool profile_command = false;
  std::optional<std::string> max_disk; ///< --max-disk SIZE (the workspace's upper layer)
  long max_procs = 0;                  ///< --max-procs N (0: the default, 1024)
  bool no_confine = false;
};
int cmd_run(const Context& ctx, const RunOptions& options);

/// ws review (src/cmd_review.cpp; ReviewOptions in src/review_session.hpp).
struct ReviewOptions;
int cmd_review(const Context& ctx, const ReviewOptions& options);

} // namespace ws
