#pragma once

// The workspace's private git state (docs/agent-git.md): made at `ws new`, its start point and
// pins recorded out of the agent's reach, and what `ws status` says about it.

#include "fuse/layout.hpp"
#include "gitbridge/agent_git.hpp"
#include "src/workspace/workspace.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ws {

/// Where the agent's git started, as recorded in meta.db (info keys `git.*`).
struct AgentGitStart {
  std::string pin_id;      ///< refs/ws/<pin_id>/ in the real repository
  std::string start;       ///< the agent's starting commit ("" on an unborn branch)
  std::string start_index; ///< a commit whose tree is the index the agent started with
  std::string start_ref;   ///< the branch the real HEAD was on ("" when detached)
  std::string base;        ///< the person's HEAD the workspace was last brought onto
  /// The agent's commit whose work last landed whole (`ws apply`): its commits up to there
  /// are no longer new. Its own object (not pinned): ignored once its git has lost it.
  std::string landed;
  std::filesystem::path common_dir; ///< the real repository's common git directory
};

/// Makes the private git state of a workspace that has none (and whose directory is a git
/// working tree: an agent profile's config layer is not) (at `ws new`, and at the first
/// mount of a workspace made before private states), records its start and pins it. No
/// daemon may serve the workspace (it holds daemon.lock meanwhile; a served workspace is
/// left alone).
void init_agent_git(const Workspace& w);

/// Records the agent's state in `layout` (the live one) as its start: the commit its HEAD
/// names, the index, the person's HEAD; and pins every object its refs name in the real
/// repository. After the state was (re)made from the real repository.
void record_agent_start(const Workspace& w);

/// Records that the workspace was brought onto the person's HEAD `person` (`ws sync`): the
/// agent's new commits begin there now (start, start index, base), and it is pinned.
void record_agent_sync(const Workspace& w, const gitbridge::AgentHead& person);

/// The start recorded for `state` (the live workspace, or a checkpoint); nullopt when the
/// workspace has no private git state.
std::optional<AgentGitStart> agent_git_start(const fuse::WorkspaceLayout& state);

/// Records that everything the agent's git holds up to its commit `landed` is in the real
/// tree now (`ws apply` of everything, `ws apply --commits`): its commits up to there are no
/// longer new.
void set_agent_landed(const Workspace& w, const std::string& landed);

/// Where the agent's new commits begin: the landed commit while its git still has it, else
/// the start.
std::string agent_new_from(const AgentGitStart& s, const gitbridge::AgentGit& git);

/// Pins `ids` for the workspace in the real repository (those the real repository has).
void pin_for(const Workspace& w, const std::vector<std::string>& ids);

/// Deletes the workspace's pins (`ws rm`). Never throws: a warning names what is left.
void remove_agent_git_pins(const Workspace& w);

/// Reads the agent's git of `state` (its upper/.git), objects shared with the real repository.
gitbridge::AgentGit open_agent_git(const Workspace& w, const fuse::WorkspaceLayout& state);

/// What a person is told about the agent's git and the person's HEAD.
struct AgentGitSummary {
  bool present = false; ///< the workspace has a private git state
  bool readable = true; ///< false: the agent broke it (why: `problem`)
  std::string problem;
  gitbridge::AgentHead head;
  std::string start, start_ref;
  std::string new_from;                       ///< agent_new_from()
  size_t commits = 0;                         ///< reachable from HEAD, not from new_from
  bool merges = false;                        ///< some of them are merge commits
  std::vector<gitbridge::CommitInfo> dropped; ///< of start's history, not in HEAD (max 3+1)
  std::string person_head, person_ref, base;  ///< the real HEAD now, and when last synced
  size_t person_ahead = 0;                    ///< commits of the person's since base
  bool person_moved() const { return !person_head.empty() && person_head != base; }
};
AgentGitSummary agent_git_summary(const Workspace& w);

/// "agent: 3 commits on feature (from main@1a2b3c4)" and, when the person's HEAD moved, a
/// second line saying so and what to do. Empty when the workspace has no private git.
std::vector<std::string> agent_git_lines(const Workspace& w, const AgentGitSummary& s);

} // namespace ws
