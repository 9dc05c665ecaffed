#pragma once

// What `ws run` asks of profiles (docs/run.md, "Profiles"): which one a session runs under,
// where its arguments go, what --writable must not name, and the config it left that runs
// code.

#include "src/profile/profile.hpp"

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ws {

/// The profile of a session: `name` ("none": none; empty: the one whose command the agent's
/// program is). `by_name` (`ws run NAME -- ARGS`): the profile's program goes first into
/// `command`. Throws Error naming the profiles for an unknown name.
std::optional<Profile> pick_profile(const std::string& name, bool by_name,
                                    std::vector<std::string>& command);

/// The profile's arguments go after its own program only (not after a wrapper's name).
bool profile_takes(const Profile& p, const std::vector<std::string>& command);

/// Throws Error when `path` (`--writable raw`) is at or inside a config directory of `p`:
/// the layer would hide it, and it would mean the real directory.
void check_not_in_layer(const Profile& p, const std::filesystem::path& path,
                        const std::string& raw);

/// The layer's changes that run code (WITHHELD), as "dir/path: reason".
std::set<std::string> runs_code(const Profile& p);

/// The end-of-session lines for config the agent added that runs code (not in `before`).
void report_new_config(const Profile& p, const std::set<std::string>& before);

} // namespace ws
