#pragma once

// The agent's commits as the transfer sees them (`ws log --commits`, `ws diff --commits`,
// `ws apply --commits`): each commit reachable from its HEAD and not from where it started,
// oldest first, each path with its verdict (the policy applies per commit).

#include "filters/policy.hpp"
#include "gitbridge/agent_git.hpp"
#include "gitbridge/commit_replay.hpp"
#include "src/transfer/transfer_plan.hpp"
#include "src/workspace/agent_git_state.hpp"

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ws {

struct PlannedCommitChange {
  gitbridge::CommitChange change;
  filters::Decision decision;
  bool included = false; ///< withheld, taken with --include
  bool transfers() const {
    return decision.verdict == filters::Verdict::Transfer ||
           decision.verdict == filters::Verdict::Flagged ||
           (decision.verdict == filters::Verdict::Withheld && included);
  }
};

struct PlannedCommit {
  gitbridge::CommitInfo info;
  std::vector<PlannedCommitChange> changes;
  /// Paths left out of this commit (not transferring; both sides of a rename).
  std::vector<std::string> left_out() const;
  /// Nothing of it would land.
  bool empty() const;
};

struct CommitsPlan {
  AgentGitStart start;
  std::unique_ptr<gitbridge::AgentGit> git;
  gitbridge::AgentHead head;
  std::string from; ///< where the new commits begin (agent_new_from)
  std::vector<PlannedCommit> commits;
  std::optional<gitbridge::CommitInfo> merge; ///< a merge commit among them: not replayable
  /// Every path some new commit changed (both sides of renames).
  std::set<std::string> paths() const;
};

/// The agent's new commits of `source` with their verdicts. `include`: repository-relative
/// withheld paths taken anyway (in every commit). Throws Error when the workspace has no git
/// of its own or its git cannot be read.
CommitsPlan plan_commits(const Workspace& w, const StateSource& source,
                         const std::vector<std::string>& include);

/// One change of the workspace that the commits do not hold (`--commits`' uncommitted rest).
struct RestPair {
  size_t plan_index = 0;      ///< in the plan it came from
  gitbridge::FilePair pair;   ///< before: the agent's HEAD version where the commits touch it
  bool after_commits = false; ///< the commits change this path: it lands on top of them
};
/// The uncommitted rest of `plan` (with its transferring `pairs`, as compute_diff made them):
/// where a path is in the commits, what is left is the change from the agent's HEAD version;
/// paths the commits hold entirely are not in it.
std::vector<RestPair> uncommitted_pairs(const CommitsPlan& commits,
                                        const std::vector<PlannedChange>& plan,
                                        const std::vector<gitbridge::FilePair>& pairs);

/// "Agent <agent@example.com>".
std::string author_of(const gitbridge::CommitInfo& c);
/// "2026-11-25 19:57:38 +0000", the author's date in the author's zone.
std::string author_date(const gitbridge::CommitInfo& c);
/// git format-patch's "Date:" form: "Wed, 25 Nov 2026 19:57:38 +0000".
std::string rfc2822_date(const gitbridge::CommitInfo& c);

} // namespace ws
