#pragma once

// What the `ws apply` tests share (test_apply.cpp, test_apply_safety.cpp): files of numbered
// lines that the agent and the person edit line by line, and the check that a refused apply
// left the real tree as it was.

#include "tests/support/harness.hpp"
#include "tests/support/text_checks.hpp"

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

namespace ws::test {

/// Who commits in these tests: the agent (in `ws run`) and the person (in the real tree).
constexpr const char* k_agent_git = "git -c user.name=Agent -c user.email=agent@example.com";
constexpr const char* k_person_git = "git -c user.name=Person -c user.email=person@example.com";

/// `script` run as the agent: confined by `ws run`, in its view (the caller checks the status).
inline Run run_as_agent(const MountedWorkspace& w, const std::string& script) {
  return w.ws("run -- sh -c " + q(script));
}

/// "line 1\n" ... "line N\n", with line `k` replaced by `with` when `k` > 0.
inline std::string lines(int n, int k = 0, const std::string& with = "") {
  std::string out;
  for (int i = 1; i <= n; ++i) {
    out += i == k ? with + "\n" : "line " + std::to_string(i) + "\n";
  }
  return out;
}

/// Replaces line `k` of `rel` in the shell's cwd with `with` (GNU sed).
inline std::string sed_line(const std::string& rel, int k, const std::string& with) {
  return "sed -i " + q(std::to_string(k) + "s/.*/" + with + "/") + " " + q(rel);
}

/// `ws ARGS` refuses (exit 1) saying each of `says` on stderr, and the real tree is as it was.
inline Run check_refused(const MountedWorkspace& w, const TestRepo& repo, const std::string& args,
                         const std::vector<std::string_view>& says) {
  CAPTURE(args);
  std::string before = repo.snapshot();
  Run r = w.ws(args);
  CHECK(r.status == 1);
  check_has_all(r.err, says);
  CHECK(repo.snapshot() == before);
  return r;
}

} // namespace ws::test
