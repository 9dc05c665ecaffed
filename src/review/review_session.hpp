#pragma once

// `ws review`'s glue: builds the review model's plain values from the transfer plan, and
// turns the person's decisions back into exactly what lands (src/cmd_review.cpp).
//
// Loading reads no file's content: the plan, then one stat per changed path for the
// review's id. A file's content is read when it is shown (review_diff.hpp) and again when
// it lands, checked to be what was shown.

#include "gitbridge/patch.hpp"
#include "src/review/review_input.hpp"
#include "src/transfer/landing.hpp"
#include "src/transfer/real_tree_writer.hpp"
#include "src/transfer/transfer_plan.hpp"
#include "tui/review_model.hpp"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ws {

struct Context;

/// What `ws review` does (the CLI fills it).
struct ReviewOptions {
  std::vector<std::string> paths; ///< only changes at or below these (pathspecs)
  bool index = true;              ///< finish stages by default; --no-index: the tree only
  std::string rejected;           ///< --rejected FILE: the rejected hunks, as a patch
};
int cmd_review(const Context& ctx, const ReviewOptions& options);

/// One changed path of the review and what it was built from.
struct ReviewItem {
  PlannedChange change;
  /// The workspace's object at the path as the review opened (stat_identity: size, mode,
  /// inode, mtime, ctime); "" for a deletion. Reading it later checks it is still this.
  std::string upper;
  /// Transfer and flagged changes, and withheld ones the person may take.
  bool may_land = false;
};

/// Everything one review shows. `review.id` changes whenever anything shown would.
struct ReviewSource {
  StateSource source;
  std::vector<ReviewItem> items; ///< in plan order; FileEntry::source indexes it
  tui::Review review;
};

/// How far loading got, for the loading screen; `step` names the part running.
using LoadProgress = std::function<void(const char* step, size_t done, size_t total)>;

/// A provisional list (tui::Review::provisional), given while the plan of now is made: the
/// list as an earlier command planned it, or, when none kept its plan, the changes as found
/// before their verdicts (tui::Review::verdicts_pending).
using OutdatedList = std::function<void(tui::Review)>;

/// The review of the workspace's changes within `paths`, without reading any content.
/// `progress` is called now and then; it may throw to stop the load. When the plan kept by
/// an earlier command is not the plan of now (docs/transfer.md, "The plan cache"),
/// `outdated` gets its list first, to show while the plan is made in full; when there is
/// none, it gets the changes found, before their verdicts are decided.
ReviewSource load_review(const Workspace& w, const std::vector<std::string>& paths,
                         const LoadProgress& progress = {}, const OutdatedList& outdated = {});

/// What the decisions mean for the real tree and the workspace.
struct ReviewLanding {
  std::vector<Landing> landings;
  std::vector<std::string> drop; ///< workspace paths taken whole: they leave the workspace
  /// Paths taken in part: what landed becomes their base, so the accepted hunks leave the
  /// workspace and the rejected ones stay in it.
  std::vector<std::string> rebase;
  std::vector<LandingResult> conflicts; ///< each path that cannot land; any: land nothing
  std::vector<std::string> summary;     ///< one line per path that lands
  std::vector<size_t> summary_files;    ///< for each line, its file in the model's order
  std::string accepted_patch;           ///< a git patch of what lands (before -> landed)
  std::string rejected_patch;           ///< a git patch of the rejected changes, on top of that
};

/// Computes the landing of `model`'s accepted decisions against the real tree now (reading
/// it). Each file lands what was shown: the agent's version, or the base with only the
/// accepted hunks; its content is read now and must still be what the review opened on
/// (and, if it was shown, exactly what was shown), else Error and nothing lands. When the
/// person edited a file meanwhile, the landed text is merged into theirs (3-way, as `ws
/// apply`); anything else that no longer fits is a conflict.
/// The patches (libgit2 builds them: seconds for 100,000 files) only when `patches` asks.
struct LandingPatches {
  bool accepted = true;
  bool rejected = true;
};
ReviewLanding plan_review_landing(const Workspace& w, const ReviewSource& src,
                                  const tui::ReviewModel& model, LandingPatches patches = {});

/// The summary a person reads after landing: one line per file, but a directory whose
/// landed files all had one verdict and reason (a withheld directory taken whole) is one
/// line with its count, when there are more than `fold_above` lines.
std::vector<std::string> landing_report(const ReviewLanding& landing, const tui::ReviewModel& model,
                                        size_t fold_above = 20);

/// The file keeping a workspace's review decisions between sessions.
std::filesystem::path decisions_file(const Workspace& w);

} // namespace ws
