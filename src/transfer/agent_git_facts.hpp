#pragma once

// Facts about the workspace's changes that come from the agent's own git and ignore files
// (docs/transfer.md, "Apply never undoes your work"): did its git put back the version it
// started from over the person's later edit, does landing a path undo a commit its git reset
// away, does a `.gitignore` the agent wrote ignore a new path.

#include "filters/policy.hpp"
#include "fuse/changes.hpp"
#include "gitbridge/agent_git.hpp"
#include "src/transfer/change_content.hpp"
#include "src/transfer/transfer_plan.hpp"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ws {

class AgentGitFacts {
public:
  /// `changes`: every change of `source` (for the agent's .gitignore files among them).
  AgentGitFacts(const StateSource& source, const std::vector<fuse::Change>& changes,
                const ContentReader& reader);
  ~AgentGitFacts();
  AgentGitFacts(const AgentGitFacts&) = delete;
  AgentGitFacts& operator=(const AgentGitFacts&) = delete;

  /// Sets `ignored_by_agent`, `restores_start` and `undoes_commit` of `f` for `c`.
  void fill(const fuse::Change& c, filters::PathFacts& f);

private:
  bool ignored_by_agent(const std::string& path);
  /// `side` as a tree entry (mode 0 when absent).
  gitbridge::AgentGit::Entry entry_of(const gitbridge::BlobSide& side) const;

  const ContentReader& m_reader;
  std::map<std::string, std::optional<std::string>> m_ignore_files; ///< dir -> rules (read lazily)
  std::unique_ptr<gitbridge::AgentGit> m_git;
  std::string m_start, m_start_index, m_head;
  /// Paths the commits the agent's HEAD dropped changed, and the one-line name of those commits.
  std::map<std::string, std::string> m_undone;
};

} // namespace ws
