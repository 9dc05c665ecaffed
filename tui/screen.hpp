#pragma once

// The interactive session: an ncurses screen showing the model, keys through key_table().

#include "tui/review_model.hpp"

#include <functional>
#include <string>

namespace ws::tui {

enum class FinishMode { Stage, Tree, PatchFile };

struct SessionResult {
  enum class Kind { Quit, Interrupted, Finish, Reload } kind = Kind::Quit;
  FinishMode mode = FinishMode::Stage;
  std::string patch_file;     ///< PatchFile: where to write
  bool checked_fresh = false; ///< Finish: hooks.fresh() said yes just before returning
};

/// What the session needs from its owner (src/), as plain callbacks.
struct SessionHooks {
  std::function<void(const ReviewModel&)> save; ///< persist the decisions (after each change)
  std::function<bool()> fresh;                  ///< the workspace still holds what the review shows
  bool stage_by_default = true;
  std::string default_patch_file = "ws-review.patch";
};

/// Runs the review on the terminal until the person finishes or leaves. The terminal is
/// restored on every way out (return, exception, SIGINT/SIGTERM/SIGHUP). Requires a
/// terminal on stdin and stdout; `NO_COLOR` turns colours off.
SessionResult run_session(ReviewModel& model, const SessionHooks& hooks);

} // namespace ws::tui
