#pragma once

// The built-in rule tables of the transfer policy: which files a tool runs or loads, and
// how a reason names them. docs/policy.md lists every rule with the tool that runs it; keep
// the two in step.

#include <span>
#include <string_view>
#include <vector>

namespace ws::filters {

/// Places where tools, not people, put files: withheld, deletions and renames out included.
struct PlaceRule {
  const char* pattern; ///< gitignore-style, matched ignoring case
  const char* reason;
};

/// A file a tool runs or obeys. The reason reads "`what`: `label`"; an empty `label` means the
/// changed file's own name.
struct NameRule {
  const char* pattern; ///< gitignore-style, matched ignoring case; without a trailing '/' it
                       ///< names the file itself (never a directory above it)
  const char* what;
  const char* label;
};

std::span<const PlaceRule> place_rules();

/// Files that run code with no tool named by the person: Python start-up files, what direnv
/// loads on `cd`, toolchain overrides that replace the tool itself, hook managers' configs
/// that git's hooks run on commit, editor settings run when a project opens. Withheld.
std::span<const NameRule> self_running_rules();

/// Files that a tool the person runs by name executes or obeys (`make`, `pytest`, `npm
/// install`, `cmake --preset`...), and files that change what git sees. Flagged.
std::span<const NameRule> flag_rules();

/// The first place rule matching `path`, or null.
const PlaceRule* find_place(std::string_view path);
/// The first rule of `rules` matching `path`, or null.
const NameRule* find_rule(std::span<const NameRule> rules, std::string_view path);

/// A path split once for every rule table asked about it (split_path_views), holding no
/// NUL byte (`valid` false otherwise: no rule matches it, as matches_with says).
struct SplitPath {
  explicit SplitPath(std::string_view path);
  std::vector<std::string_view> parts;
  bool valid = true;
};
const PlaceRule* find_place(const SplitPath& path);
const NameRule* find_rule(std::span<const NameRule> rules, const SplitPath& path);

/// `name` is one that git runs as a hook (githooks(5)): "pre-commit", "post-checkout"...
bool is_git_hook_name(std::string_view name);

} // namespace ws::filters
