// Profiles in `ws run` (session_profile.hpp).
#include "src/profile/session_profile.hpp"

#include "src/cli/error.hpp"
#include "src/cli/text.hpp"
#include "src/profile/config_facts.hpp"

#include <algorithm>
#include <cstdio>

namespace ws {

namespace fs = std::filesystem;

/// The profile of a session: --profile NAME (or none), else the one whose command the
/// agent's program is. `ws run NAME -- ARGS` puts the profile's program before ARGS.
std::optional<Profile> pick_profile(const std::string& name, bool by_name,
                                    std::vector<std::string>& command) {
  if (name == "none") {
    return std::nullopt;
  }
  std::vector<Profile> all = load_profiles();
  std::optional<Profile> p;
  if (!name.empty()) {
    p = find_profile(all, name);
    if (!p) {
      std::string names;
      for (const auto& q : all) {
        names += (names.empty() ? "" : ", ") + q.name;
      }
      throw Error("no profile '" + name + "'",
                  "the profiles: " + names + " (ws profile list); --profile=none runs without" +
                      (by_name ? "; a command goes after '--': ws run -- " + name : std::string()));
    }
    if (by_name) {
      if (p->commands.empty()) {
        throw Error("profile '" + p->name + "' names no command",
                    "ws run --profile=" + p->name + " -- COMMAND [ARGS...]");
      }
      command.insert(command.begin(), p->commands.front());
    }
  } else if (!command.empty()) {
    p = profile_for_command(all, command.front());
  }
  return p;
}

/// The profile's arguments go after its own program only (not after a wrapper's name).
bool profile_takes(const Profile& p, const std::vector<std::string>& command) {
  if (command.empty()) {
    return false;
  }
  std::string base = fs::path(command.front()).filename().string();
  return std::find(p.commands.begin(), p.commands.end(), base) != p.commands.end();
}

/// --writable inside a config layer would be hidden by it (and mean the real directory).
void check_not_in_layer(const Profile& p, const fs::path& path, const std::string& raw) {
  for (const auto& dir : p.config) {
    fs::path rel = path.lexically_relative(dir);
    if (!rel.empty() && *rel.begin() != "..") {
      throw Error("--writable " + raw + ": profile '" + p.name + "' shows its config layer at " +
                      dir.string() + " (copy-on-write: your real directory is never written)",
                  "leave --writable out (the layer keeps what the agent writes there), or run "
                  "with --profile=none");
    }
  }
}

/// The layer's changes that run code (WITHHELD), as "dir/path: reason".
std::set<std::string> runs_code(const Profile& p) {
  std::set<std::string> out;
  try {
    for (const auto& c : profile_changes(p)) {
      if (c.decision.verdict == filters::Verdict::Withheld) {
        out.insert((c.target / c.change.path).string() + ": " + c.decision.reason);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ws: warning: cannot read profile '%s''s layer: %s\n", p.name.c_str(),
                 e.what());
  }
  return out;
}

/// The end-of-session summary's lines for config the agent added that runs code.
void report_new_config(const Profile& p, const std::set<std::string>& before) {
  std::set<std::string> now = runs_code(p);
  size_t shown = 0;
  for (const auto& line : now) {
    if (!before.count(line)) {
      if (shown++ == 0) {
        std::fprintf(stderr,
                     "ws: the agent changed its own config in profile '%s' (its layer only: your "
                     "real config is untouched). New there, and it runs code:\n",
                     p.name.c_str());
      }
      std::fprintf(stderr, "  WITHHELD  %s\n", visible_text(line).c_str());
    }
  }
  if (shown) {
    std::fprintf(stderr, "review: ws profile diff %s    throw away: ws profile reset %s\n",
                 p.name.c_str(), p.name.c_str());
  }
}

} // namespace ws
