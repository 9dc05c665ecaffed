#pragma once

// `ws review`'s glue: builds the review model's plain values from the transfer plan, and
// turns the person's decisions back into exactly what lands (src/cmd_review.cpp).

#include "gitbridge/patch.hpp"
#include "src/review/review_input.hpp"
#include "src/transfer/real_tree_writer.hpp"
#include "src/transfer/transfer_plan.hpp"
#include "tui/review_model.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ws {

struct Context;
class Progress;

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
  /// Both sides, when the change may land: transfer, flagged, and withheld that may be taken.
  std::optional<gitbridge::FilePair> pair;
  bool base_exact = true; ///< `pair->before` is the real base (see ContentReader::base)
  /// A withheld file too large or binary to diff: described from this probe, not read. If
  /// the person takes it, its content is read when landing, checked against the probe.
  std::optional<FileProbe> deferred;
};

/// Everything one review shows. `review.id` changes whenever anything shown would.
struct ReviewSource {
  StateSource source;
  std::vector<ReviewItem> items; ///< in plan order; review.files[i] is items[i]
  tui::Review review;
};

/// `progress`, if given, counts the files read.
ReviewSource load_review(const Workspace& w, const std::vector<std::string>& paths,
                         Progress* progress = nullptr);

/// What the decisions mean for the real tree and the workspace.
struct ReviewLanding {
  std::vector<Landing> landings;
  std::vector<std::string> drop; ///< workspace paths taken whole: they leave the workspace
  /// Paths taken in part: what landed becomes their base, so the accepted hunks leave the
  /// workspace and the rejected ones stay in it.
  std::vector<std::string> rebase;
  std::vector<std::string> conflicts; ///< why a path cannot land; non-empty: land nothing
  std::vector<std::string> summary;   ///< one line per path that lands
  std::string accepted_patch;         ///< a git patch of what lands (before -> landed)
  std::string rejected_patch;         ///< a git patch of the rejected changes, on top of that
};

/// Computes the landing of `model`'s accepted decisions against the real tree now (reading
/// it). Each file lands what was shown: the agent's version, or the base with only the
/// accepted hunks. When the person edited a file meanwhile, the landed text is merged into
/// theirs (3-way, as `ws apply`); anything else that no longer fits is a conflict.
ReviewLanding plan_review_landing(const Workspace& w, const ReviewSource& src,
                                  const tui::ReviewModel& model);

/// The file keeping a workspace's review decisions between sessions.
std::filesystem::path decisions_file(const Workspace& w);

} // namespace ws
