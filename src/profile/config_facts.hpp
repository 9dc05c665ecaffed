#pragma once

// What an agent changed in a profile's config layer, with a verdict per path (ws profile
// diff, the end-of-session summary). Facts come from the layer and the real directory.

#include "filters/agent_config.hpp"
#include "fuse/changes.hpp"
#include "src/profile/profile_layer.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ws {

struct ConfigChange {
  std::filesystem::path target; ///< the config directory
  fuse::Change change;          ///< path relative to it
  filters::Decision decision;
};

/// Every change of every layer of `p`, sorted by directory then path. Needs no mount.
std::vector<ConfigChange> profile_changes(const Profile& p);

/// The keys a settings file's change touches (ConfigChangeFacts::keys): `before` and
/// `after` are its texts (nullopt: no file), `toml` picks the syntax (else JSON). Sets
/// `unreadable` when `after` does not parse.
std::vector<std::vector<std::string>>
changed_settings_keys(const std::optional<std::string>& before,
                      const std::optional<std::string>& after, bool toml, bool& unreadable);

} // namespace ws
