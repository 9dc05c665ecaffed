#pragma once

#include "src/workspace/workspace.hpp"

#include <cstdint>
#include <memory>
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
/// For what has just LANDED in the real tree: a file the agent holds open stays its file.
void drop_changes(const Workspace& w, const std::vector<std::string>& paths);

/// For each of `paths`, what the real tree holds now becomes the base the workspace's version
/// is compared with: used after part of a file landed (`ws review`), so the landed part is no
/// longer a change and the rest still is. The view does not change.
void rebase_changes(const Workspace& w, const std::vector<std::string>& paths);

/// Drops every change of the workspace: the view shows exactly the real tree again.
void drop_all_changes(const Workspace& w);

/// A frozen state of a workspace: state_dir/checkpoints/<id>/{info, snapshot}, its content
/// and trees in the workspace's content store (docs/checkpoints.md); a checkpoint made
/// before the store existed is a full copy, {info, upper/, meta.db}, and still reads.
struct Checkpoint {
  unsigned id = 0; ///< 1, 2, 3... in creation order
  int64_t time_ns = 0;
  std::string message;       ///< -m, or "before reset", "end of ws run"...
  std::filesystem::path dir; ///< checkpoints/<id>
  size_t changes = 0;        ///< changed paths (against the real tree) when it was made
  uint64_t bytes = 0;        ///< what it added to the store when made (a full copy: its size)
  bool full_copy = false;    ///< the format before the content store
};

/// Freezes the workspace's current state (consistent even while the agent writes: done by
/// the daemon when mounted). `changes`, when known, is the number of changes just before
/// (else it is computed). Applies the retention policy after. Returns the new checkpoint.
Checkpoint create_checkpoint(const Workspace& w, const std::string& message,
                             std::optional<size_t> changes = std::nullopt);
/// Every checkpoint, oldest first; the `bytes` of full copies are 0 until measured.
std::vector<Checkpoint> list_checkpoints(const Workspace& w);
/// Sets the `bytes` of full copies (a walk of each).
void measure_full_copies(std::vector<Checkpoint>& checkpoints);
/// Deletes all but the newest `keep` checkpoints and frees the content only they held;
/// returns the deleted ones.
std::vector<Checkpoint> prune_checkpoints(const Workspace& w, size_t keep);

/// How many checkpoints to keep, and for how long (`ws.checkpointKeep`, default 50;
/// `ws.checkpointMaxDays`, default 30, 0: no limit), from the real repository's config and
/// the user's; the newest checkpoint is always kept.
struct Retention {
  size_t keep = 50;
  int64_t max_days = 30;
};
Retention load_retention(const Workspace& w);
/// Deletes what `policy` says goes, never one of `spared` (a checkpoint just restored);
/// returns the deleted checkpoints.
std::vector<Checkpoint> apply_retention(const Workspace& w, const Retention& policy,
                                        const std::vector<unsigned>& spared = {});

/// The store's total: every checkpoint's content and trees, and what the next checkpoint
/// builds on, each byte counted once (full copies: their size).
uint64_t checkpoints_total_bytes(const Workspace& w);

/// What changed between checkpoint `cp` and the one before it (`previous`, 0: none; then
/// everything `cp` holds): paths, without directories. Costs what changed. nullopt when
/// `cp` is a full copy.
struct ChangedSince {
  unsigned previous = 0;
  std::vector<std::string> paths;
};
std::optional<ChangedSince> changed_since_previous(const Workspace& w, const Checkpoint& cp);

/// Throws Error naming the known checkpoints if `id` does not exist.
Checkpoint find_checkpoint(const Workspace& w, unsigned id);

/// A checkpoint's state laid out as a workspace (upper/ and meta.db), for reading with
/// compute_changes() and ContentReader: the checkpoint itself if a full copy, else a private
/// copy written from the store, deleted when the last copy of `keep` goes.
struct CheckpointView {
  fuse::WorkspaceLayout layout;
  std::shared_ptr<void> keep;
};
CheckpointView checkout_checkpoint(const Workspace& w, unsigned id);

/// Replaces the workspace's state with checkpoint `id` (the current state is checkpointed
/// first, so a restore is undoable too). Through the daemon when mounted. Returns that
/// checkpoint of the state before.
Checkpoint restore_checkpoint(const Workspace& w, unsigned id);

/// Checkpoints the current state (`message`), then drops `paths` (as drop_changes; all of
/// them when `paths` is nullopt) in one step: nothing the agent writes in between can be
/// lost by the drop without being in the checkpoint. Returns the checkpoint (the undo).
/// `changes`: as for create_checkpoint.
Checkpoint checkpoint_and_drop(const Workspace& w,
                               const std::optional<std::vector<std::string>>& paths,
                               const std::string& message,
                               std::optional<size_t> changes = std::nullopt);

} // namespace ws
