#pragma once

// What the tests of the agent's commits and of `ws sync` share: the agent at work through
// `ws run`, git in the real repository as the person, and who each of them is.

#include "tests/support/harness.hpp"

#include <string>

namespace ws::test {

/// The agent's git command: its identity and a fixed author date (so ids and patches can be
/// compared).
inline constexpr const char* k_agent_git =
    "GIT_AUTHOR_DATE='2026-01-02T03:04:05+0100' git -c user.name=Agent -c "
    "user.email=agent@example.com";

/// `script` run as the agent: confined by `ws run`, in its view; checks that it succeeded.
Run agent(const MountedWorkspace& w, const std::string& script);

/// `git ARGS` in the real repository, as the person; requires that it succeeded; its output.
std::string git(const TestRepo& repo, const std::string& args);

/// The person's identity in the real repository's config (made after `ws new`: the agent's
/// git does not have it).
void person_identity(const TestRepo& repo);

} // namespace ws::test
