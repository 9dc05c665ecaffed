// A review loaded on its own thread; stopped at the next progress report when the person
// leaves first.
#include "src/review/review_loader.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string_view>

namespace ws {

namespace {

/// Thrown from a progress report to stop loading; never leaves the loader's thread.
struct Stopped {};

} // namespace

ReviewLoader::ReviewLoader(const Workspace& w, std::vector<std::string> paths, bool held,
                           bool list_first)
    : m_thread(
          [this, &w, paths = std::move(paths), held, list_first](std::stop_token stop) mutable {
            run(std::move(stop), w, std::move(paths), held, list_first);
          }) {}

ReviewLoader::~ReviewLoader() {
  m_thread.request_stop();
}

void ReviewLoader::run(std::stop_token stop, const Workspace& w, std::vector<std::string> paths,
                       bool held, bool list_first) {
  const char* gate = held ? std::getenv("WS_TEST_REVIEW_LOAD_GATE") : nullptr;
  auto report = [&](const char* step, size_t done, size_t total) {
    if (stop.stop_requested()) {
      throw Stopped{};
    }
    {
      std::lock_guard lock(m_mutex);
      m_progress = tui::Progress{step, done, total};
    }
    // Held (tests) before the first verdict: the changes were found, and the provisional
    // list, if any, is on screen.
    for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
         gate && *gate && !std::filesystem::exists(gate) &&
         std::string_view(step) != "finding the changes" &&
         std::chrono::steady_clock::now() < until;) {
      if (stop.stop_requested()) {
        throw Stopped{};
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  };
  try {
    OutdatedList first;
    if (list_first) {
      first = [&](tui::Review list) {
        std::lock_guard lock(m_mutex);
        m_outdated = std::move(list);
      };
    }
    ReviewSource src = load_review(w, paths, report, first);
    std::lock_guard lock(m_mutex);
    m_result = std::move(src);
  } catch (const Stopped&) {
    // the person left: nobody waits for the result
  } catch (...) {
    std::lock_guard lock(m_mutex);
    m_error = std::current_exception();
  }
  std::lock_guard lock(m_mutex);
  m_done = true;
}

bool ReviewLoader::done() const {
  std::lock_guard lock(m_mutex);
  return m_done;
}

tui::Progress ReviewLoader::progress() const {
  std::lock_guard lock(m_mutex);
  return m_progress;
}

std::optional<tui::Review> ReviewLoader::take_outdated() {
  std::lock_guard lock(m_mutex);
  std::optional<tui::Review> list = std::move(m_outdated);
  m_outdated.reset();
  return list;
}

ReviewSource ReviewLoader::take() {
  m_thread.join();
  std::lock_guard lock(m_mutex);
  if (m_error) {
    std::rethrow_exception(m_error);
  }
  if (!m_result) {
    throw std::logic_error("ReviewLoader::take after the load was stopped");
  }
  return std::move(*m_result);
}

} // namespace ws
