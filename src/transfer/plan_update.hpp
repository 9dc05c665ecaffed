#pragma once

#include "src/transfer/transfer_plan.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ws {

/// What it takes to bring a kept plan up to date with the names the daemon's change record
/// lists since it was made (docs/transfer.md, "The plan cache"), instead of planning the
/// whole workspace again: the changes at and below those names, found again; the kept
/// plan's entries elsewhere, which nothing listed can have touched, stay where they are.
struct PlanUpdate {
  std::vector<fuse::Change> changes; ///< at and below the listed names (sorted by path)
  std::vector<fuse::Change> context; ///< kept changes other paths' facts read (.gitignore)
};

/// The update for `kept` (a whole plan of the live workspace `source`) after the changes at
/// `names` (the daemon's, directories ending in '/'; each name stands for itself and all
/// below it), or nullopt when only a full plan can be trusted: a listed name (not below
/// another) that is an input to its siblings' verdicts (`.gitignore`, `.gitattributes`,
/// `.gitmodules`, anything named `.git` or inside one, `pyvenv.cfg`, a bare repository's
/// `HEAD`, `objects`, `refs`, `conftest.py`); a conftest.py (not deleted) or a symlink
/// anywhere in the plan (what a symlink reaches depends
/// on the directories it walks) or in the real index at or below a name (it names other
/// paths); a rename or a copy with a side at or below a name (the pairing looks at both
/// sides); the root itself; more below the names than `limit` paths. With an answer, `kept`
/// is left with its entries not at or below a name, in their order (moved in place: a plan
/// of 200,000 entries is not copied for one edit); without one, it is as it was.
std::optional<PlanUpdate> plan_update(const Workspace& w, const StateSource& source,
                                      std::vector<PlannedChange>& kept,
                                      const std::vector<std::string>& names, size_t limit);

/// `b` merged into `a` (each sorted by path, no path in both): one plan sorted by path, the
/// order a full plan has. In place, from the end: only the entries after the first of `b`'s
/// places move.
void merge_into_by_path(std::vector<PlannedChange>& a, std::vector<PlannedChange> b);

} // namespace ws
