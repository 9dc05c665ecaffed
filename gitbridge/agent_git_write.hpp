#pragma once

// Writing the agent's git state (`ws sync`): its branch and its index, through the view, the
// way git itself does (a `.lock` file renamed into place), without opening it as a repository
// (its config is the agent's: docs/agent-git.md).

#include "gitbridge/agent_git.hpp"

#include <filesystem>
#include <memory>
#include <string>

struct git_index;

namespace ws::gitbridge {

/// The agent's index made from a commit's tree, in memory until written. Entries whose path,
/// mode and blob stay keep their stat data, so the agent's next `git status` does not read
/// every file again.
class AgentIndex {
public:
  /// Reads `git_dir`/index (none: an empty one) and replaces its entries with `commit`'s tree
  /// (objects read through `git`). Throws GitError naming what failed; nothing is written.
  AgentIndex(const std::filesystem::path& git_dir, const AgentGit& git, const std::string& commit);
  ~AgentIndex();
  AgentIndex(const AgentIndex&) = delete;
  AgentIndex& operator=(const AgentIndex&) = delete;
  /// Writes it (`index.lock`, then renamed over `index`).
  void write();

private:
  struct Impl;
  std::unique_ptr<Impl> m;
};

/// Moves the agent's `ref` ("refs/heads/feature", or "HEAD" when detached) from `old_id` ("":
/// it does not exist yet) to `new_id`, only if it still is `old_id`, as git does: `<ref>.lock`
/// made exclusively, written, renamed over the loose ref; a line in its reflog (and HEAD's)
/// where the agent keeps one. Throws GitError saying what happened otherwise (its git holds
/// the lock, the ref moved meanwhile).
void move_agent_ref(const std::filesystem::path& git_dir, const AgentGit& git,
                    const std::string& ref, const std::string& old_id, const std::string& new_id,
                    const std::string& message);

} // namespace ws::gitbridge
