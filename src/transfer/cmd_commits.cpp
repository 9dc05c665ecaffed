// ws log --commits and ws diff --commits: the agent's commits, one by one, with what the
// policy leaves out of each.
#include "filters/text_lines.hpp"
#include "src/cli/commands.hpp"
#include "src/cli/error.hpp"
#include "src/cli/pager.hpp"
#include "src/cli/text.hpp"
#include "src/transfer/agent_commits.hpp"
#include "src/transfer/commit_report.hpp"
#include "src/transfer/diff_result.hpp"
#include "src/transfer/transfer_report.hpp"

#include <unistd.h>

#include <cstdio>
#include <set>

namespace ws {

namespace {

/// The message, each line indented as git log indents it; escaped for the terminal.
std::string indented(const std::string& message) {
  std::string out;
  filters::for_each_line(
      message, [&out](std::string_view line) { out += "    " + visible_text(line) + "\n"; });
  return out;
}

std::string from_line(const CommitsPlan& plan) {
  std::string where = plan.start.start_ref.empty()
                          ? std::string("a detached HEAD")
                          : gitbridge::AgentHead{plan.start.start_ref, ""}.branch();
  std::string line = visible_text(where) + "@" + gitbridge::short_id(plan.start.start);
  if (plan.from != plan.start.start) {
    line += ", landed up to its " + gitbridge::short_id(plan.from);
  }
  return line;
}

std::vector<gitbridge::FilePair> commit_pairs(const PlannedCommit& pc) {
  std::vector<gitbridge::FilePair> out;
  for (const auto& c : pc.changes) {
    if (c.transfers()) {
      out.push_back({c.change.status == 'R' ? c.change.old_path : c.change.path, c.change.path,
                     c.change.before, c.change.after});
    }
  }
  return out;
}

} // namespace

int cmd_log_commits(const Context& ctx, const LogOptions& o) {
  Workspace w = ctx.ws();
  if (!w.exists()) {
    throw Error("no workspace '" + w.name + "' for " + w.repo.string(), "create it with 'ws new'");
  }
  CommitsPlan plan = plan_commits(w, live_state(w), {});
  if (o.json) {
    std::printf("[");
    for (size_t i = plan.commits.size(); i-- > 0;) {
      const PlannedCommit& pc = plan.commits[i];
      std::printf(
          "%s\n  {\"id\": \"%s\", \"author\": %s, \"email\": %s, \"time\": %lld, "
          "\"message\": %s, \"files\": [",
          i + 1 == plan.commits.size() ? "" : ",", pc.info.id.c_str(),
          json_string(pc.info.author_name).c_str(), json_string(pc.info.author_email).c_str(),
          static_cast<long long>(pc.info.author_time), json_string(pc.info.message).c_str());
      for (size_t k = 0; k < pc.changes.size(); ++k) {
        const auto& c = pc.changes[k];
        std::string verdict = filters::verdict_name(c.decision.verdict);
        for (auto& ch : verdict) {
          ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        }
        std::printf("%s{\"status\": \"%c\", \"path\": %s, \"verdict\": \"%s\"", k ? ", " : "",
                    c.change.status, json_string(c.change.path).c_str(), verdict.c_str());
        if (c.change.status == 'R') {
          std::printf(", \"from\": %s", json_string(c.change.old_path).c_str());
        }
        if (!c.decision.reason.empty()) {
          std::printf(", \"reason\": %s", json_string(c.decision.reason).c_str());
        }
        std::printf("}");
      }
      std::printf("]}");
    }
    std::printf("%s]\n", plan.commits.empty() ? "" : "\n");
    return 0;
  }
  if (plan.commits.empty()) {
    std::printf("the agent made no commits since it started (from %s)\n", from_line(plan).c_str());
    return 0;
  }
  Output out(::isatty(STDOUT_FILENO));
  std::string text;
  for (size_t i = plan.commits.size(); i-- > 0;) {
    const PlannedCommit& pc = plan.commits[i];
    text += "commit " + pc.info.id + (pc.info.parents.size() > 1 ? "  (a merge)" : "") + "\n";
    text += "Author: " + visible_text(author_of(pc.info)) + "\n";
    text += "Date:   " + author_date(pc.info) + "\n\n";
    text += indented(pc.info.message) + "\n";
    for (const auto& line : commit_change_lines(pc, CommitLines::All, !o.verbose)) {
      text += "  " + line + "\n";
    }
    text += "\n";
  }
  text += std::to_string(plan.commits.size()) + " commit" + (plan.commits.size() == 1 ? "" : "s") +
          " from " + from_line(plan) + "; land them as commits with 'ws apply --commits'\n";
  out.write(text);
  return 0;
}

int cmd_diff_commits(const Context& ctx, const DiffOptions& o) {
  Workspace w = ctx.ws();
  if (!w.exists()) {
    throw Error("no workspace '" + w.name + "' for " + w.repo.string(), "create it with 'ws new'");
  }
  DiffResult r = compute_diff(ctx, w, o.paths, {}, o.checkpoint);
  CommitsPlan plan = plan_commits(w, r.source, {});
  bool tty = ::isatty(STDOUT_FILENO);
  bool color = use_color(o.color, STDOUT_FILENO);
  Output out(!o.no_pager && (tty || o.color == "always"));
  std::string report; // what is left out, for the terminal or stderr
  size_t n = plan.commits.size();
  for (size_t i = 0; i < n; ++i) {
    const PlannedCommit& pc = plan.commits[i];
    std::string subject = pc.info.summary();
    std::string num = "[PATCH " + std::to_string(i + 1) + "/" + std::to_string(n) + "]";
    std::string body = pc.info.message.substr(std::min(pc.info.message.size(), subject.size()));
    while (!body.empty() && body.front() == '\n') {
      body.erase(0, 1);
    }
    std::string text = "From " + pc.info.id +
                       " Mon Sep 17 00:00:00 2001\nFrom: " + author_of(pc.info) +
                       "\nDate: " + rfc2822_date(pc.info) + "\nSubject: " + num + " " + subject +
                       "\n\n" + body + (body.empty() ? "" : "\n") + "---\n";
    gitbridge::Patch patch = gitbridge::build_patch(commit_pairs(pc));
    text += patch.stat + "\n" + patch.text + "\n";
    out.write(tty ? visible_text(text, true) : text);
    for (const auto& line : commit_change_lines(pc, CommitLines::Verdicts, !o.verbose)) {
      report += "# " + num + " " + line + "\n";
    }
    if (pc.empty()) {
      report +=
          "# " + num + " " + visible_text(subject) + ": left empty (nothing of it would land)\n";
    }
  }
  // The uncommitted rest: what the commits do not hold.
  std::vector<gitbridge::FilePair> rest;
  std::vector<bool> in_rest(r.plan.size(), false);
  for (auto& rp : uncommitted_pairs(plan, r.plan, r.pairs)) {
    in_rest[rp.plan_index] = true;
    rest.push_back(std::move(rp.pair));
  }
  // The verdicts of the rest only: a path the commits hold was reported with its commit.
  std::set<std::string> in_commits = plan.paths();
  std::vector<PlannedChange> rest_plan;
  for (size_t i = 0; i < r.plan.size(); ++i) {
    const fuse::Change& c = r.plan[i].change;
    if (r.plan[i].transfers() ? in_rest[i]
                              : !in_commits.count(c.path) && !in_commits.count(c.from)) {
      rest_plan.push_back(r.plan[i]);
    }
  }
  if (!rest.empty()) {
    gitbridge::Patch patch = gitbridge::build_patch(rest);
    std::string head = "# uncommitted changes, on top of the commits:\n";
    out.write(color ? "\033[33m" + head + "\033[m" : head);
    std::string text = tty ? visible_text(patch.text, true) : patch.text;
    out.write(color ? gitbridge::colorize_patch(text) : text);
  }
  std::string verdicts = verdict_report(rest_plan, color, "# ", !o.verbose);
  if (!verdicts.empty()) {
    report += "# uncommitted:\n" + verdicts;
  }
  if (n == 0) {
    report =
        "# the agent made no commits since it started (from " + from_line(plan) + ")\n" + report;
  }
  if (plan.merge) {
    report += "# " + gitbridge::short_id(plan.merge->id) +
              " is a merge commit: 'ws apply --commits' refuses it (see 'ws apply --help')\n";
  }
  if (!report.empty()) {
    if (tty) {
      out.write("\n" + report);
    } else {
      std::fflush(out.file());
      std::fputs(report.c_str(), stderr);
    }
  }
  return 0;
}

} // namespace ws
