// The command line (CLI11): options, subcommands, dispatch.
#include "src/cli/cli.hpp"

#include "src/cli/commands.hpp"
#include "src/cli/error.hpp"
#include "src/cli/logging.hpp"
#include "src/daemon/daemon.hpp"
#include "src/profile/cmd_profile.hpp"
#include "src/review/review_session.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>

namespace ws {

int run_cli(int argc, char** argv) {
  CLI::App app{
      "ws: hand a git project to an AI agent in a copy-on-write workspace, then review its work."};
  app.require_subcommand(1);
  app.fallthrough();
  std::string dir, workspace;
  int verbosity = 0;
  app.add_option("-C", dir, "Run as if ws was started in DIR")->type_name("DIR");
  app.add_option("-w,--workspace", workspace, "The workspace to use (default: 'default')")
      ->envname("WS_WORKSPACE")
      ->type_name("NAME");
  app.add_flag("-v,--verbose", verbosity, "Say more (-vv: debug)");

  std::string new_name;
  auto* c_new =
      app.add_subcommand("new", "Create a workspace for this repository (instant, any size)");
  c_new->add_option("name", new_name, "Its name (default: -w, or 'default')");

  bool debug = false;
  auto* c_mount = app.add_subcommand("mount", "Serve the workspace's view and print its path");
  c_mount->add_flag("--debug", debug, "Trace every FUSE request into the daemon's log");
  std::optional<std::string> mount_max_disk;
  c_mount
      ->add_option("--max-disk", mount_max_disk,
                   "Cap what the workspace's writes may take on disk (e.g. 10G, 0: no cap)")
      ->type_name("SIZE");

  bool force_umount = false;
  auto* c_umount = app.add_subcommand("umount", "Unmount the view and stop its daemon");
  c_umount->add_flag("-f,--force", force_umount, "Detach the view even if processes still use it");

  auto* c_list = app.add_subcommand("list", "List this repository's workspaces");

  std::string rm_name;
  bool force_rm = false;
  auto* c_rm = app.add_subcommand("rm", "Delete a workspace and everything the agent wrote in it");
  c_rm->add_option("name", rm_name, "The workspace")->required();
  c_rm->add_flag("-f,--force", force_rm, "Also if mounted or holding changes");

  bool status_json = false;
  auto* c_status =
      app.add_subcommand("status", "List what changed in the view: A/M/D/R/T per path");
  c_status->add_flag("--json", status_json, "Machine-readable output");
  bool status_verbose = false;
  c_status->add_flag("--verbose", status_verbose, "Every path, none folded into its directory");

  LogOptions log;
  size_t log_limit = 0;
  auto* c_log = app.add_subcommand(
      "log", "Show every write in the view: time, pid, command, operation, path");
  c_log->add_flag("--json", log.json, "Machine-readable output");
  c_log->add_option("--since", log.since,
                    "Only entries since: 30s, 10m, 2h, 3d, 'YYYY-MM-DD HH:MM', @EPOCH");
  c_log->add_option("--path", log.path, "Only entries for this path or below it");
  c_log->add_option("-n,--max-count", log_limit, "Only the last N entries");
  c_log->add_option("--session", log.session, "Only what this 'ws run' session wrote")
      ->type_name("ID");
  c_log->add_flag("--commits", log.commits, "The agent's commits: id, author, message, files");
  c_log->add_flag("--verbose", log.verbose,
                  "Also the thread that asked, where it is not the process");

  DiffOptions diff;
  unsigned diff_checkpoint = 0;
  auto* c_diff = app.add_subcommand("diff", "Show what would transfer, as a git patch");
  c_diff->add_option("paths", diff.paths, "Only changes at or below these paths");
  c_diff->add_flag("--stat", diff.stat, "A diffstat instead of the patch");
  c_diff->add_flag("--name-status", diff.name_status, "Status letter and path per file");
  c_diff->add_flag("--withheld", diff.withheld, "Only what would NOT transfer, with reasons");
  c_diff->add_flag("--json", diff.json, "Machine-readable: id, files, verdicts, reasons");
  c_diff->add_flag("--exit-code", diff.exit_code, "Exit 1 if something would transfer");
  c_diff->add_option("--color", diff.color, "Colour: auto, always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  c_diff->add_flag("--no-pager", diff.no_pager, "Never start a pager");
  c_diff->add_flag("--verbose", diff.verbose,
                   "Every path in the report, none folded; and the files of the agent's git");
  c_diff->add_option("--include", diff.include, "Take this withheld path anyway (repeatable)")
      ->type_name("PATH");
  c_diff->add_option("--checkpoint", diff_checkpoint, "Diff checkpoint N instead")->type_name("N");
  c_diff->add_flag("--commits", diff.commits, "One patch per agent commit, then the rest");

  ApplyOptions apply;
  unsigned apply_checkpoint = 0;
  std::string conflicts = "refuse";
  auto* c_apply = app.add_subcommand("apply", "Land the changes in the real tree (per-file 3-way)");
  c_apply->add_option("paths", apply.paths, "Only changes at or below these paths");
  c_apply->add_flag("--index", apply.index, "Also stage the result in the real index");
  c_apply->add_flag("--check", apply.check, "Only check that it would apply cleanly");
  c_apply->add_option("--expect", apply.expect, "Land only if the patch is still this one")
      ->type_name("ID");
  c_apply->add_option("--include", apply.include, "Take this withheld path anyway (repeatable)")
      ->type_name("PATH");
  c_apply->add_option("--checkpoint", apply_checkpoint, "Apply checkpoint N instead")
      ->type_name("N");
  c_apply->add_option("--conflicts", conflicts, "On conflict: refuse (land nothing) or markers")
      ->check(CLI::IsMember({"refuse", "markers"}));
  c_apply->add_flag("--verbose", apply.verbose, "Every path in the report, none folded");
  c_apply->add_flag("--commits", apply.commits,
                    "Land the agent's commits as commits on your branch (no hooks run), then the "
                    "rest");

  ReviewOptions review;
  bool review_no_index = false;
  auto* c_review = app.add_subcommand(
      "review", "Review the changes file by file and hunk by hunk in the terminal, then land them");
  c_review->add_option("paths", review.paths, "Only changes at or below these paths");
  c_review->add_flag("--no-index", review_no_index,
                     "Finish by writing to the tree only (default: also stage in the index)");
  c_review
      ->add_option("--rejected", review.rejected,
                   "Write the rejected changes to FILE as a patch, to give back to the agent")
      ->type_name("FILE");

  std::vector<std::string> reset_paths;
  auto* c_reset = app.add_subcommand(
      "reset", "Throw away all (or the named) changes of the workspace; undoable");
  c_reset->add_option("paths", reset_paths, "Only changes at or below these paths");

  std::string checkpoint_message;
  auto* c_checkpoint = app.add_subcommand("checkpoint", "Freeze the workspace's current state");
  c_checkpoint->add_option("-m,--message", checkpoint_message, "What this state is");

  bool checkpoints_json = false;
  auto* c_checkpoints = app.add_subcommand("checkpoints", "List the workspace's checkpoints");
  c_checkpoints->add_flag("--json", checkpoints_json, "Machine-readable output");
  size_t checkpoints_keep = 0;
  auto* keep_opt = c_checkpoints->add_option("--keep", checkpoints_keep,
                                             "First delete all but the newest N checkpoints");

  unsigned restore_id = 0;
  auto* c_restore = app.add_subcommand(
      "restore", "Bring back checkpoint N (the current state is checkpointed first)");
  c_restore->add_option("checkpoint", restore_id, "The checkpoint's number")->required();

  RunOptions run;
  auto* c_run = app.add_subcommand(
      "run", "Run the agent confined: the project's path is its view, the rest read-only");
  auto* c_shell =
      app.add_subcommand("shell", "An interactive shell in the same confinement as 'ws run'");
  for (auto* c : {c_run, c_shell}) {
    c->add_option("--writable", run.writable,
                  "Keep PATH writable inside (repeatable; never the project, its .git, the state, "
                  "or a directory above them)")
        ->type_name("PATH");
    c->add_option("--read", run.read, "Also show PATH inside, read-only (repeatable)")
        ->type_name("PATH");
    c->add_option("--env", run.env,
                  "Pass the variable NAME (or set NAME=VALUE) inside (repeatable; the "
                  "environment is otherwise an allowlist)")
        ->type_name("NAME[=VALUE]");
    c->add_option("--network", run.network,
                  "on (default: a private network namespace with an outside route, no host "
                  "loopback or socket), off (only a private loopback), allow:HOST,... (only "
                  "these hosts, through ws's proxy; *.domain, HOST:PORT), or host (this "
                  "machine's network: loud)")
        ->type_name("MODE");
    c->add_option("--max-disk", run.max_disk,
                  "Cap what the workspace's writes may take on disk (e.g. 10G; then ENOSPC)")
        ->type_name("SIZE");
    c->add_option("--max-procs", run.max_procs,
                  "At most N processes in the session (default 1024; a fork bomb gets EAGAIN)")
        ->type_name("N")
        ->check(CLI::PositiveNumber);
    c->add_option("--profile", run.profile,
                  "The agent profile (default: the one whose command the agent is; 'none': "
                  "none). ws profile list shows them")
        ->type_name("NAME");
    c->add_flag("--no-confine", run.no_confine,
                "Run UNCONFINED in the view (the agent can write anywhere you can)");
    // -w, -C and -v work in any position before the agent's command (they fall through
    // to the top-level options).
    c->fallthrough();
  }
  // Everything from the agent's name on is the agent's, options included.
  c_run->prefix_command();
  c_run->allow_extras();
  c_shell->footer("Usage: ws [-C DIR] [-w NAME] shell [OPTIONS]\n\nAn interactive $SHELL in the "
                  "sandbox of ws run; for one COMMAND: ws run [OPTIONS] -- COMMAND [ARGS...]");
  c_run->footer("Usage: ws [-C DIR] [-w NAME] run [OPTIONS] -- COMMAND [ARGS...]\n\n"
                "COMMAND [ARGS...]  the agent and its arguments; put '--' before it when its "
                "options could be taken for ws's.\n-w NAME and -C DIR may stand anywhere before "
                "COMMAND. The sandbox and its threat model: docs/run.md.");

  ProfileOptions profile;
  auto* c_profile = app.add_subcommand(
      "profile", "Agent profiles: list, show, and the config layer's changes (diff, reset)");
  c_profile->require_subcommand(1);
  c_profile->add_subcommand("list", "List the profiles: commands, config directories, hosts");
  c_profile->add_subcommand("show", "Everything a profile sets, and where its layer lives")
      ->add_option("name", profile.name, "The profile")
      ->required();
  auto* c_profile_diff = c_profile->add_subcommand(
      "diff", "What the agent changed in its config layer, with verdicts (hooks, MCP servers...)");
  c_profile_diff->add_option("name", profile.name, "The profile")->required();
  c_profile_diff->add_flag("--json", profile.json, "Machine-readable output");
  c_profile_diff->add_flag("--all", profile.all,
                           "Also list the changes with no verdict (logins, transcripts...)");
  auto* c_profile_reset = c_profile->add_subcommand(
      "reset", "Throw away the layer's changes (all, or at or below PATH); undoable");
  c_profile_reset->add_option("name", profile.name, "The profile")->required();
  c_profile_reset->add_option("path", profile.paths, "Only at or below these paths");

  DaemonArgs daemon;
  auto* c_daemon = app.add_subcommand("__daemon", "")->group(""); // internal: started by 'ws mount'
  c_daemon->add_option("--workspace-dir", daemon.workspace_dir)->required();
  c_daemon->add_option("--lower", daemon.lower)->required();
  c_daemon->add_option("--mountpoint", daemon.mountpoint)->required();
  c_daemon->add_option("--ready-fd", daemon.ready_fd);
  c_daemon->add_flag("--foreground", daemon.foreground);
  c_daemon->add_flag("--debug", daemon.debug);

  // `ws run [OPTIONS] -- COMMAND...`: what follows "--" is the agent's, verbatim (CLI11 would
  // hand it to the top-level app, which takes no extra arguments).
  std::vector<std::string> args(argv + 1, argv + argc);
  std::vector<std::string> after_dashes;
  std::string run_profile;
  auto dashes = std::find(args.begin(), args.end(), "--");
  if (auto at = std::find(args.begin(), dashes, "run"); at != dashes) {
    // The agent's command starts at the first word after "run" that is not one of ws's
    // options (CLI11 would hand it to the top level, which takes none): `ws run claude -p
    // x`, `ws run -- claude`, and `ws run NAME -- ARGS` for a profile by name.
    static const std::vector<std::string> k_valued{
        "--writable",  "--read",    "--env", "--network",   "--max-disk",
        "--max-procs", "--profile", "-w",    "--workspace", "-C"};
    auto it = at + 1;
    while (it != dashes && it->size() > 1 && (*it)[0] == '-') {
      bool valued = std::find(k_valued.begin(), k_valued.end(), *it) != k_valued.end();
      it += valued && it + 1 != dashes ? 2 : 1;
    }
    if (it == dashes && dashes != args.end()) {
      after_dashes.assign(dashes + 1, args.end());
    } else if (it != dashes && dashes != args.end() && it + 1 == dashes) {
      run_profile = *it; // `NAME -- ARGS`
      after_dashes.assign(dashes + 1, args.end());
    } else if (it != args.end() && it != dashes) {
      after_dashes.assign(it, args.end());
    }
    args.erase(it, args.end());
  }
  std::reverse(args.begin(), args.end()); // CLI11 takes a vector in reverse order
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  if (*c_daemon) {
    return run_daemon(daemon);
  }
  setup_cli_logging(verbosity);
  if (*c_profile) { // no repository needed
    profile.action = c_profile->get_subcommands().front()->get_name();
    return cmd_profile(profile);
  }
  Context ctx = make_context(dir, workspace);
  if (*c_new) {
    return cmd_new(ctx, new_name);
  }
  if (*c_mount) {
    std::optional<std::uint64_t> limit;
    if (mount_max_disk) {
      limit = parse_size(*mount_max_disk);
    }
    int rc = cmd_mount(ctx, debug);
    if (rc == 0 && limit) {
      set_disk_limit(ctx.ws(), *limit);
    }
    return rc;
  }
  if (*c_umount) {
    return cmd_umount(ctx, force_umount);
  }
  if (*c_list) {
    return cmd_list(ctx);
  }
  if (*c_rm) {
    return cmd_rm(ctx, rm_name, force_rm);
  }
  if (*c_status) {
    return cmd_status(ctx, status_json, status_verbose);
  }
  if (*c_log) {
    if (log_limit > 0) {
      log.limit = log_limit;
    }
    return cmd_log(ctx, log);
  }
  if (*c_diff) {
    if (diff_checkpoint > 0) {
      diff.checkpoint = diff_checkpoint;
    }
    return cmd_diff(ctx, diff);
  }
  if (*c_apply) {
    if (apply_checkpoint > 0) {
      apply.checkpoint = apply_checkpoint;
    }
    apply.markers = conflicts == "markers";
    return cmd_apply(ctx, apply);
  }
  if (*c_review) {
    review.index = !review_no_index;
    return cmd_review(ctx, review);
  }
  if (*c_reset) {
    return cmd_reset(ctx, reset_paths);
  }
  if (*c_checkpoint) {
    return cmd_checkpoint(ctx, checkpoint_message);
  }
  if (*c_checkpoints) {
    return cmd_checkpoints(ctx, checkpoints_json,
                           *keep_opt ? std::optional<size_t>(checkpoints_keep) : std::nullopt);
  }
  if (*c_run || *c_shell) {
    if (*c_run) {
      run.command = after_dashes;
      // `ws run codex -- exec "..."`: a profile by name, the agent's own arguments after --.
      if (!run_profile.empty()) {
        if (!run.profile.empty()) {
          throw Error("ws run: a profile by name (" + run_profile +
                          ") and --profile=" + run.profile,
                      "name one: ws run [OPTIONS] PROFILE -- ARGS, or ws run --profile=NAME -- "
                      "COMMAND");
        }
        run.profile = run_profile;
        run.profile_command = true;
      }
      if (run.command.empty() && !run.profile_command) {
        throw Error("ws run needs the agent's command: ws run [OPTIONS] [--] COMMAND [ARGS...]",
                    "for an interactive shell use 'ws shell'");
      }
    }
    return cmd_run(ctx, run);
  }
  if (*c_restore) {
    return cmd_restore(ctx, restore_id);
  }
  return 0;
}

} // namespace ws
