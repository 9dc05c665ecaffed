#pragma once

#include "gitbridge/global_config.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace ws {

/// The agent's `~/.gitconfig` (docs/run.md, "What the agent can read"): the person's global git
/// config (both files, includes resolved for the project) reduced to an allowlist of settings
/// that hold data git needs to behave as the person expects (identity, line endings, default
/// branch, colours, diff and merge styles, plain aliases) and no secret and no command of
/// theirs: never `credential.*`, `url.*`, `http.*`, `core.sshCommand`, `gpg.*`, signing,
/// drivers, filters (but git-lfs's own), hooks, `!` aliases or includes.
struct AgentGitConfig {
  std::string text;                 ///< git-config syntax; empty when nothing is kept
  std::vector<std::string> dropped; ///< names left out, once each, `url.*.insteadof` (never a
                                    ///< subsection: a URL's token is there), for `ws -v run`
};

/// Decides one entry: kept in the agent's config or not.
bool agent_may_see(const gitbridge::GlobalConfigEntry& e);

/// The agent's git config for a session in `project`. Throws GitError for a broken config.
AgentGitConfig agent_git_config(const std::filesystem::path& project);

} // namespace ws
