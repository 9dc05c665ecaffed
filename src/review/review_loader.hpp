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
  /// `held`, and WS_TEST_REVIEW_LOAD_GATE naming a file, loading first waits until that
  /// file exists: tests type keys during a load that lasts as long as they need.
  ReviewLoader(const Workspace& w, std::vector<std::string> paths, bool held = false);
  /// Stops loading (at its next progress report) and waits for the thread.
  ~ReviewLoader();
  ReviewLoader(const ReviewLoader&) = delete;
  ReviewLoader& operator=(const ReviewLoader&) = delete;

  bool done() const;
  tui::Progress progress() const;
  /// The review, once done(); rethrows what loading threw.
  ReviewSource take();

private:
  void run(std::stop_token stop, const Workspace& w, std::vector<std::string> paths, bool held);

  mutable std::mutex m_mutex;
  tui::Progress m_progress;
  bool m_done = false;
  std::optional<ReviewSource> m_result;
  std::exception_ptr m_error;
  std::jthread m_thread; ///< last: started after everything it uses exists
};

} // namespace ws
