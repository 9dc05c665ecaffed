#pragma once

// The lines that list one of the agent's commits' changes in `ws log --commits` and
// `ws diff --commits`, folded as every other report folds (filters/fold.hpp): a commit that
// holds an `npm install` is a few lines, not 2,500.

#include "src/transfer/agent_commits.hpp"

#include <string>
#include <vector>

namespace ws {

/// Which changes of a commit a list names.
enum class CommitLines {
  All,      ///< every change (ws log --commits)
  Verdicts, ///< those with a verdict: flagged, withheld, included, blocked (ws diff --commits)
  LeftOut,  ///< those that do not land (ws apply --commits)
};

/// One line per change (`M  app.py`, `A  tool.sh  (WITHHELD: ...)`, a rename's both sides;
/// without the status letter where `letters` is false), escaped for a terminal, in the
/// commit's order. With `fold`: withheld and blocked paths of one verdict and reason fold by
/// directory (`A  node_modules/  2,510 files  (WITHHELD: under node_modules/)`), and above a
/// screen of changes (k_report_fold_above) a top directory's plain new files are one line
/// (`A  gen/  200,000 new files`); a fold's line stands where its first path would.
std::vector<std::string> commit_change_lines(const PlannedCommit& commit, CommitLines which,
                                             bool fold, bool letters = true);

} // namespace ws
