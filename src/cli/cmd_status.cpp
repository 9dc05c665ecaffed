// ws status: what changed in the view, like `git status --short`, with the transfer verdict
// of every path that would not simply transfer.
#include "filters/fold.hpp"
#include "src/cli/commands.hpp"
#include "src/cli/error.hpp"
#include "src/cli/pager.hpp"
#include "src/cli/progress.hpp"
#include "src/cli/text.hpp"
#include "src/daemon/daemon.hpp"
#include "src/transfer/freed_memory.hpp"
#include "src/transfer/transfer_plan.hpp"
#include "src/transfer/transfer_report.hpp"
#include "src/workspace/agent_git_state.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
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

constexpr size_t k_fold_above = k_report_fold_above;

/// A new file that simply transfers: the only kind of change a plain-new-file line stands for.
bool plain_add(const PlannedChange& p) {
  return p.change.kind == fuse::ChangeKind::Added &&
         p.decision.verdict == filters::Verdict::Transfer;
}

std::string verdict_note(filters::Verdict v, const std::string& reason, bool color) {
  const char* colour = v == filters::Verdict::Flagged ? "\033[33m" : "\033[31m";
  return std::string("  ") + (color ? colour : "") + "(" + filters::verdict_name(v) + ": " +
         reason + ")" + (color ? "\033[m" : "");
}

/// Where each change's line folds (filters/fold.hpp): withheld and blocked directories, and
/// the files directly in a directory of one verdict and reason.
PlanFolds held_folds(const std::vector<PlannedChange>& plan,
                     const std::vector<std::string>& reasons) {
  std::vector<int> group(plan.size());
  std::vector<bool> held(plan.size());
  for (size_t i = 0; i < plan.size(); ++i) {
    const auto& d = plan[i].decision;
    group[i] = static_cast<int>(d.verdict);
    held[i] = ((d.verdict == filters::Verdict::Withheld && !plan[i].included) ||
               d.verdict == filters::Verdict::Blocked) &&
              plan[i].change.kind != fuse::ChangeKind::Renamed;
  }
  return fold_plan(plan, reasons, group, held);
}
/// `ws status --verbose`: the files of the agent's git that changed since it was made.
void print_agent_git_files(const Workspace& w) {
  for (const auto& c : fuse::compute_changes(w.repo, w.layout, fuse::ChangeScope::AgentGit)) {
    std::printf("%c %s  (the agent's git)\n", static_cast<char>(c.kind), display_path(c).c_str());
  }
}
} // namespace

int cmd_status(const Context& ctx, bool json, bool verbose) {
  keep_freed_memory();
  Workspace w = ctx.ws();
  if (!w.exists()) {
    throw Error("no workspace '" + w.name + "' for " + w.repo.string(), "create it with 'ws new'");
  }
  warn_if_other_build(w); // what the person looks at is served by another ws
  // Thousands of changes take seconds to judge: say so on a terminal (progress.hpp).
  Progress progress("status");
  progress.step("reading the changes");
  std::vector<PlannedChange> plan =
      plan_transfer(w, live_state(w), {}, [&](size_t done, size_t total) {
        if (done == 0) {
          progress.step("judging the changes", total);
        }
        progress.set(done);
      });
  progress.finish();
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
  std::vector<std::string> reasons(plan.size());
  for (size_t i = 0; i < plan.size(); ++i) {
    if (plan[i].decision.verdict != filters::Verdict::Transfer) {
      reasons[i] = shown_reason(plan[i].decision);
    }
  }
  // Withheld and blocked directories fold always; plain new files above a screen's worth.
  PlanFolds folds;
  std::vector<std::string_view> new_fold;
  if (!verbose) {
    folds = held_folds(plan, reasons);
    if (plan.size() > k_fold_above) {
      std::vector<std::string_view> paths;
      std::vector<bool> plain;
      paths.reserve(plan.size());
      for (const auto& p : plan) {
        paths.push_back(p.change.path);
        plain.push_back(plain_add(p));
      }
      new_fold = filters::fold_new_files(paths, plain);
    }
  }
  const std::vector<filters::FoldedDir>& dirs = folds.dirs;
  const std::vector<size_t>& held_fold = folds.fold_of;
  std::vector<bool> dir_shown(dirs.size(), false);
  size_t folded_files = 0, folded_dirs = 0, held_files = 0;
  std::unordered_map<std::string_view, size_t> fold_size; // new files per folded directory
  for (std::string_view d : new_fold) {
    if (!d.empty()) {
      ++fold_size[d];
    }
  }
  for (size_t i = 0; i < plan.size(); ++i) {
    const PlannedChange& p = plan[i];
    if (!held_fold.empty() && held_fold[i] != SIZE_MAX) {
      // One line where the directory's first path was.
      const filters::FoldedDir& d = dirs[held_fold[i]];
      if (!dir_shown[held_fold[i]]) {
        dir_shown[held_fold[i]] = true;
        held_files += d.files();
        std::printf("%c %s  %s%s\n", d.kind ? d.kind : '*', quote_path(d.shown()).c_str(),
                    filters::fold_count(d).c_str(),
                    verdict_note(p.decision.verdict, filters::fold_reason(d), color).c_str());
      }
      continue;
    }
    if (!new_fold.empty() && !new_fold[i].empty()) {
      // One line where the directory's first new file was; its other changes keep theirs.
      auto it = fold_size.find(new_fold[i]);
      if (it != fold_size.end()) {
        std::printf("A %s/  (%zu new files)\n", quote_path(new_fold[i]).c_str(), it->second);
        folded_files += it->second;
        ++folded_dirs;
        fold_size.erase(it); // printed
      }
      continue;
    }
    std::string line = std::string(1, status_letter(p.change)) + " " + display_path(p.change);
    if (p.decision.verdict != filters::Verdict::Transfer) {
      line += verdict_note(p.decision.verdict, reasons[i], color);
    }
    std::printf("%s\n", line.c_str());
  }
  if (folded_dirs > 0) {
    std::printf("(%zu new files, all transferring, folded into %zu director%s line%s above: "
                "'ws status --verbose' lists each)\n",
                folded_files, folded_dirs, folded_dirs == 1 ? "y" : "ies",
                folded_dirs == 1 ? "" : "s");
  } else if (held_files > 0 && plan.size() > k_fold_above) {
    std::printf("('ws status --verbose' lists each path of the folded directories)\n");
  }
  return 0;
}

} // namespace ws
