#pragma once

// The words of a command line a tool runs, and which of them name a file of the project: what
// the real git config's commands name (gitbridge/policy_config.cpp) and what the person's
// self-running configs name (a pre-commit hook's entry, a Claude Code hook, a VS Code task:
// src/transfer/self_run_configs.cpp). Pure: no I/O, never used to run anything.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ws::filters {

/// A word of a command line, and whether it stands where the shell looks up a command (the
/// first word of a command: found on PATH unless it holds a '/').
struct CommandWord {
  std::string text;
  bool command = false;
};

/// Words of a command line as the shell would split it, roughly: whitespace-separated, quotes
/// removed, `;`, `|`, `&`, `(`, `)` and backquotes starting a new command, a newline too. A
/// quoted word holding blanks (`sh -c 'python3 tools/x.py'`) is split again, as the command
/// line it is (at most 4 deep).
void command_words(std::string_view line, std::vector<CommandWord>& words, int depth = 0);

/// A word naming a file of the project the command runs or reads: one holding a '/'
/// (`tools/fsmon.sh`, `./clean`), or an argument that looks like a file name (`python3
/// clean.py`, `sh st.sh`: a '.' in it, so that `git-lfs filter-process` or `--timeout 3600`
/// name none). Not the command itself without a '/' (PATH finds it), not an option, not a
/// variable or an assignment.
bool names_a_file(const CommandWord& w);

/// `word` as a path of the project, repository-relative and '/'-separated, when it names one:
/// relative to `dir` (the directory the command runs in, repository-relative, "" for the top),
/// `./` and `..` taken lexically, or absolute under `top` (the worktree's absolute path), or
/// starting with a variable the tool sets to the project's top (`$CLAUDE_PROJECT_DIR/`,
/// `${workspaceFolder}/`, `$PWD/`...). nullopt for a path outside, `~`, another variable, a
/// glob, or the top itself.
std::optional<std::string> project_path_of(std::string_view word, std::string_view dir,
                                           std::string_view top);

} // namespace ws::filters
