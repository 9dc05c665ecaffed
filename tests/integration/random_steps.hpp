#pragma once

// What the seeded interleaving tests (test_fsmonitor.cpp, test_plan_cache.cpp) draw for each
// step before choosing its command: where it runs, two paths and their directories (quoted
// for sh), and some text to write.

#include "tests/support/harness.hpp"

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace ws::test {

/// The seed of a test's generator: WS_TEST_SEED (other interleavings, by hand), else
/// `fallback` (the test's own).
inline unsigned test_seed(unsigned fallback) {
  const char* env = std::getenv("WS_TEST_SEED");
  return env ? static_cast<unsigned>(std::atoi(env)) : fallback;
}

/// One of `v`, drawn from `rng`.
inline std::string pick_one(std::mt19937& rng, const std::vector<std::string>& v) {
  return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
}

struct StepDraw {
  std::string where;                  ///< "real" (the person's tree) or "view" (the agent's side)
  std::string d, d2, n, n2;           ///< directories ("" or "x/") and names, as drawn
  std::string path, path2, dir, dir2; ///< quoted: d + n, d2 + n2, d and d2 ("." for "")
  std::string text;
};

/// The step's place (real one time in `real_one_in`), then its paths, from `dirs` x `names`.
inline StepDraw draw_step(std::mt19937& rng, const std::vector<std::string>& dirs,
                          const std::vector<std::string>& names, int real_one_in) {
  StepDraw s;
  s.where = std::uniform_int_distribution<int>(0, real_one_in - 1)(rng) == 0 ? "real" : "view";
  s.d = pick_one(rng, dirs);
  s.d2 = pick_one(rng, dirs);
  s.n = pick_one(rng, names);
  s.n2 = pick_one(rng, names);
  s.path = q(s.d + s.n);
  s.path2 = q(s.d2 + s.n2);
  s.dir = s.d.empty() ? "." : q(s.d);
  s.dir2 = s.d2.empty() ? "." : q(s.d2);
  s.text = std::to_string(rng() % 1000);
  return s;
}

} // namespace ws::test
