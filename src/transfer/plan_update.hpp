#pragma once

#include "src/transfer/transfer_plan.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ws {

/// What it takes to bring a kept plan up to date with the names the daemon's change record
/// lists since it was made (docs/transfer.md, "The plan cache"), instead of planning the
/// whole workspace again: the changes at and below those names, found again, and the kept
/// plan's entries elsewhere, which nothing listed can have touched.
struct PlanUpdate {
  std::vector<fuse::Change> changes;  ///< at and below the listed names (sorted by path)
  std::vector<fuse::Change> context;  ///< kept changes other paths' facts read (.gitignore)
  std::vector<PlannedChange> outside; ///< the kept plan's entries not at or below a name
};

/// The update for `kept` (a whole plan of the live workspace `source`) after the changes at
/// `names` (the daemon's, directories ending in '/'; each name stands for itself and all
/// below it), or nullopt when only a full plan can be trusted: a listed name (not below
/// another) that is an input to its siblings' verdicts (`.gitignore`, `.gitattributes`,
/// `.gitmodules`, anything named `.git` or inside one, `pyvenv.cfg`, a bare repository's
/// `HEAD`, `objects`, `refs`); a symlink anywhere in the plan (what a symlink reaches depends
/// on the directories it walks) or in the real index at or below a name (it names other
/// paths); a rename or a copy with a side at or below a name (the pairing looks at both
/// sides); the root itself; more below the names than `limit` paths.
std::optional<PlanUpdate> plan_update(const Workspace& w, const StateSource& source,
                                      std::vector<PlannedChange>& kept,
                                      const std::vector<std::string>& names, size_t limit);

/// `a` and `b` (each sorted by path, no path in both) as one plan sorted by path: the order
/// a full plan has.
std::vector<PlannedChange> merge_by_path(std::vector<PlannedChange> a,
                                         std::vector<PlannedChange> b);

} // namespace ws
