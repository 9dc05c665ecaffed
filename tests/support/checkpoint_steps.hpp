#pragma once

// A workspace's history built step by step: the agent writes, the person checkpoints.

#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

namespace ws::test {

/// For each {script, message}: `script` in the view, then `ws checkpoint -m MESSAGE` (so
/// checkpoints 1, 2, ... when there was none); each must succeed.
inline void checkpoint_each(const MountedWorkspace& w,
                            const std::vector<std::pair<std::string, std::string>>& steps) {
  for (const auto& step : steps) {
    const std::string& script = step.first; // not a structured binding: CAPTURE is a lambda
    CAPTURE(script);
    REQUIRE(w.in_view(script).status == 0);
    REQUIRE(w.ws("checkpoint -m " + q(step.second)).status == 0);
  }
}

} // namespace ws::test
