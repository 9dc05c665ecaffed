// The only place that configures spdlog sinks (see style.md: logging).
#include "src/cli/logging.hpp"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

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

} // namespace ws
