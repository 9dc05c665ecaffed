// Folded change lists of the agent's commits (commit_report.hpp).
#include "src/transfer/commit_report.hpp"

#include "filters/fold.hpp"
#include "src/cli/text.hpp"
#include "src/transfer/transfer_report.hpp"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <unordered_map>

namespace ws {

namespace {

std::string verdict_note(const PlannedCommitChange& c, const std::string& reason) {
  if (c.decision.verdict == filters::Verdict::Transfer) {
    return "";
  }
  return std::string("  (") + filters::verdict_name(c.decision.verdict) +
         (c.included ? ", included" : "") + ": " + reason + ")";
}

bool plain_new(const PlannedCommitChange& c) {
  return c.change.status == 'A' && c.decision.verdict == filters::Verdict::Transfer;
}

/// Withheld or blocked, not taken, not a rename (its line names both sides).
bool held(const PlannedCommitChange& c) {
  return !c.transfers() && c.change.status != 'R' &&
         (c.decision.verdict == filters::Verdict::Withheld ||
          c.decision.verdict == filters::Verdict::Blocked);
}

} // namespace

std::vector<std::string> commit_change_lines(const PlannedCommit& commit, CommitLines which,
                                             bool fold, bool letters) {
  const auto& changes = commit.changes;
  std::vector<std::string> reasons(changes.size());
  for (size_t i = 0; i < changes.size(); ++i) {
    if (changes[i].decision.verdict != filters::Verdict::Transfer) {
      reasons[i] = shown_reason(changes[i].decision);
    }
  }
  // Held paths, by directory: fold_directories wants them in path order.
  std::vector<size_t> fold_of(changes.size(), SIZE_MAX);
  std::vector<filters::FoldedDir> dirs;
  std::vector<std::string_view> new_dir(changes.size());
  if (fold) {
    std::vector<size_t> order(changes.size());
    for (size_t i = 0; i < order.size(); ++i) {
      order[i] = i;
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return changes[a].change.path < changes[b].change.path;
    });
    std::vector<filters::FoldItem> items;
    items.reserve(order.size());
    for (size_t i : order) {
      items.emplace_back(changes[i].change.path, static_cast<int>(changes[i].decision.verdict),
                         held(changes[i]), reasons[i], changes[i].change.status);
    }
    dirs = filters::fold_directories(items, {}, 2, filters::k_direct_fold_min);
    std::vector<size_t> member = filters::fold_membership(dirs, items.size());
    for (size_t k = 0; k < order.size(); ++k) {
      fold_of[order[k]] = member[k];
    }
    if (changes.size() > k_report_fold_above) {
      std::vector<std::string_view> paths;
      std::vector<bool> plain;
      for (const auto& c : changes) {
        paths.push_back(c.change.path);
        plain.push_back(plain_new(c));
      }
      new_dir = filters::fold_new_files(paths, plain);
    }
  }
  std::unordered_map<std::string_view, size_t> new_count;
  for (std::string_view d : new_dir) {
    if (!d.empty()) {
      ++new_count[d];
    }
  }
  auto letter = [letters](char l) { return letters ? std::string(1, l) + "  " : std::string(); };
  std::vector<std::string> lines;
  std::vector<bool> dir_shown(dirs.size(), false);
  for (size_t i = 0; i < changes.size(); ++i) {
    const PlannedCommitChange& c = changes[i];
    if ((which == CommitLines::Verdicts && c.decision.verdict == filters::Verdict::Transfer) ||
        (which == CommitLines::LeftOut && c.transfers())) {
      continue;
    }
    if (fold_of[i] != SIZE_MAX) {
      if (!dir_shown[fold_of[i]]) {
        dir_shown[fold_of[i]] = true;
        const filters::FoldedDir& d = dirs[fold_of[i]];
        lines.push_back(letter(d.kind ? d.kind : '*') + quote_path(d.shown()) + "  " +
                        filters::fold_count(d) + verdict_note(c, filters::fold_reason(d)));
      }
      continue;
    }
    if (!new_dir[i].empty()) {
      auto it = new_count.find(new_dir[i]);
      if (it != new_count.end()) {
        lines.push_back(letter('A') + quote_path(new_dir[i]) + "/  " +
                        filters::with_commas(it->second) + " new files");
        new_count.erase(it); // shown
      }
      continue;
    }
    std::string path = c.change.status == 'R'
                           ? quote_path(c.change.old_path) + " -> " + quote_path(c.change.path)
                           : quote_path(c.change.path);
    lines.push_back(letter(c.change.status) + path + verdict_note(c, reasons[i]));
  }
  return lines;
}

} // namespace ws
