#include "tests/support/agent_git_fixture.hpp"

#include <doctest/doctest.h>

namespace ws::test {

Run agent(const MountedWorkspace& w, const std::string& script) {
  Run r = w.ws("run -- sh -c " + q(script));
  INFO("agent: " << script << "\n" << r.out << r.err);
  CHECK(r.status == 0);
  return r;
}

std::string git(const TestRepo& repo, const std::string& args) {
  Run r = sh("git " + args, repo.path());
  INFO("git " << args << ": " << r.err);
  REQUIRE(r.status == 0);
  return r.out;
}

void person_identity(const TestRepo& repo) {
  git(repo, "config user.name Person");
  git(repo, "config user.email person@example.com");
}

} // namespace ws::test
