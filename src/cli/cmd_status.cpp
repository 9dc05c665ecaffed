// ws status: what changed in the view, like `git status --short`, with the transfer verdict
// of every path that would not simply transfer.
#include "src/cli/commands.hpp"
#include "src/cli/error.hpp"
#include "src/cli/pager.hpp"
#include "src/cli/text.hpp"
#include "src/transfer/transfer_plan.hpp"
#include "src/transfer/transfer_report.hpp"
#include "src/workspace/agent_git_state.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ws {

namespace {
std::string mode_string(mode_t mode) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%06o", static_cast<unsigned>(mode));
  return buf;
}

/// Above this many changes a person's report folds (a screen, about): 200,000 new files
/// from a generator or a vendored tree would bury the few lines that matter.
constexpr size_t k_fold_above = 100;

/// A new file that simply transfers: the only kind of change a folded line stands for.
bool plain_add(const PlannedChange& p) {
  return p.change.kind == fuse::ChangeKind::Added &&
         p.decision.verdict == filters::Verdict::Transfer;
}

/// For each change, the directory its line folds into ("" for its own line): the highest
/// directory holding at least two plain new files, as git folds an untracked directory.
/// Only plain new files fold; every other change below keeps its own line, so nothing with
/// a verdict, no edit and no deletion is ever folded away.
std::vector<std::string_view> fold_dirs(const std::vector<PlannedChange>& plan) {
  std::unordered_map<std::string_view, size_t> plain_below;
  for (const auto& p : plan) {
    std::string_view path = p.change.path;
    size_t slash = path.find('/');
    if (plain_add(p) && slash != std::string_view::npos) {
      ++plain_below[path.substr(0, slash)];
    }
  }
  std::vector<std::string_view> out(plan.size());
  for (size_t i = 0; i < plan.size(); ++i) {
    std::string_view path = plan[i].change.path;
    size_t slash = path.find('/');
    if (plain_add(plan[i]) && slash != std::string_view::npos &&
        plain_below[path.substr(0, slash)] >= 2) {
      out[i] = path.substr(0, slash);
    }
  }
  return out;
}
/// `ws status --verbose`: the files of the agent's git that changed since it was made.
void print_agent_git_files(const Workspace& w) {
  for (const auto& c : fuse::compute_changes(w.repo, w.layout, fuse::ChangeScope::AgentGit)) {
    std::printf("%c %s  (the agent's git)\n", static_cast<char>(c.kind), display_path(c).c_str());
  }
}
} // namespace

int cmd_status(const Context& ctx, bool json, bool verbose) {
  Workspace w = ctx.ws();
  if (!w.exists()) {
    throw Error("no workspace '" + w.name + "' for " + w.repo.string(), "create it with 'ws new'");
  }
  std::vector<PlannedChange> plan = plan_transfer(w, live_state(w), {});
  if (json) {
    std::printf("[");
    bool first = true;
    for (const auto& p : plan) {
      const fuse::Change& c = p.change;
      std::printf("%s\n  {\"status\": \"%c\", \"path\": %s", first ? "" : ",",
                  static_cast<char>(c.kind), json_string(c.path).c_str());
      if (!c.from.empty()) {
        std::printf(", \"from\": %s", json_string(c.from).c_str());
      }
      if (c.kind != fuse::ChangeKind::Deleted) {
        std::printf(", \"mode\": \"%s\", \"size\": %llu", mode_string(c.mode).c_str(),
                    static_cast<unsigned long long>(c.size));
      }
      if (c.base) {
        std::printf(", \"base_mode\": \"%s\"", mode_string(c.base->mode).c_str());
      }
      std::string verdict = filters::verdict_name(p.decision.verdict);
      for (auto& ch : verdict) {
        ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      }
      std::printf(", \"verdict\": \"%s\"", verdict.c_str());
      if (!p.decision.reason.empty()) {
        std::printf(", \"reason\": %s", json_string(p.decision.reason).c_str());
      }
      std::printf("}");
      first = false;
    }
    std::printf("%s]\n", first ? "" : "\n");
    return 0;
  }
  bool color = use_color("auto", STDOUT_FILENO);
  // The agent's git in one line (its files with --verbose), and whether the person moved on.
  for (const std::string& line : agent_git_lines(w, agent_git_summary(w))) {
    std::printf("%s\n", line.c_str());
  }
  if (verbose) {
    print_agent_git_files(w);
  }
  std::vector<std::string_view> folds;
  if (!verbose && plan.size() > k_fold_above) {
    folds = fold_dirs(plan);
  }
  size_t folded_files = 0, folded_dirs = 0;
  std::unordered_map<std::string_view, size_t> fold_size; // new files per folded directory
  for (std::string_view d : folds) {
    if (!d.empty()) {
      ++fold_size[d];
    }
  }
  for (size_t i = 0; i < plan.size(); ++i) {
    const PlannedChange& p = plan[i];
    if (!folds.empty() && !folds[i].empty()) {
      // One line where the directory's first new file was; its other changes keep theirs.
      auto it = fold_size.find(folds[i]);
      if (it != fold_size.end()) {
        std::printf("A %s/  (%zu new files)\n", quote_path(folds[i]).c_str(), it->second);
        folded_files += it->second;
        ++folded_dirs;
        fold_size.erase(it); // printed
      }
      continue;
    }
    std::string line = std::string(1, status_letter(p.change)) + " " + display_path(p.change);
    if (p.decision.verdict != filters::Verdict::Transfer) {
      const char* colour =
          p.decision.verdict == filters::Verdict::Flagged ? "\033[33m" : "\033[31m";
      line += std::string("  ") + (color ? colour : "") + "(" +
              filters::verdict_name(p.decision.verdict) + ": " + shown_reason(p.decision) + ")" +
              (color ? "\033[m" : "");
    }
    std::printf("%s\n", line.c_str());
  }
  if (folded_dirs > 0) {
    std::printf("(%zu new files, all transferring, folded into %zu director%s line%s above: "
                "'ws status --verbose' lists each)\n",
                folded_files, folded_dirs, folded_dirs == 1 ? "y" : "ies",
                folded_dirs == 1 ? "" : "s");
  }
  return 0;
}

} // namespace ws
