#pragma once

#include <spdlog/spdlog.h>

namespace ws::fuse {

/// The "fuse" logger: a clone of the default logger made at first use, so src/logging.cpp
/// must configure sinks before the filesystem starts. Cached: no registry lookup per call.
inline spdlog::logger& logger() {
  static std::shared_ptr<spdlog::logger> log = [] {
    auto existing = spdlog::get("fuse");
    return existing ? existing : spdlog::default_logger()->clone("fuse");
  }();
  return *log;
}

} // namespace ws::fuse
