// A progress line on a terminal (progress.hpp).
#include "src/cli/progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace ws {

namespace {
using Clock = std::chrono::steady_clock;
constexpr std::chrono::milliseconds k_delay{500};
constexpr std::chrono::milliseconds k_redraw{100};

std::chrono::milliseconds delay() {
  if (const char* env = std::getenv("WS_PROGRESS_DELAY_MS"); env && *env) {
    return std::chrono::milliseconds(std::atol(env));
  }
  return k_delay;
}

size_t terminal_width() {
  winsize w{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 0) {
    return w.ws_col;
  }
  return 80;
}
} // namespace

/// Owns the drawing thread; `mutex` guards label, total, step_start, stop and drawn.
struct Progress::Impl {
  std::string operation;
  std::mutex mutex;
  std::condition_variable wake;
  std::string label;
  std::uint64_t total = 0;
  std::atomic<std::uint64_t> done{0};
  Clock::time_point start = Clock::now();
  Clock::time_point step_start = Clock::now();
  bool stop = false;
  bool drawn = false; ///< a line is on the terminal
  std::thread thread;

  void draw_locked() {
    auto now = Clock::now();
    auto secs = std::chrono::duration_cast<std::chrono::seconds>(now - step_start).count();
    std::string line = "ws: " + operation + (label.empty() ? "" : ": " + label);
    std::uint64_t d = done.load(std::memory_order_relaxed);
    if (total > 0) {
      line += " " + std::to_string(d) + "/" + std::to_string(total);
    } else if (d > 0) {
      line += " " + std::to_string(d);
    }
    if (secs > 0) {
      line += "  (" + std::to_string(secs) + " s)";
    }
    size_t width = terminal_width();
    if (line.size() >= width) {
      line.resize(width > 1 ? width - 1 : 0);
    }
    std::string out = "\r" + line + "\033[K";
    (void)!::write(STDERR_FILENO, out.data(), out.size());
    drawn = true;
  }

  void erase_locked() {
    if (drawn) {
      (void)!::write(STDERR_FILENO, "\r\033[K", 4);
      drawn = false;
    }
  }

  void run() {
    std::unique_lock lock(mutex);
    Clock::time_point first = start + delay();
    while (!stop) {
      if (Clock::now() >= first) {
        draw_locked();
      }
      wake.wait_for(lock, k_redraw);
    }
    erase_locked();
  }
};

Progress::Progress(std::string operation) {
  if (::isatty(STDERR_FILENO) == 0) {
    return;
  }
  m_impl = std::make_unique<Impl>();
  m_impl->operation = std::move(operation);
  m_impl->thread = std::thread([impl = m_impl.get()] { impl->run(); });
}

Progress::~Progress() {
  finish();
}

void Progress::step(std::string label, std::uint64_t total) {
  if (!m_impl) {
    return;
  }
  std::lock_guard lock(m_impl->mutex);
  m_impl->label = std::move(label);
  m_impl->total = total;
  m_impl->done.store(0, std::memory_order_relaxed);
  m_impl->step_start = Clock::now();
  if (m_impl->step_start >= m_impl->start + delay()) {
    m_impl->draw_locked(); // each phase shows, however quickly it passes
  }
}

void Progress::advance(std::uint64_t n) {
  if (m_impl) {
    m_impl->done.fetch_add(n, std::memory_order_relaxed);
  }
}

void Progress::set(std::uint64_t done) {
  if (m_impl) {
    m_impl->done.store(done, std::memory_order_relaxed);
  }
}

void Progress::finish() {
  if (!m_impl) {
    return;
  }
  {
    std::lock_guard lock(m_impl->mutex);
    m_impl->stop = true;
  }
  m_impl->wake.notify_all();
  m_impl->thread.join();
  m_impl.reset();
}

bool Progress::shown() const {
  return m_impl != nullptr;
}

} // namespace ws
