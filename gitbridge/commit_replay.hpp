#pragma once

// The agent's commits, one by one: what each changed, and replaying them 3-way onto another
// commit (`ws apply --commits` onto the person's branch, `ws sync` onto the person's HEAD).

#include "gitbridge/agent_git.hpp"
#include "gitbridge/patch.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ws::gitbridge {

/// One path a commit changed against its (first) parent.
struct CommitChange {
  char status = 'M'; ///< A M D R T
  std::string old_path, path;
  BlobSide before, after; ///< content and mode (a gitlink: mode None, content its id)
  uint32_t before_mode = 0, after_mode = 0; ///< git's modes (0: absent; 0160000: gitlink)
};

/// The changes of commit `id` against its first parent (or an empty tree), renames found.
std::vector<CommitChange> commit_changes(const AgentGit& git, const std::string& id);

/// What to replay of one commit.
struct ReplayCommit {
  CommitInfo info;
  /// Paths left out: they keep the parent's version in the replayed commit.
  std::vector<std::string> exclude;
};

struct ReplayResult {
  /// Replayed, in order; an empty id where a commit was left with no change (not created).
  std::vector<std::string> ids;
  std::string head; ///< the last commit made (or `onto` if none)
  /// Set when a commit does not apply: its index in the input and the conflicting paths.
  std::optional<size_t> failed;
  std::vector<std::string> conflicts;
};

/// Where new objects go and who commits: the real repository (`ws apply --commits`; the
/// committer is the person, from its config) or the agent's git seen through the view
/// (`ws sync`; the committer stays each commit's own).
struct ReplayTarget {
  /// A working tree whose git directory receives them; empty: the agent's own object database
  /// (`AgentGit::objects_dir()`, or memory after `AgentGit::keep_new_objects_in_memory()`).
  std::filesystem::path repo;
  bool person_commits = true; ///< committer: the repository's user (else the original's)
};

/// Replays `commits` (objects readable through `agent`) onto commit `onto` of the target:
/// each is merged 3-way (its parent's tree, the current tip, its own tree less `exclude`), and
/// made a commit with its message, author and author date. Every object the new commits
/// need is copied into the target's object database. No ref moves; no hook, filter or
/// driver runs. Stops at the first commit that does not apply (nothing is referenced then).
ReplayResult replay_commits(const ReplayTarget& target, const AgentGit& agent,
                            const std::vector<ReplayCommit>& commits, const std::string& onto);

/// Moves `ref` ("refs/heads/main", or "HEAD" when detached) of the repository at `repo` from
/// `old_id` to `new_id`, only if it still is `old_id` (the person may commit meanwhile).
/// Throws GitError saying what happened otherwise.
void move_ref(const std::filesystem::path& repo, const std::string& ref, const std::string& old_id,
              const std::string& new_id, const std::string& message);

/// The changes between two commits of `repo`'s object database (paths, and both sides' content),
/// without pairing renames (a rename is a deletion and an addition).
std::vector<CommitChange> tree_changes(const std::filesystem::path& repo, const std::string& from,
                                       const std::string& to);

/// The person's identity for commits in the repository at `repo` (user.name, user.email), or
/// a message saying what to set.
std::optional<std::string> committer_problem(const std::filesystem::path& repo);

} // namespace ws::gitbridge
