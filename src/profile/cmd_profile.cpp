// ws profile list | show NAME | diff NAME | reset NAME [PATH...] | umount [NAME] (docs/run.md,
// "Profiles").
#include "src/profile/cmd_profile.hpp"

#include "fuse/meta_store.hpp"
#include "src/cli/error.hpp"
#include "src/cli/text.hpp"
#include "src/daemon/daemon.hpp"
#include "src/profile/config_facts.hpp"
#include "src/profile/profile.hpp"
#include "src/profile/profile_layer.hpp"
#include "src/workspace/workspace_edit.hpp"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

namespace ws {

namespace fs = std::filesystem;

namespace {

/// `p` with the home written as ~ (as the person wrote it).
std::string tilde(const fs::path& p) {
  const char* home = std::getenv("HOME");
  if (home && *home) {
    fs::path rel = p.lexically_relative(home);
    if (!rel.empty() && *rel.begin() != "..") {
      return rel == "." ? "~" : "~/" + rel.string();
    }
  }
  return p.string();
}

std::string joined(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string out;
  for (const auto& s : v) {
    out += (out.empty() ? "" : sep) + s;
  }
  return out;
}

std::string joined_paths(const std::vector<fs::path>& v) {
  std::vector<std::string> s;
  for (const auto& p : v) {
    s.push_back(tilde(p));
  }
  return joined(s);
}

Profile named(const std::string& name) {
  std::vector<Profile> all = load_profiles();
  if (auto p = find_profile(all, name)) {
    return *p;
  }
  std::vector<std::string> names;
  for (const auto& p : all) {
    names.push_back(p.name);
  }
  throw Error("no profile '" + name + "'",
              "the profiles: " + joined(names) +
                  " (ws profile list; add one in ~/.config/ws/config)");
}

int list() {
  for (const auto& p : load_profiles()) {
    size_t changes = 0, held = 0;
    for (const auto& c : profile_changes(p)) {
      ++changes;
      held += c.decision.verdict == filters::Verdict::Withheld ? 1 : 0;
    }
    std::printf("%-10s command %s; config %s; network %s; layer: %zu change%s", p.name.c_str(),
                p.commands.empty() ? "-" : joined(p.commands).c_str(),
                p.config.empty() ? "-" : joined_paths(p.config).c_str(),
                p.default_network().c_str(), changes, changes == 1 ? "" : "s");
    if (held) {
      std::printf(" (%zu WITHHELD)", held);
    }
    std::printf("%s\n", p.origin == "built in" ? "" : ("  [" + p.origin + "]").c_str());
  }
  return 0;
}

int show(const std::string& name) {
  Profile p = named(name);
  std::printf("profile %s (%s)\n", p.name.c_str(), p.origin.c_str());
  std::printf("  command  %s\n", p.commands.empty() ? "-" : joined(p.commands).c_str());
  for (const auto& l : config_layers(p)) {
    bool mounted = probe_view(l.ws).state == ViewState::Mounted;
    std::printf("  config   %s: copy-on-write, layer %s%s%s\n", tilde(l.target).c_str(),
                tilde(l.ws.layout.upper()).c_str(), mounted ? " (mounted)" : "",
                l.ws.repo == l.target ? "" : " (you have no such directory: it starts empty)");
  }
  for (const auto& [dest, source] : p.seeds) {
    std::printf("  seed     %s from %s (copied in once)\n", tilde(dest).c_str(),
                tilde(source).c_str());
  }
  for (const auto& [k, v] : p.env) {
    std::printf("  env      %s=%s\n", k.c_str(), v.c_str());
  }
  if (!p.args.empty()) {
    std::printf("  args     %s (after %s)\n", joined(p.args, " ").c_str(),
                p.commands.empty() ? "the program" : p.commands.front().c_str());
  }
  if (!p.note.empty()) {
    std::printf("  note     %s\n", p.note.c_str());
  }
  std::printf("  network  %s (the default of --network under this profile)\n",
              p.default_network().c_str());
  for (const auto& c : p.caches) {
    std::printf("  cache    %s, kept in %s\n", tilde(c).c_str(), tilde(cache_dir(p, c)).c_str());
  }
  return 0;
}

/// The directory a long list folds into: the first two components of a deeper path.
std::string fold_dir(const std::string& path) {
  size_t first = path.find('/');
  size_t second = first == std::string::npos ? first : path.find('/', first + 1);
  return second == std::string::npos ? path : path.substr(0, second);
}

int diff(const std::string& name, bool json, bool all) {
  Profile p = named(name);
  std::vector<ConfigChange> changes = profile_changes(p);
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& c : changes) {
      out.push_back({{"dir", c.target.string()},
                     {"path", c.change.path},
                     {"from", c.change.from},
                     {"status", std::string(1, static_cast<char>(c.change.kind))},
                     {"verdict", filters::verdict_name(c.decision.verdict)},
                     {"reason", c.decision.reason}});
    }
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  if (changes.empty()) {
    std::printf("profile '%s': no changes in its config layer\n", p.name.c_str());
    return 0;
  }
  // What runs code first, then what loosens or instructs; the rest (logins, transcripts,
  // history) only with --all, so the report fits a screen.
  size_t counts[4] = {};
  std::set<std::string> folded;
  for (auto verdict :
       {filters::Verdict::Withheld, filters::Verdict::Flagged, filters::Verdict::Transfer}) {
    for (const auto& c : changes) {
      if (c.decision.verdict != verdict) {
        continue;
      }
      counts[static_cast<int>(verdict)] += 1;
      if (verdict == filters::Verdict::Transfer && !all) {
        continue;
      }
      // Many files under one directory with one reason (a CLI's bundled skills): one line.
      std::string dir = fold_dir(c.change.path);
      size_t same = 0;
      for (const auto& d : changes) {
        same += d.target == c.target && d.decision.verdict == verdict &&
                        d.decision.reason == c.decision.reason && fold_dir(d.change.path) == dir
                    ? 1
                    : 0;
      }
      if (same > 3 && !all) {
        std::string key = c.target.string() + "/" + dir + "\n" + c.decision.reason;
        if (!folded.insert(key).second) {
          continue;
        }
        std::printf("  %s/ (%zu files)\n       %s: %s\n", quote_path(tilde(c.target / dir)).c_str(),
                    same, filters::verdict_name(verdict), visible_text(c.decision.reason).c_str());
        continue;
      }
      std::string shown = quote_path(tilde(c.target / c.change.path));
      if (verdict == filters::Verdict::Transfer) {
        std::printf("  %c  %s\n", static_cast<char>(c.change.kind), shown.c_str());
      } else {
        std::printf("  %c  %s\n       %s: %s\n", static_cast<char>(c.change.kind), shown.c_str(),
                    filters::verdict_name(verdict), visible_text(c.decision.reason).c_str());
      }
    }
  }
  size_t held = counts[static_cast<int>(filters::Verdict::Withheld)];
  size_t flagged = counts[static_cast<int>(filters::Verdict::Flagged)];
  size_t other = counts[static_cast<int>(filters::Verdict::Transfer)];
  std::printf("profile '%s': %zu WITHHELD (runs code), %zu FLAGGED, %zu other change%s%s in its "
              "layer; your real config is untouched. Throw away: ws profile reset %s [PATH]\n",
              p.name.c_str(), held, flagged, other, other == 1 ? "" : "s",
              all || other == 0 ? "" : " (--all lists them)", p.name.c_str());
  return 0;
}

int reset(const std::string& name, const std::vector<std::string>& paths) {
  Profile p = named(name);
  std::vector<ConfigLayer> layers = config_layers(p);
  // Each path to its layer: absolute (or ~/), or relative to the only config directory.
  std::map<std::string, std::vector<std::string>> per_layer; // layer dir -> relative paths
  std::map<std::string, bool> whole;
  for (const auto& raw : paths) {
    fs::path path = raw;
    if (raw == "~" || raw.rfind("~/", 0) == 0) {
      const char* home = std::getenv("HOME");
      path = fs::path(home ? home : "") / raw.substr(raw.size() > 1 ? 2 : 1);
    } else if (path.is_relative()) {
      if (p.config.size() != 1) {
        throw Error("ws profile reset " + name + " " + raw +
                        ": which config directory? the profile has " +
                        std::to_string(p.config.size()),
                    "name the path in full: " + joined_paths(p.config));
      }
      path = p.config.front() / path;
    }
    auto [layer, rel] = layer_of(p, path);
    if (rel.empty()) {
      whole[layer.ws.layout.dir.string()] = true;
    } else {
      per_layer[layer.ws.layout.dir.string()].push_back(rel);
    }
  }
  size_t dropped = 0;
  for (const auto& l : layers) {
    if (!l.ws.exists()) {
      continue;
    }
    const std::string key = l.ws.layout.dir.string();
    bool all = paths.empty() || whole[key];
    if (!all && !per_layer.count(key)) {
      continue;
    }
    std::vector<fuse::Change> changes = fuse::compute_changes(l.ws.repo, l.ws.layout);
    std::vector<std::string> drop;
    for (const auto& c : changes) {
      bool hit = all;
      for (const auto& rel : per_layer[key]) {
        hit = hit || fuse::path_within(c.path, rel) ||
              (!c.from.empty() && fuse::path_within(c.from, rel));
      }
      if (hit) {
        std::printf("%c %s\n", static_cast<char>(c.kind),
                    quote_path(tilde(l.target / c.path)).c_str());
        drop.push_back(c.path);
        if (!c.from.empty()) {
          drop.push_back(c.from);
        }
        ++dropped;
      }
    }
    if (!all) {
      for (const auto& rel : per_layer[key]) {
        drop.push_back(rel);
      }
    }
    if (all || !drop.empty()) {
      checkpoint_and_drop(l.ws, all ? std::nullopt : std::optional<std::vector<std::string>>(drop),
                          "ws profile reset");
    }
  }
  if (dropped == 0) {
    std::printf("profile '%s': nothing to reset\n", p.name.c_str());
  }
  return 0;
}

/// The layers stay mounted after a session (for the next one's start); this ends them.
int umount(const std::string& name) {
  std::vector<Profile> profiles;
  if (name.empty()) {
    profiles = load_profiles();
  } else {
    profiles.push_back(named(name));
  }
  // Every profile it can, then the first that could not be (one in use by a session).
  std::optional<Error> failed;
  for (const auto& p : profiles) {
    try {
      if (unmount_layers(p)) {
        std::printf("profile '%s': config layer unmounted\n", p.name.c_str());
      }
    } catch (const Error& e) {
      if (!failed) {
        failed = e;
      }
    }
  }
  if (failed) {
    throw *failed;
  }
  return 0;
}

} // namespace

int cmd_profile(const ProfileOptions& o) {
  if (o.action == "list") {
    return list();
  }
  if (o.action == "show") {
    return show(o.name);
  }
  if (o.action == "diff") {
    return diff(o.name, o.json, o.all);
  }
  if (o.action == "reset") {
    return reset(o.name, o.paths);
  }
  if (o.action == "umount") {
    return umount(o.name);
  }
  throw Error("ws profile: unknown action '" + o.action + "'", "ws profile --help");
}

int print_profile_names() {
  try {
    for (const Profile& p : load_profiles()) {
      std::printf("%s\n", p.name.c_str());
    }
  } catch (const std::exception&) {
    // a malformed ~/.config/ws/config: nothing to complete ('ws profile list' says why)
  }
  return 0;
}

} // namespace ws
