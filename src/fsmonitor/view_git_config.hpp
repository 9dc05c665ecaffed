#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace ws {

/// The hook git runs for core.fsmonitor in a view: `ws-fsmonitor` beside the running ws
/// binary (docs/fsmonitor.md). Empty when it is not there (a ws built without it).
std::filesystem::path fsmonitor_hook_program();

/// The git config entries ws sets for a view (the workspace's private git config): git asks
/// the daemon what changed (core.fsmonitor) and keeps its untracked-files cache
/// (core.untrackedCache), so `git status` costs O(changes). `hook`: fsmonitor_hook_program();
/// none when it is empty.
std::vector<std::pair<std::string, std::string>> view_git_config(const std::filesystem::path& hook);

} // namespace ws
