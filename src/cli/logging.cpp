// The only place that configures spdlog sinks (see style.md: logging).
#include "src/cli/logging.hpp"

#include <spdlog/details/log_msg_buffer.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <deque>
#include <mutex>
#include <string>
#include <vector>

namespace ws {

void setup_cli_logging(int verbosity) {
  auto logger = spdlog::stderr_color_mt("ws");
  logger->set_pattern("ws: %^%l%$: %v");
  logger->set_level(verbosity >= 2   ? spdlog::level::debug
                    : verbosity == 1 ? spdlog::level::info
                                     : spdlog::level::warn);
  spdlog::set_default_logger(logger);
}

void setup_daemon_logging(const std::filesystem::path& log_file, bool foreground, bool debug) {
  std::vector<spdlog::sink_ptr> sinks;
  sinks.push_back(std::make_shared<spdlog::sinks::basic_file_sink_mt>(log_file.string()));
  if (foreground) {
    sinks.push_back(std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  }
  auto logger = std::make_shared<spdlog::logger>("ws", sinks.begin(), sinks.end());
  logger->set_pattern("%Y-%m-%d %H:%M:%S.%e [%n] %l: %v");
  logger->set_level(debug ? spdlog::level::debug : spdlog::level::info);
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
}

/// Keeps messages while held, then hands them and every later one to the sinks it stands
/// in front of.
class HoldSink final : public spdlog::sinks::base_sink<std::mutex> {
public:
  explicit HoldSink(std::vector<spdlog::sink_ptr> out) : m_out(std::move(out)) {}

  void release() {
    std::lock_guard lock(mutex_);
    if (!m_holding) {
      return;
    }
    m_holding = false;
    if (m_dropped > 0) {
      std::string text = std::to_string(m_dropped) + " earlier messages not kept";
      forward(spdlog::details::log_msg(m_kept.front().logger_name, spdlog::level::info, text));
    }
    for (const auto& msg : m_kept) {
      forward(msg);
    }
    m_kept.clear();
    flush_();
  }

protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    if (!m_holding) {
      forward(msg);
      return;
    }
    if (m_kept.size() == k_kept) {
      m_kept.pop_front();
      ++m_dropped;
    }
    m_kept.emplace_back(msg);
  }
  void flush_() override {
    for (const auto& s : m_out) {
      s->flush();
    }
  }

private:
  static constexpr size_t k_kept = 5000;

  void forward(const spdlog::details::log_msg& msg) {
    for (const auto& s : m_out) {
      if (s->should_log(msg.level)) {
        s->log(msg);
      }
    }
  }

  std::vector<spdlog::sink_ptr> m_out;
  bool m_holding = true;
  std::deque<spdlog::details::log_msg_buffer> m_kept;
  size_t m_dropped = 0;
};

HeldLogs::HeldLogs() {
  // A logger of the same name and level in front of the same sinks. It stays the default
  // logger after release (it lets everything through then): swapping the default logger
  // while another thread logs is not safe.
  std::shared_ptr<spdlog::logger> current = spdlog::default_logger();
  m_sink = std::make_shared<HoldSink>(current->sinks());
  auto held = std::make_shared<spdlog::logger>(current->name(), m_sink);
  held->set_level(current->level());
  spdlog::set_default_logger(held);
}

HeldLogs::~HeldLogs() {
  release();
}

void HeldLogs::release() {
  m_sink->release();
}

} // namespace ws
