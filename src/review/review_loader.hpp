#pragma once

// Loading a review on a thread of its own, so the screen stays live while it runs: it
// shows how far loading got, and keeps every key typed meanwhile (issue 13: a key typed
// while `ws review` loaded was taken, and it quit).

#include "src/review/review_session.hpp"
#include "tui/session.hpp"

#include <exception>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

namespace ws {

class ReviewLoader {
public:
  /// Starts loading the review of `w`'s changes within `paths` (load_review). With
  /// `held`, and WS_TEST_REVIEW_LOAD_GATE naming a file, loading waits until that file
  /// exists before it decides anything (after the provisional list, if there is one):
  /// tests type keys during a load that lasts as long as they need.
  /// With `list_first`, a provisional list is made when the kept plan is out of date
  /// (take_outdated).
  ReviewLoader(const Workspace& w, std::vector<std::string> paths, bool held = false,
               bool list_first = true);
  /// Stops loading (at its next progress report) and waits for the thread.
  ~ReviewLoader();
  ReviewLoader(const ReviewLoader&) = delete;
  ReviewLoader& operator=(const ReviewLoader&) = delete;

  bool done() const;
  tui::Progress progress() const;
  /// The list as last planned (tui::Review::provisional), once, when loading made one
  /// (the kept plan was out of date): shown while the plan of now is made.
  std::optional<tui::Review> take_outdated();
  /// The review, once done(); rethrows what loading threw.
  ReviewSource take();

private:
  void run(std::stop_token stop, const Workspace& w, std::vector<std::string> paths, bool held,
           bool list_first);

  mutable std::mutex m_mutex;
  tui::Progress m_progress;
  bool m_done = false;
  std::optional<ReviewSource> m_result;
  std::optional<tui::Review> m_outdated;
  std::exception_ptr m_error;
  std::jthread m_thread; ///< last: started after everything it uses exists
};

} // namespace ws
