#pragma once

// What the plan cache's tests (test_plan_cache.cpp, test_plan_cache_delta.cpp) share: the
// project they start from, and a command run with the caches or without.

#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

namespace ws::test {

/// The project the seeded tests start from: sources, a text tree, an executable and a symlink.
inline void commit_small_project(TestRepo& repo) {
  repo.write("src/a.c", "a\n");
  repo.write("src/b.c", "b\n");
  repo.write("lib/x/y.txt", "y\n");
  repo.write("docs/r.md", "r\n");
  repo.write("tool.sh", "#!/bin/sh\n");
  REQUIRE(sh("chmod +x tool.sh && ln -s src/a.c alias.c", repo.path()).status == 0);
  repo.commit_all();
}

/// `ws ARGS` with the caches (and the daemon's list of names), and with WS_PLAN_CACHE=0.
inline Run with_cache(const MountedWorkspace& w, const std::string& args, bool cache) {
  if (!cache) {
    ::setenv("WS_PLAN_CACHE", "0", 1);
  }
  Run r = w.ws(args);
  ::unsetenv("WS_PLAN_CACHE");
  return r;
}

} // namespace ws::test
