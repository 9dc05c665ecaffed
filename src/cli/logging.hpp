#pragma once

#include <filesystem>

namespace ws {

/// The CLI logs to stderr: warnings by default, -v info, -vv debug.
void setup_cli_logging(int verbosity);

/// The daemon logs to its workspace's daemon.log (and stderr in the foreground).
void setup_daemon_logging(const std::filesystem::path& log_file, bool foreground, bool debug);

} // namespace ws
