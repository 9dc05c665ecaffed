// ws run's start-up, step by step (startup_trace.hpp).
#include "src/run/startup_trace.hpp"

#include <spdlog/spdlog.h>

#include <time.h>

namespace ws {

namespace {

double ms(clockid_t clock) {
  timespec t{};
  ::clock_gettime(clock, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

/// Wall time counts from the first step; CPU time from the exec (the first step's CPU time is
/// what ws spent before ws run's own work: loading libraries, parsing the command line).
double first_call = 0;

} // namespace

void startup_step(const char* what) {
  if (!spdlog::should_log(spdlog::level::debug)) {
    return;
  }
  double now = ms(CLOCK_MONOTONIC);
  if (first_call == 0) {
    first_call = now;
  }
  spdlog::debug("start-up: {:7.1f} ms, CPU {:6.1f} ms: {}", now - first_call,
                ms(CLOCK_PROCESS_CPUTIME_ID), what);
}

} // namespace ws
