#pragma once

#include "src/workspace/workspace.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ws {

/// Makes each of `paths` (repository-relative, as `compute_changes` lists them; a rename is
/// dropped by naming both its sides) show the real tree again: the agent's object and the
/// overlay records at that path go. When the view is mounted the daemon does it (over its
/// control socket) and invalidates the kernel's caches, so a running agent sees the real
/// tree at once; otherwise it is done on the state files, holding the daemon lock so no
/// daemon starts meanwhile. Throws Error on failure (nothing half-dropped for one path).
void drop_changes(const Workspace& w, const std::vector<std::string>& paths);

/// For each of `paths`, what the real tree holds now becomes the base the workspace's version
/// is compared with: used after part of a file landed (`ws review`), so the landed part is no
/// longer a change and the rest still is. The view does not change.
void rebase_changes(const Workspace& w, const std::vector<std::string>& paths);

/// Drops every change of the workspace: the view shows exactly the real tree again.
void drop_all_changes(const Workspace& w);

/// A frozen copy of a workspace's state: state_dir/checkpoints/<id>/{upper/, meta.db, info}.
/// Bases stay shared in the workspace's bases/ (content-addressed, never rewritten).
struct Checkpoint {
  unsigned id = 0; ///< 1, 2, 3... in creation order
  int64_t time_ns = 0;
  std::string message;       ///< -m, or "before reset", "end of ws run"...
  std::filesystem::path dir; ///< holds upper/ and meta.db, like a WorkspaceLayout
  size_t changes = 0;        ///< changed paths it holds
};

/// Freezes the workspace's current state (consistent even while the agent writes: done by
/// the daemon when mounted). Returns the new checkpoint.
Checkpoint create_checkpoint(const Workspace& w, const std::string& message);
std::vector<Checkpoint> list_checkpoints(const Workspace& w);
/// Deletes all but the newest `keep` checkpoints; returns the deleted ones. Every `ws run`
/// and every reset adds one, each a full copy of the agent's files: this bounds the space.
std::vector<Checkpoint> prune_checkpoints(const Workspace& w, size_t keep);
/// Throws Error naming the known checkpoints if `id` does not exist.
Checkpoint find_checkpoint(const Workspace& w, unsigned id);
/// Replaces the workspace's state with checkpoint `id` (the current state is checkpointed
/// first, so a restore is undoable too). Through the daemon when mounted. Returns that
/// checkpoint of the state before.
Checkpoint restore_checkpoint(const Workspace& w, unsigned id);

/// Checkpoints the current state (`message`), then drops `paths` (as drop_changes; all of
/// them when `paths` is nullopt) in one step: nothing the agent writes in between can be
/// lost by the drop without being in the checkpoint. Returns the checkpoint (the undo).
Checkpoint checkpoint_and_drop(const Workspace& w,
                               const std::optional<std::vector<std::string>>& paths,
                               const std::string& message);

} // namespace ws
