#pragma once

// Verdicts for what an agent changed in its own config layer (src/profile, `ws profile
// diff`): the same verdicts as the transfer's, for the question "what would this do if it
// reached your real config, where the CLI runs unconfined?". Pure: no I/O. The rules are
// listed in docs/run.md, "ws profile diff"; keep the two in step.

#include "filters/policy.hpp"

#include <sys/types.h>

#include <string>
#include <vector>

namespace ws::filters {

/// One changed path of a config layer.
struct ConfigChangeFacts {
  ChangeType type = ChangeType::Modified;
  std::string path;            ///< relative to the config directory: "settings.json", "hooks/x.sh"
  mode_t mode = 0;             ///< st_mode in the layer; 0 for Deleted
  mode_t real_mode = 0;        ///< st_mode of the real config's file at `path` (0 if none)
  bool real_exec_same = false; ///< the real config has this executable, byte for byte
  /// For settings files (JSON, TOML): the keys whose value the change adds, alters or
  /// removes, each as its path of object keys ({"hooks", "SessionStart"}, {"projects",
  /// "/p", "mcpServers", "x"}). Empty for other files.
  std::vector<std::vector<std::string>> keys;
  bool unreadable = false; ///< a settings file whose content could not be parsed
};

/// The one verdict for a changed config path, with its reason: WITHHELD for what runs code
/// (hooks, MCP servers, commands settings name, plugins, executables), FLAGGED for what
/// loosens permissions or instructs every later session, Transfer for the rest (logins,
/// transcripts, history, caches).
Decision decide_config_change(const ConfigChangeFacts& facts);

} // namespace ws::filters
