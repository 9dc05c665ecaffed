#pragma once

// The checkpoints/ directory of a workspace: drafts, numbering, info files
// (docs/checkpoints.md, "On disk"). Used by workspace_edit.cpp, which makes checkpoints.

#include "src/workspace/workspace_edit.hpp"

#include <filesystem>
#include <string>

namespace ws {

/// A checkpoint being made: a private directory under checkpoints/ until publish() gives
/// it the next number. Removed if never published, and the references its snapshot took
/// in the store are dropped with it.
class CheckpointDraft {
public:
  explicit CheckpointDraft(const Workspace& w);
  ~CheckpointDraft();
  CheckpointDraft(const CheckpointDraft&) = delete;
  CheckpointDraft& operator=(const CheckpointDraft&) = delete;

  std::filesystem::path path() const { return m_parent / m_name; }
  /// How the daemon names it: relative to the state directory.
  std::string request_arg() const { return "checkpoints/" + m_name; }
  /// True once the state has been frozen into it (even if an edit after that failed).
  bool filled() const;
  /// Writes its info (`changes` against the real tree) and gives it the next number.
  Checkpoint publish(const std::string& message, size_t changes);

private:
  /// The agent's git's start (meta.db's `git.*` keys, docs/agent-git.md) as it is now, in
  /// `git-start`: they describe the upper/.git the checkpoint froze.
  void save_git_start() const;
  const Workspace& m_w;
  std::filesystem::path m_parent;
  std::string m_name;
  bool m_published = false;
};

/// Puts back the agent's git's start checkpoint `cp` kept (after its state was restored).
void restore_git_start(const Workspace& w, const Checkpoint& cp);

} // namespace ws
