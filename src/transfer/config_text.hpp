#pragma once

// The person's tool configs as data: YAML (libyaml), JSON with comments (nlohmann::json) and
// TOML (toml++), all into one nlohmann::json tree, so that what reads them (self_run_configs.cpp)
// asks one kind of question. Only strings matter there: every YAML scalar becomes a string.

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ws {

/// The first document of `text` as a tree: mappings become objects (keys that are not plain
/// scalars are skipped), sequences arrays, scalars strings. Bounded: at most 64 levels and
/// 100,000 nodes counted as expanded (an alias counts its whole subtree each time it is used,
/// so a "billion laughs" file stops early). nullopt for text libyaml refuses, or past a bound:
/// the tool itself would refuse such a file, or we cannot tell what it runs.
std::optional<nlohmann::json> parse_yaml(std::string_view text);

/// `text` as JSON the way VS Code and Claude Code read their settings: `//` and `/* */`
/// comments and trailing commas allowed. nullopt when it does not parse.
std::optional<nlohmann::json> parse_jsonc(std::string_view text);

/// `text` as TOML (toml++), into the same kind of tree: tables become objects, arrays arrays,
/// strings strings, numbers and booleans their text, dates left out. At most 64 levels;
/// nullopt for text toml++ refuses (the tool refuses it too) or past the bound.
std::optional<nlohmann::json> parse_toml(std::string_view text);

/// The content of the regular file at `path` (symlinks followed: it is the person's tree),
/// at most `limit` bytes; nullopt when absent, not a regular file, unreadable or larger.
std::optional<std::string> read_small_file(const std::string& path, size_t limit = 1 << 20);

} // namespace ws
