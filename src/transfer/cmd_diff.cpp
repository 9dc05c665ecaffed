// ws diff: what would transfer, as a git patch; what would not, with reasons.
#include "src/cli/commands.hpp"
#include "src/cli/error.hpp"
#include "src/cli/pager.hpp"
#include "src/cli/progress.hpp"
#include "src/cli/text.hpp"
#include "src/transfer/diff_result.hpp"
#include "src/transfer/freed_memory.hpp"
#include "src/transfer/patch_update.hpp"
#include "src/transfer/reviewed_patches.hpp"
#include "src/transfer/transfer_plan.hpp"
#include "src/transfer/transfer_report.hpp"
#include "src/workspace/agent_git_state.hpp"

#include <spdlog/spdlog.h>

#include <unistd.h>

#include <cstdio>

namespace ws {

namespace {

std::vector<std::string> relative_all(const Context& ctx, const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const auto& a : args) {
    out.push_back(ctx.repo_relative(a));
  }
  return out;
}

std::string json_output(const Workspace& w, const StateSource& source,
                        const std::vector<PlannedChange>& plan, const gitbridge::Patch& patch) {
  std::string out = "{\n  \"id\": \"" + patch.id + "\",\n  \"workspace\": " + json_string(w.name);
  if (source.checkpoint) {
    out += ",\n  \"checkpoint\": " + std::to_string(*source.checkpoint);
  }
  out += ",\n  \"changes\": [" + plan_json_entries(plan, "    ") + (plan.empty() ? "" : "\n  ");
  out += "],\n  \"files\": [";
  bool first = true;
  for (const auto& f : patch.files) {
    out += first ? "\n" : ",\n";
    first = false;
    out +=
        "    {\"status\": \"" + std::string(1, f.status) + "\", \"path\": " + json_string(f.path);
    if (f.old_path != f.path) {
      out += ", \"from\": " + json_string(f.old_path);
    }
    out += ", \"added\": " + std::to_string(f.added) +
           ", \"deleted\": " + std::to_string(f.deleted) +
           ", \"binary\": " + (f.binary ? "true" : "false") + "}";
  }
  out += std::string(patch.files.empty() ? "" : "\n  ") + "]\n}\n";
  return out;
}

std::string name_status(const gitbridge::Patch& patch) {
  std::string out;
  for (const auto& f : patch.files) {
    out += f.status;
    if (f.status == 'R') {
      out += "\t" + quote_path(f.old_path);
    }
    out += "\t" + quote_path(f.path) + "\n";
  }
  return out;
}

} // namespace

DiffResult compute_diff(const Context& ctx, const Workspace& w,
                        const std::vector<std::string>& paths,
                        const std::vector<std::string>& include, std::optional<unsigned> checkpoint,
                        const gitbridge::PatchParts& parts, bool pairs_needed, bool keep_manifest) {
  if (!w.exists()) {
    throw Error("no workspace '" + w.name + "' for " + w.repo.string(), "create it with 'ws new'");
  }
  DiffResult r{checkpoint ? checkpoint_state(w, *checkpoint) : live_state(w), {}, {}, {}, {}, {}};
  PlanRequest request{relative_all(ctx, paths), relative_all(ctx, include), std::nullopt, true};
  // The patch a `ws diff` of this state built (the same options), brought up to date with
  // what changed since: only the changed files are read (patch_update.hpp).
  const std::string what = std::string(parts.text ? "text" : "") + (parts.stat ? " stat" : "");
  KeptPatchRequest kept_request{&request.paths, &request.include, what, parts.stat};
  PlanValidity valid;
  if (!pairs_needed && !checkpoint && parts.text) {
    PlanRequest plain = request;
    plain.keep_content = false;
    plain.validity = &valid;
    r.plan = plan_transfer(w, r.source, plain);
    if (std::optional<KeptPatch> kept = kept_patch(w, r.source, valid, r.plan, kept_request)) {
      spdlog::debug("patch cache: {}",
                    kept->text_changed || kept->manifest_changed
                        ? "updated for " + std::to_string(kept->reread) + " files"
                        : std::string("the patch of now"));
      r.patch = std::move(kept->patch);
      r.text = std::move(kept->text);
      keep_patch(r.source, valid, kept_request, r.patch, kept->manifest_changed, kept->text_changed,
                 &r.text);
      return r;
    }
    valid = {};
  }
  const bool keep = !checkpoint && (!pairs_needed || keep_manifest);
  request.validity = keep ? &valid : nullptr;
  r.plan = plan_transfer(w, r.source, request);
  r.pairs = file_pairs(w, r.source, r.plan, &r.base_exact);
  r.patch = gitbridge::build_patch(r.pairs, parts);
  // The id and manifest apart from the text: `ws apply --check` reads them alone
  // (kept_check.hpp).
  keep_patch(r.source, valid, kept_request, r.patch, true, !pairs_needed && parts.text);
  return r;
}

int cmd_diff(const Context& ctx, const DiffOptions& o) {
  keep_freed_memory();
  if (o.commits) {
    return cmd_diff_commits(ctx, o);
  }
  Workspace w = ctx.ws();
  // Thousands of changes take seconds to read: say so on a terminal (progress.hpp).
  Progress progress("diff");
  progress.step("reading the changes");
  DiffResult r = compute_diff(ctx, w, o.paths, o.include, o.checkpoint, {.stat = o.stat}, false);
  progress.finish();
  const auto& patch = r.patch;
  bool transfers = !patch.files.empty();
  int code = o.exit_code && transfers ? 1 : 0;
  if (transfers) {
    // Every id ws prints is one `ws apply --expect` accepts, and only those.
    record_reviewed(w, patch);
  }

  if (o.json) {
    std::fputs(json_output(w, r.source, r.plan, patch).c_str(), stdout);
    return code;
  }
  bool tty = ::isatty(STDOUT_FILENO);
  bool color = use_color(o.color, STDOUT_FILENO);
  std::string prefix = o.withheld ? "" : "# ";
  std::string report = verdict_report(r.plan, color, prefix, !o.verbose);
  // The agent's git: one line (its files with --verbose), never a list of object files.
  std::string git_lines;
  if (!r.source.checkpoint) {
    for (const std::string& line : agent_git_lines(w, agent_git_summary(w))) {
      git_lines += prefix + line + "\n";
    }
  }
  if (o.verbose) {
    for (const auto& c :
         fuse::compute_changes(w.repo, r.source.state, fuse::ChangeScope::AgentGit)) {
      git_lines += prefix + "  " + std::string(1, static_cast<char>(c.kind)) + "  " +
                   display_path(c) + "  (the agent's git; never transferred)\n";
    }
  }
  report = git_lines + report;
  if (o.withheld) {
    Output out(false);
    out.write(report);
    return code;
  }
  Output out(!o.no_pager && (tty || o.color == "always") && !o.name_status);
  if (o.name_status) {
    out.write(name_status(patch));
  } else if (o.stat) {
    out.write(color ? gitbridge::colorize_stat(patch.stat) : patch.stat);
  } else if (transfers) {
    std::string head = "# ws patch " + patch.id + " (workspace '" + w.name + "'";
    if (r.source.checkpoint) {
      head += ", checkpoint " + std::to_string(*r.source.checkpoint);
    }
    head += "): land exactly this with 'ws apply --expect " + patch.id + "'\n";
    out.write(color ? "\033[33m" + head + "\033[m" : head);
    // On a terminal (a pager's too) the content is shown, not obeyed: its controls escaped,
    // so no line of it can move the cursor, erase, or print at column 0 over its own '+'.
    // Every report line below starts at column 0 with '#', which no patch line can: the
    // report cannot be imitated. In a pipe the patch stays byte-exact.
    // (In a pipe the text is written as it is: not copied first, it is tens of MB, and when
    // it was kept, in pieces of the kept text and the files read again.)
    const bool in_pieces = patch.text.empty() && r.text.pieces.size > 0;
    if (!tty && !color) {
      if (in_pieces) {
        for (std::string_view part : r.text.pieces.parts) {
          std::fwrite(part.data(), 1, part.size(), out.file());
        }
      } else {
        out.write(patch.text);
      }
    } else {
      const std::string whole = in_pieces ? r.text.pieces.joined() : std::string();
      const std::string& plain = in_pieces ? whole : patch.text;
      std::string shown = tty ? visible_text(plain, true) : std::string();
      const std::string& text = tty ? shown : plain;
      out.write(color ? gitbridge::colorize_patch(text) : text);
    }
  }
  if (!report.empty()) {
    // On a terminal it follows the patch; in a pipe it goes to stderr, so the patch stays a
    // patch and the person still sees what was left out.
    if (tty) {
      out.write((transfers ? "\n" : "") + report);
    } else {
      std::fflush(out.file());
      std::fputs(report.c_str(), stderr);
    }
  }
  if (o.stat || o.name_status) {
    std::string id = "# ws patch " + patch.id + "\n";
    if (tty) {
      out.write(id);
    }
  }
  return code;
}

} // namespace ws
