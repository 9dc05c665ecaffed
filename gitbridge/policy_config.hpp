#pragma once

#include "filters/policy.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ws::gitbridge {

/// Where the person's own ws settings live: `$XDG_CONFIG_HOME/ws/config` when
/// XDG_CONFIG_HOME is set to an absolute path, else `$HOME/.config/ws/config`; empty when
/// neither variable says where home is.
std::filesystem::path default_user_config_file();

/// The transfer policy settings from the `[ws]` section of the real repository's config
/// (`real_git_dir`/config, which wins) and of `user_config_file` (skipped when empty). Either
/// file may be missing. Read with libgit2, so the syntax, includes and integer suffixes are
/// git's. For a linked worktree pass the common git directory, where `config` lives.
///
/// - `ws.policy`: `default` or `strict`.
/// - `ws.maxFileSize`: bytes, with git's `k`/`m`/`g` suffixes; 0 means no limit.
/// - `ws.withhold`, `ws.flag`: patterns, collected from both files (the user file's first); an
///   empty value drops those collected so far, as git does for `credential.helper`.
///
/// Needs a live LibGit2. Throws GitError naming the file and key for unreadable files, bad
/// syntax and bad values.
filters::PolicyConfig load_policy_config(const std::filesystem::path& real_git_dir,
                                         const std::filesystem::path& user_config_file);

/// The size `key` (e.g. "ws.maxDisk") in the same two files, the repository's winning:
/// bytes, with git's `k`/`m`/`g` suffixes (powers of 1024); nullopt when neither sets it.
/// Throws GitError naming the file and key for a value that is not a size, or is negative.
std::optional<uint64_t> load_config_size(const std::filesystem::path& real_git_dir,
                                         const std::filesystem::path& user_config_file,
                                         const char* key);

/// The count `key` (e.g. "ws.checkpointKeep") in the same two files, the repository's
/// winning; nullopt when neither sets it. Throws GitError naming the file and key for a value
/// that is not a whole number, or is negative.
std::optional<uint64_t> load_config_count(const std::filesystem::path& real_git_dir,
                                          const std::filesystem::path& user_config_file,
                                          const char* key);

/// Every value of the multi-valued `key` (e.g. "ws.writable") in the same two files, the
/// user file's first; an empty value resets the list. Throws GitError like the above.
std::vector<std::string> load_config_list(const std::filesystem::path& real_git_dir,
                                          const std::filesystem::path& user_config_file,
                                          const char* key);

/// The REAL repository's `core.hooksPath` when it lies inside `worktree`: repository-relative,
/// '/'-separated, without a trailing '/' ("." when it is the top itself); nullopt when unset,
/// empty or outside. Read from every config level, as git reads it (system, global, the
/// repository's); resolved as git does: relative to the top of the worktree (where hooks
/// run), with `~/` and `~user/` expanded; symlinks resolved, so the answer names where the
/// agent's writes would land. Needs a live LibGit2; throws GitError when `worktree` is not a
/// readable repository or its config is broken.
std::optional<std::string> hooks_dir_inside(const std::filesystem::path& worktree);

/// The directory git runs the REAL repository's hooks from: `core.hooksPath` (every level,
/// relative to the top of the worktree, `~` expanded), else `hooks` in the common git
/// directory. Empty when the home directory a `~` names is unknown. Throws GitError like
/// hooks_dir_inside.
std::filesystem::path hooks_dir_of(const std::filesystem::path& worktree);

/// Files inside `worktree` that the REAL repository's config (every level) makes git obey or
/// run: included config files (`include.path`, `includeIf.*.path`: core.fsmonitor, aliases
/// and filters in them run commands), and files named by a command git runs
/// (`core.fsmonitor`, `filter.*.clean`, `alias.*`, `core.pager`...). Repository-relative,
/// '/'-separated. Resolved like hooks_dir_inside; throws GitError the same way.
std::vector<filters::ConfigFileUse> config_files_inside(const std::filesystem::path& worktree);

/// Both of the above into `config` (hooks_path, git_config_files), from one open of the
/// repository and one read of its config.
void load_worktree_config(const std::filesystem::path& worktree, filters::PolicyConfig& config);

} // namespace ws::gitbridge
