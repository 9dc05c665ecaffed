#pragma once

// The project files that configs the person already has in the REAL tree run by themselves:
// the agent's edit of such a file would run on the person's next `git commit`, the next
// Claude Code session, the next time VS Code or direnv opens the project. Read from the real
// tree (the person's version is what will run; the agent's version of a config is withheld by
// its own name), once per command, and made an input of the kept plan (plan_inputs.cpp stamps
// every file listed by self_run_config_files). The rules are listed in docs/policy.md, "What
// your own configs run".

#include "filters/policy.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ws {

/// What the real tree's self-running configs run (`uses`), and every file and directory read
/// to find out (`read`: absent ones too, since creating one changes the answer).
struct SelfRunConfigs {
  std::vector<filters::ScriptUse> uses;
  std::vector<filters::ScriptNameUse> by_name; ///< pytest's conftest.py, wherever it is
  std::vector<std::filesystem::path> read;
};

/// Every project file the real tree's self-running configs name, each with what runs it:
/// - `.pre-commit-config.yaml` (`.yml`): each `repo: local` hook's `entry` and `args`;
/// - lefthook's config (`lefthook.yml`, `.lefthook.yml`, `-local` and `.json` forms): each
///   hook's `commands.*.run`, `jobs[].run`, `scripts` (the rest of lefthook is its own name);
/// - `.husky/<hook>` and the git hooks of the real repository (`hooks_dir`: core.hooksPath or
///   `.git/hooks`): each command line of the hook;
/// - `.claude/settings.json`, `.claude/settings.local.json`: hook commands, `statusLine`,
///   `apiKeyHelper` and the other helpers Claude Code runs; the MCP servers of `.mcp.json`,
///   `.vscode/mcp.json`, `.cursor/mcp.json`, `.gemini/settings.json`;
/// - `.vscode/tasks.json`: tasks run on `folderOpen`, with the tasks they depend on;
/// - `.devcontainer/devcontainer.json` (and `.devcontainer.json`, `.devcontainer/*/`): its
///   lifecycle commands (`initializeCommand` runs on the host);
/// - `.envrc`: every command line direnv runs (`source_env`, `dotenv`, `./x.sh`...).
/// A command that runs a package.json script (`npm test`, `npm run lint`, `yarn lint`, a VS
/// Code task of type npm) also names package.json (its scripts then run by themselves) and
/// what that script, its `pre` and `post` scripts, and the scripts they run in turn (at most 4
/// deep) name; `make` names the Makefile. A word names a file as in filters/command_words.hpp.
/// A config that is absent, larger than 1 MiB or does not parse names nothing (its tool
/// refuses it too). Never throws for what a file holds.
/// When a config runs pytest, every conftest.py the real index tracks is read for what it
/// imports (the index read once; `index_cache`: the workspace's gitlink cache file, beside
/// which the paths are kept for an index with the same content, gitbridge::RealRepo; empty:
/// none). rust-analyzer's Cargo projects are the top's and its direct subdirectories'.
SelfRunConfigs read_self_run_configs(const std::filesystem::path& worktree,
                                     const std::filesystem::path& hooks_dir,
                                     const std::filesystem::path& index_cache);

/// `path` (repository-relative) is named `conftest.py` (ASCII case ignored).
bool is_conftest(std::string_view path);

/// The agent's own `conftest.py` files in the view (`conftests`: path and content of each
/// present one the change set holds), when a config of the person's runs pytest (`config`'s
/// run_by_name has its "every conftest.py" rule): each conftest.py is withheld by that rule,
/// and what it imports, as pytest's `prepend` mode resolves it from its directory and the top,
/// is added to `config.run_by_configs` with the same runner and `imported by PATH`, so that
/// it does not land before the conftest.py that runs it is read and included. A path the
/// person's configs already name keeps its reason.
void add_view_conftest_imports(filters::PolicyConfig& config,
                               const std::vector<std::pair<std::string, std::string>>& conftests);

/// The same, with the hooks directory the real repository's config names
/// (gitbridge::hooks_dir_of). Throws GitError when its config cannot be read.
SelfRunConfigs read_self_run_configs(const std::filesystem::path& worktree,
                                     const std::filesystem::path& index_cache = {});

} // namespace ws
