#pragma once

#include <filesystem>
#include <memory>

namespace ws {

/// The CLI logs to stderr: warnings by default, -v info, -vv debug.
void setup_cli_logging(int verbosity);

/// The daemon logs to its workspace's daemon.log (and stderr in the foreground).
void setup_daemon_logging(const std::filesystem::path& log_file, bool foreground, bool debug);

class HoldSink;

/// While a full-screen program owns the terminal (`ws review`), what is logged, on any
/// thread, is kept instead of printed over its screen (the last few thousand messages);
/// release() prints it as it would have been printed, and lets later messages through.
class HeldLogs {
public:
  HeldLogs();
  ~HeldLogs();
  HeldLogs(const HeldLogs&) = delete;
  HeldLogs& operator=(const HeldLogs&) = delete;
  void release();

private:
  std::shared_ptr<HoldSink> m_sink;
};

} // namespace ws
