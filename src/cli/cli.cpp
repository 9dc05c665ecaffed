// The command line (CLI11): options, subcommands, dispatch.
#include "src/cli/cli.hpp"

#include "src/cli/build_info.hpp"
#include "src/cli/cli_spec.hpp"
#include "src/cli/commands.hpp"
#include "src/cli/completion.hpp"
#include "src/cli/error.hpp"
#include "src/cli/logging.hpp"
#include "src/cli/man_page.hpp"
#include "src/cli/trailing_command.hpp"
#include "src/cli/usage.hpp"
#include "src/daemon/daemon.hpp"
#include "src/host/host_commands.hpp"
#include "src/profile/cmd_profile.hpp"
#include "src/review/review_session.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>

namespace ws {

int run_cli(int argc, char** argv) {
  CLI::App app{
      "hand a git project to an AI agent in a copy-on-write workspace, then review its work", "ws"};
  app.formatter(std::make_shared<HelpFormatter>());
  app.set_version_flag(
      "-V,--version",
      [] { // CLI11 ends it with a newline of its own
        std::string v = version_text();
        return v.substr(0, v.size() - 1);
      },
      "Print the version, the commit and what this machine offers, then exit");
  // -C, -w and -v also after the command: a command passes the options it does not know to
  // the top level (every command inherits this).
  app.fallthrough();
  // One command at most: after it, a word like "log" is an argument (a path), never a second
  // command. None prints the help.
  app.require_subcommand(0, 1);
  std::string dir, workspace;
  int verbosity = 0;
  app.add_option("-C", dir, "Run as if ws was started in DIR")->type_name("DIR");
  app.add_option("-w,--workspace", workspace, "The workspace to use (default: 'default')")
      ->envname("WS_WORKSPACE")
      ->type_name("WORKSPACE");
  app.add_flag("-v,--verbose", verbosity, "Say more (-vv: debug)");

  std::string new_name;
  auto* c_new =
      app.add_subcommand("new", "Create a workspace for this repository (instant, any size)");
  c_new->add_option("name", new_name, "Its name (default: -w, or 'default')")->type_name("NAME");

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

  bool list_all = false, list_json = false;
  auto* c_list = app.add_subcommand("list", "List this repository's workspaces");
  c_list->add_flag("-a,--all", list_all,
                   "Every repository's workspaces (from the state directory)");
  c_list->add_flag("--json", list_json, "Machine-readable output");

  std::string rm_name;
  bool force_rm = false;
  auto* c_rm = app.add_subcommand("rm", "Delete a workspace and everything the agent wrote in it");
  c_rm->add_option("name", rm_name, "The workspace")->required()->type_name("WORKSPACE");
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
  c_log
      ->add_option("--since", log.since,
                   "Only entries since: 30s, 10m, 2h, 3d, 'YYYY-MM-DD HH:MM', @EPOCH")
      ->type_name("WHEN");
  c_log->add_option("--path", log.path, "Only entries for this path or below it")
      ->type_name("PATH");
  c_log->add_option("-n,--max-count", log_limit, "Only the last N entries")->type_name("N");
  c_log->add_option("--session", log.session, "Only what this 'ws run' session wrote")
      ->type_name("ID");
  c_log->add_flag("--commits", log.commits, "The agent's commits: id, author, message, files");
  c_log->add_flag("--verbose", log.verbose,
                  "Also the thread that asked, where it is not the process; with "
                  "--commits, every path, none folded into its directory");

  DiffOptions diff;
  unsigned diff_checkpoint = 0;
  auto* c_diff = app.add_subcommand("diff", "Show what would transfer, as a git patch");
  c_diff->add_option("paths", diff.paths, "Only changes at or below these paths")
      ->type_name("PATH");
  c_diff->add_flag("--stat", diff.stat, "A diffstat instead of the patch");
  c_diff->add_flag("--name-status", diff.name_status, "Status letter and path per file");
  c_diff->add_flag("--withheld", diff.withheld, "Only what would NOT transfer, with reasons");
  c_diff->add_flag("--json", diff.json, "Machine-readable: id, files, verdicts, reasons");
  c_diff->add_flag("--exit-code", diff.exit_code, "Exit 1 if something would transfer");
  c_diff->add_option("--color", diff.color, "Colour: auto, always, never")
      ->type_name("WHEN")
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
  c_apply->add_option("paths", apply.paths, "Only changes at or below these paths")
      ->type_name("PATH");
  c_apply->add_flag("--index", apply.index, "Also stage the result in the real index");
  c_apply->add_flag("--check", apply.check, "Only check that it would apply cleanly");
  c_apply->add_option("--expect", apply.expect, "Land only if the patch is still this one")
      ->type_name("ID");
  c_apply->add_option("--include", apply.include, "Take this withheld path anyway (repeatable)")
      ->type_name("PATH");
  c_apply->add_option("--checkpoint", apply_checkpoint, "Apply checkpoint N instead")
      ->type_name("N");
  c_apply->add_option("--conflicts", conflicts, "On conflict: refuse (land nothing) or markers")
      ->type_name("HOW")
      ->check(CLI::IsMember({"refuse", "markers"}));
  c_apply->add_flag("--verbose", apply.verbose, "Every path in the report, none folded");
  c_apply->add_flag("--commits", apply.commits,
                    "Land the agent's commits as commits on your branch (no hooks run), then the "
                    "rest");

  SyncOptions sync;
  std::string sync_conflicts = "list";
  auto* c_sync = app.add_subcommand(
      "sync", "Bring the workspace onto your current HEAD: the agent's commits rebased, files "
              "merged 3-way (undoable)");
  c_sync->add_flag("--check", sync.check, "Only say what it would do");
  c_sync->add_flag("--json", sync.json, "Machine-readable output");
  c_sync
      ->add_option("--conflicts", sync_conflicts,
                   "On a file conflict: list it (the file stays the agent's) or write markers")
      ->type_name("HOW")
      ->check(CLI::IsMember({"list", "markers"}));

  ReviewOptions review;
  bool review_no_index = false;
  auto* c_review = app.add_subcommand(
      "review", "Review the changes file by file and hunk by hunk in the terminal, then land them");
  c_review->add_option("paths", review.paths, "Only changes at or below these paths")
      ->type_name("PATH");
  c_review->add_flag("--no-index", review_no_index,
                     "Finish by writing to the tree only (default: also stage in the index)");
  c_review
      ->add_option("--rejected", review.rejected,
                   "Write the rejected changes to FILE as a patch, to give back to the agent")
      ->type_name("FILE");

  std::vector<std::string> reset_paths;
  auto* c_reset = app.add_subcommand(
      "reset", "Throw away all (or the named) changes of the workspace; undoable");
  c_reset->add_option("paths", reset_paths, "Only changes at or below these paths")
      ->type_name("PATH");

  std::string checkpoint_message;
  auto* c_checkpoint = app.add_subcommand("checkpoint", "Freeze the workspace's current state");
  c_checkpoint->add_option("-m,--message", checkpoint_message, "What this state is")
      ->type_name("MSG");

  bool checkpoints_json = false;
  auto* c_checkpoints = app.add_subcommand("checkpoints", "List the workspace's checkpoints");
  c_checkpoints->add_flag("--json", checkpoints_json, "Machine-readable output");
  size_t checkpoints_keep = 0;
  auto* keep_opt =
      c_checkpoints
          ->add_option("--keep", checkpoints_keep, "First delete all but the newest N checkpoints")
          ->type_name("N");

  unsigned restore_id = 0;
  auto* c_restore = app.add_subcommand(
      "restore", "Bring back checkpoint N (the current state is checkpointed first)");
  c_restore->add_option("checkpoint", restore_id, "The checkpoint's number")
      ->required()
      ->type_name("N");

  RunOptions run;
  auto* c_run = app.add_subcommand(
      "run", "Run the agent confined: the project's path is its view, the rest read-only");
  auto* c_shell =
      app.add_subcommand("shell", "An interactive shell in the same confinement as 'ws run'");
  for (auto* c : {c_run, c_shell}) {
    c->add_option("--writable", run.writable,
                  "Keep PATH writable inside (repeatable; never the project, its .git, the state, "
                  "or a directory above them)")
        ->type_name("PATH")
        ->option_text("PATH")
        ->allow_extra_args(false); // one PATH each: `--writable ~/.npm echo hi` runs echo
    c->add_option("--read", run.read, "Also show PATH inside, read-only (repeatable)")
        ->type_name("PATH")
        ->option_text("PATH")
        ->allow_extra_args(false);
    c->add_option("--env", run.env,
                  "Pass the variable NAME (or set NAME=VALUE) inside (repeatable; the "
                  "environment is otherwise an allowlist)")
        ->type_name("NAME[=VALUE]")
        ->option_text("NAME[=VALUE]")
        ->allow_extra_args(false);
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
        ->type_name("PROFILE");
    c->add_flag("--no-confine", run.no_confine,
                "Run UNCONFINED in the view (the agent can write anywhere you can)");
    // -w, -C and -v work in any position before the agent's command (they fall through
    // to the top-level options).
    c->fallthrough();
  }
  // Everything from the agent's name on is the agent's, options included: split off before
  // parsing (split_trailing_command), which this marks ws run for.
  c_run->prefix_command();
  c_shell->footer("An interactive $SHELL in the sandbox of ws run; for one COMMAND: ws run "
                  "[OPTIONS] -- COMMAND [ARGS...]");
  c_run->footer(
      "COMMAND [ARGS...]: the agent and its arguments, from the first word that is "
      "not an option of ws run on, or after --: ws run --writable ~/.cache/pip -- "
      "./agent --fast. --writable, --read and --env take one value each (repeat "
      "them). ws run [OPTIONS] PROFILE -- ARGS...: the profile's agent with ARGS (ws profile "
      "list). The sandbox and its threat model: docs/run.md.");

  bool doctor_json = false;
  auto* c_doctor = app.add_subcommand(
      "doctor", "Check what ws needs on this machine (FUSE, namespaces, bubblewrap, disk) and "
                "print the fix for anything missing");
  c_doctor->add_flag("--json", doctor_json, "Machine-readable output");
  auto* c_version =
      app.add_subcommand("version", "Print the version, the commit and what this machine offers");
  std::vector<std::string> help_topic;
  auto* c_help = app.add_subcommand("help", "Show the help of a command");
  c_help->add_option("command", help_topic, "The command (and its subcommand: help profile diff)")
      ->type_name("COMMAND");

  ProfileOptions profile;
  auto* c_profile = app.add_subcommand(
      "profile", "Agent profiles: list, show, and the config layer's changes (diff, reset)");
  c_profile->require_subcommand(1);
  c_profile->add_subcommand("list", "List the profiles: commands, config directories, hosts");
  c_profile->add_subcommand("show", "Everything a profile sets, and where its layer lives")
      ->add_option("name", profile.name, "The profile")
      ->type_name("PROFILE")
      ->required();
  auto* c_profile_diff = c_profile->add_subcommand(
      "diff", "What the agent changed in its config layer, with verdicts (hooks, MCP servers...)");
  c_profile_diff->add_option("name", profile.name, "The profile")->type_name("PROFILE")->required();
  c_profile_diff->add_flag("--json", profile.json, "Machine-readable output");
  c_profile_diff->add_flag("--all", profile.all,
                           "Also list the changes with no verdict (logins, transcripts...)");
  auto* c_profile_reset = c_profile->add_subcommand(
      "reset", "Throw away the layer's changes (all, or at or below PATH); undoable");
  c_profile_reset->add_option("name", profile.name, "The profile")
      ->type_name("PROFILE")
      ->required();
  c_profile_reset->add_option("path", profile.paths, "Only at or below these paths")
      ->type_name("PATH");
  c_profile->add_subcommand("umount", "Unmount the config layers (kept mounted between sessions)")
      ->add_option("name", profile.name, "The profile (default: every profile)")
      ->type_name("PROFILE");

  DaemonArgs daemon;
  auto* c_daemon = app.add_subcommand("__daemon", "")->group(""); // internal: started by 'ws mount'
  c_daemon->add_option("--workspace-dir", daemon.workspace_dir)->required();
  c_daemon->add_option("--lower", daemon.lower)->required();
  c_daemon->add_option("--mountpoint", daemon.mountpoint)->required();
  c_daemon->add_option("--ready-fd", daemon.ready_fd);
  c_daemon->add_flag("--foreground", daemon.foreground);
  c_daemon->add_flag("--debug", daemon.debug);
  // internal: the man pages and completions, made from this very definition at build time
  std::string man_dir, complete_what, complete_file;
  auto* c_man = app.add_subcommand("__man", "")->group("");
  c_man->add_option("dir", man_dir)->required();
  auto* c_complete = app.add_subcommand("__complete", "")->group("");
  c_complete->add_option("what", complete_what)->required(); // bash, zsh, fish, workspaces
  c_complete->add_option("file", complete_file);             // else stdout

  for (CLI::App* sub : app.get_subcommands({})) {
    if (!sub->get_group().empty()) {
      sub->group("Commands");
    }
  }

  // `ws run [OPTIONS] [--] COMMAND...`: the agent's command is the agent's, verbatim, options
  // included (CLI11 would hand the words it does not know to the top level); `ws run [OPTIONS]
  // PROFILE -- ARGS...` names a profile, the agent's own arguments after "--".
  std::vector<std::string> args(argv + 1, argv + argc);
  TrailingCommand agent_command = split_trailing_command(app, args);
  std::reverse(args.begin(), args.end()); // CLI11 takes a vector in reverse order
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return report_usage_error(app, e);
  }
  if (*c_run && agent_command.words.empty() &&
      agent_command.profile.empty()) { // ('ws shell' is the interactive one)
    return report_usage_error(app, CLI::RequiredError("COMMAND"));
  }

  if (*c_daemon) {
    return run_daemon(daemon);
  }
  setup_cli_logging(verbosity);
  // Commands that need no repository.
  if (app.get_subcommands().empty()) {
    std::printf("%s", app.help().c_str());
    return 0;
  }
  if (*c_version) {
    std::printf("%s", version_text().c_str());
    return 0;
  }
  if (*c_doctor) {
    return cmd_doctor(doctor_json);
  }
  if (*c_help) {
    return print_command_help(app, help_topic);
  }
  if (*c_man) {
    return write_man_pages(describe_cli(app), man_dir);
  }
  if (*c_complete) {
    if (complete_what == "workspaces") {
      return print_workspace_names(dir, workspace);
    }
    if (complete_what == "profiles") {
      return print_profile_names();
    }
    return write_completion(describe_cli(app), complete_what, complete_file);
  }
  if (*c_profile) {
    profile.action = c_profile->get_subcommands().front()->get_name();
    return cmd_profile(profile);
  }
  if (*c_list && list_all) {
    std::optional<Context> here;
    try {
      here = make_context(dir, workspace);
    } catch (const std::exception&) {
      // not in a repository: no workspace is current
    }
    return cmd_list_all(here, list_json);
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
    return cmd_list(ctx, list_json);
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
  if (*c_sync) {
    sync.markers = sync_conflicts == "markers";
    return cmd_sync(ctx, sync);
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
      run.command = std::move(agent_command.words);
      // `ws run codex -- exec "..."`: a profile by name, the agent's own arguments after --.
      if (!agent_command.profile.empty()) {
        if (!run.profile.empty()) {
          throw Error("ws run: a profile by name (" + agent_command.profile +
                          ") and --profile=" + run.profile,
                      "name one: ws run [OPTIONS] PROFILE -- ARGS, or ws run --profile=NAME -- "
                      "COMMAND");
        }
        run.profile = agent_command.profile;
        run.profile_command = true;
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
