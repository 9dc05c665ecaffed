#pragma once

// The interactive session: the model on a terminal, keys through key_table(), the prompts,
// and the waits (loading, checking before landing) during which keys are kept, in order,
// never lost or taken for something else.

#include "tui/review_model.hpp"
#include "tui/screen.hpp"

#include <cstdint>
#include <deque>
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

/// What a wait shows: the step, and how far it is when it counts.
struct Progress {
  std::string step; ///< "finding the changes"
  uint64_t done = 0;
  uint64_t total = 0; ///< 0: not counted
};

/// What the session needs from its owner (src/), as plain callbacks.
struct SessionHooks {
  std::function<void(const ReviewModel&)> save; ///< persist the decisions (after each change)
  /// The workspace still holds what the review shows: true, false, or nullopt when the
  /// person interrupted the check (it may wait(), which shows its progress).
  std::function<std::optional<bool>()> fresh;
  bool stage_by_default = true;
  std::string default_patch_file = "ws-review.patch";
};

/// The review on one terminal, from the first screen (while the changes load) to the end.
class ReviewSession {
public:
  ReviewSession(Terminal& terminal, std::string workspace);

  /// Shows `progress()` until `ready()` says so: over the review when one runs, else over
  /// the provisional list `preview()` gives once there is one (Review::provisional), else as
  /// the loading screen. Every key typed meanwhile is kept, in order, and applied afterwards
  /// as if typed then; but on a provisional list, keys that only move (moves_at_once) act
  /// at once as long as no other key waits before them (so the order holds). Returns false
  /// when the person interrupted (Ctrl-C, a signal).
  bool wait(const std::function<Progress()>& progress, const std::function<bool()>& ready,
            const std::function<ReviewModel*()>& preview = {});

  /// Runs the review until the person finishes or leaves; keys kept by wait() come first.
  SessionResult run(ReviewModel& model, const SessionHooks& hooks);

  /// Keys typed and not yet applied.
  size_t pending() const { return m_pending.size(); }
  /// Forgets the keys typed and not yet applied (they were meant for a row that is gone);
  /// returns how many.
  size_t discard_pending();

private:
  void draw(const std::string& prompt);
  std::optional<int> next_key();
  std::optional<bool> ask(const std::string& question);
  std::optional<std::string> read_line(const std::string& prompt, std::string text);
  std::optional<SessionResult> handle(Effect e);
  std::optional<SessionResult> search(Effect e);
  std::optional<SessionResult> finish();

  Terminal& m_terminal;
  std::string m_workspace;
  std::deque<int> m_pending;
  ReviewModel* m_model = nullptr;
  const SessionHooks* m_hooks = nullptr;
  bool m_help = false;
};

/// The loading screen: what is being read, how far, and the keys kept meanwhile.
Frame render_loading(const std::string& workspace, const Progress& progress, size_t pending,
                     int width, int height);

/// "finding the changes: 45,000 of 101,000".
std::string progress_text(const Progress& p);

} // namespace ws::tui
