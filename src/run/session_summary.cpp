// The one-screen summary at the end of `ws run`.
#include "src/run/session_summary.hpp"

#include "filters/fold.hpp"
#include "src/transfer/transfer_plan.hpp"
#include "src/transfer/transfer_report.hpp"
#include "src/workspace/agent_git_state.hpp"

#include <cstdio>
#include <initializer_list>
#include <optional>
#include <vector>

namespace ws {

namespace {

/// The first of `forms` (longest first) that fits a summary's width, else the last cut in the
/// middle: a workspace name of 64 characters must not wrap the screen.
std::string fitted(std::initializer_list<std::string> forms) {
  for (const std::string& f : forms) {
    if (filters::text_width(f) <= k_summary_width) {
      return f;
    }
  }
  return filters::fit_middle(*(forms.end() - 1), k_summary_width);
}

/// Where a workspace's name would not leave room for a command: cut, the command would be
/// wrong; the person gave the name to `ws run` and gives it again.
constexpr const char* k_with_w = " (ws status with your -w)";

std::string plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

} // namespace

size_t print_session_summary(const Workspace& w, const std::string& session, int status,
                             const Checkpoint* cp) {
  std::optional<ChangedSince> since;
  if (cp) {
    try {
      since = changed_since_previous(w, *cp);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ws: warning: cannot compare the checkpoint with the one before: %s\n",
                   e.what());
    }
  }
  PlanRequest request;
  if (since) {
    request.only = since->paths;
  }
  std::vector<PlannedChange> plan = plan_transfer(w, live_state(w), request);
  size_t total = since ? cp->changes : plan.size();
  std::string scope = since && since->previous
                          ? " since checkpoint " + std::to_string(since->previous)
                          : std::string();
  size_t transfers = 0, held = 0;
  for (const auto& p : plan) {
    (p.transfers() ? transfers : held) += 1;
  }
  std::string ended = "ws: session " + session + " ended (exit " + std::to_string(status) + ")";
  std::string saved = cp ? "; checkpoint " + std::to_string(cp->id) + " saved" : "";
  std::string saved_short = cp ? ", checkpoint " + std::to_string(cp->id) : "";
  std::string wflag = w.name == "default" ? "" : " -w " + w.name;
  std::string ws_name = "workspace '" + w.name + "'";

  std::vector<std::string> head{"", fitted({ended + saved, ended + saved_short})};
  for (const std::string& line : agent_git_lines(w, agent_git_summary(w))) {
    head.push_back(fitted({"ws: " + line})); // its git in one line
  }
  if (plan.empty()) {
    if (total == 0) {
      head.push_back(fitted({"ws: no changes in " + ws_name}));
    } else {
      std::string holds = plural(total, "change", "changes") + " (ws" + wflag + " status)";
      std::string some = "ws: no changes" + scope + "; ";
      head.push_back(
          fitted({some + ws_name + " holds " + holds, some + "the workspace holds " + holds,
                  some + "the workspace holds " + plural(total, "change", "changes") + k_with_w}));
    }
    for (const std::string& line : head) {
      std::fprintf(stderr, "%s\n", line.c_str());
    }
    return 0;
  }
  std::string counts =
      ": " + std::to_string(transfers) + " would transfer, " + std::to_string(held) + " not";
  std::string changed = "ws: " + plural(plan.size(), "changed path", "changed paths") + scope;
  head.push_back(fitted({changed + " in " + ws_name + counts, changed + counts}));

  std::vector<std::string> tail;
  if (total != plan.size()) {
    std::string all = plural(total, "change", "changes") + " in all (ws" + wflag + " status)";
    tail.push_back(fitted(
        {"ws: " + ws_name + " holds " + all, "ws: the workspace holds " + all,
         "ws: the workspace holds " + plural(total, "change", "changes") + " in all" + k_with_w}));
  }
  std::string ws = "ws" + wflag;
  std::string next[] = {"review: " + ws + " diff", "apply: " + ws + " apply",
                        "throw away: " + ws + " reset"};
  tail.push_back(fitted({next[0] + "    " + next[1] + "    " + next[2],
                         next[0] + "  " + next[1] + "  " + next[2],
                         next[0] + ", then " + ws + " apply (or reset)",
                         "review: ws diff, then ws apply or ws reset, each with your -w"}));

  // A screen whatever the workspace holds: the lines above and below, and the report between.
  std::vector<ReportSection> sections = verdict_sections(plan, true);
  sections.insert(sections.begin(), transfer_section(plan, true));
  size_t budget = k_summary_lines - std::min(k_summary_lines, head.size() + tail.size());
  std::string report = render_sections(sections, false, "", budget, "ws status", k_summary_width);
  for (const std::string& line : head) {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fputs(report.c_str(), stderr);
  for (const std::string& line : tail) {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  return plan.size();
}

} // namespace ws
