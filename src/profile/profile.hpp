#pragma once

// Agent profiles: what an agent CLI needs inside `ws run`, as data (git-config syntax; the
// built-in ones in builtin_profiles.config, then ~/.config/ws/config). docs/run.md,
// "Profiles".

#include "src/run/sandbox_env.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ws {

struct Profile {
  std::string name;
  std::vector<std::string> commands;         ///< program names that select it
  std::vector<std::filesystem::path> config; ///< config directories (absolute)
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> seeds; ///< dest, source
  EnvList env;                                                                ///< set for the agent
  std::vector<std::string> args;             ///< put right after the program's name
  std::string note;                          ///< said once when `args` are added
  std::vector<std::string> hosts;            ///< model API hosts it may reach
  std::vector<std::filesystem::path> caches; ///< kept per profile (absolute)
  std::string origin;                        ///< "built in", the user file, or both

  /// `--network`'s default under this profile: "allow:HOST,..." ("off" without hosts).
  std::string default_network() const;
};

/// The text of the built-in profiles (generated from builtin_profiles.config).
std::string_view builtin_profiles_text();

/// Every profile: the built-in ones changed and added to by `user_config` (may be empty or
/// missing). `~/` is expanded with `home`. Sorted by name. Throws Error for a malformed entry
/// (naming the file and key) or a bad profile name.
std::vector<Profile> load_profiles(const std::filesystem::path& user_config,
                                   const std::filesystem::path& home);

/// The profiles of this machine's person (~/.config/ws/config, $HOME).
std::vector<Profile> load_profiles();

/// The profile named `name`, or nullopt.
std::optional<Profile> find_profile(const std::vector<Profile>& all, const std::string& name);

/// The profile whose `command` is the last path component of `program`, or nullopt.
std::optional<Profile> profile_for_command(const std::vector<Profile>& all,
                                           const std::string& program);

/// The agent's command under `p`: `command` with the profile's arguments after the
/// program's name.
std::vector<std::string> with_profile_args(const Profile& p, std::vector<std::string> command);

} // namespace ws
