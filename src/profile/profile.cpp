// Agent profiles read from git-config text (profile.hpp): the built-in file first, then the
// person's, so a later value wins and an empty one resets a list, as git's own lists do.
#include "src/profile/profile.hpp"

#include "fuse/unique_fd.hpp"
#include "gitbridge/config_section.hpp"
#include "gitbridge/policy_config.hpp"
#include "gitbridge/repository.hpp"
#include "src/cli/error.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>

namespace ws {

namespace fs = std::filesystem;

namespace {

/// The built-in text as a file libgit2 can read (it reads config only from paths).
class BuiltinFile {
public:
  BuiltinFile() : m_fd(::memfd_create("ws-builtin-profiles", MFD_CLOEXEC)) {
    std::string_view text = builtin_profiles_text();
    if (!m_fd ||
        ::write(m_fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
      throw Error(std::string("cannot read the built-in profiles: memfd: ") + std::strerror(errno));
    }
  }
  fs::path path() const { return "/proc/self/fd/" + std::to_string(m_fd.get()); }

private:
  fuse::UniqueFd m_fd;
};

fs::path expand(const std::string& value, const fs::path& home, const std::string& what) {
  fs::path p;
  if (value == "~") {
    p = home;
  } else if (value.rfind("~/", 0) == 0) {
    p = home / value.substr(2);
  } else {
    p = value;
  }
  if (!p.is_absolute() || home.empty()) {
    throw Error(what + ": '" + value + "' is not an absolute path",
                "write it as /absolute/path or ~/path");
  }
  return p.lexically_normal();
}

bool valid_name(const std::string& name) {
  return !name.empty() && name.size() <= 64 && name != "none" && name[0] != '-' &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == '-';
         });
}

struct Raw {
  std::map<std::string, std::vector<std::string>> lists;
  std::string note;
  bool builtin = false;
  bool user = false;
};

constexpr const char* k_lists[] = {"command", "config", "seed", "env", "arg", "host", "cache"};

} // namespace

std::string Profile::default_network() const {
  if (hosts.empty()) {
    return "off";
  }
  std::string out = "allow:";
  for (size_t i = 0; i < hosts.size(); ++i) {
    out += (i ? "," : "") + hosts[i];
  }
  return out;
}

std::vector<Profile> load_profiles(const fs::path& user_config, const fs::path& home) {
  BuiltinFile builtin;
  std::vector<fs::path> files{builtin.path(), user_config};
  std::vector<gitbridge::ConfigEntry> entries;
  try {
    entries = gitbridge::load_config_section(files, "profile");
  } catch (const gitbridge::GitError& err) {
    throw Error(std::string("cannot read the agent profiles: ") + err.what(),
                "fix the [profile \"NAME\"] sections of " + user_config.string());
  }
  std::map<std::string, Raw> raw;
  for (const auto& e : entries) {
    const std::string file = e.file == 0 ? "the built-in profiles" : user_config.string();
    const std::string what = "profile." + e.subsection + "." + e.key + " in " + file;
    if (!valid_name(e.subsection)) {
      throw Error("invalid profile name '" + e.subsection + "' (" + file + ")",
                  "use letters, digits, '.', '_' and '-' (not first); 'none' is reserved");
    }
    Raw& r = raw[e.subsection];
    (e.file == 0 ? r.builtin : r.user) = true;
    if (e.key == "note") {
      r.note = e.value;
      continue;
    }
    if (std::find_if(std::begin(k_lists), std::end(k_lists),
                     [&](const char* k) { return e.key == k; }) == std::end(k_lists)) {
      throw Error("unknown key " + what,
                  "a profile knows command, config, seed, env, arg, note, host, cache "
                  "(docs/run.md, \"Profiles\")");
    }
    auto& list = r.lists[e.key];
    if (e.value.empty()) {
      list.clear(); // git's convention: an empty value resets a list
    } else {
      list.push_back(e.value);
    }
  }
  std::vector<Profile> out;
  for (auto& [name, r] : raw) {
    Profile p;
    p.name = name;
    p.origin = r.builtin && r.user ? "built in, changed in " + user_config.string()
               : r.builtin         ? "built in"
                                   : user_config.string();
    const std::string where = "profile '" + name + "'";
    p.commands = r.lists["command"];
    for (const auto& c : r.lists["config"]) {
      p.config.push_back(expand(c, home, where + ", config"));
    }
    for (const auto& s : r.lists["seed"]) {
      size_t at = s.find(" from ");
      if (at == std::string::npos) {
        throw Error(where + ", seed '" + s + "': expected 'DEST from SOURCE'",
                    "e.g. seed = ~/.claude/.claude.json from ~/.claude.json");
      }
      fs::path dest = expand(s.substr(0, at), home, where + ", seed");
      fs::path source = expand(s.substr(at + 6), home, where + ", seed");
      bool inside = std::any_of(p.config.begin(), p.config.end(), [&](const fs::path& c) {
        auto rel = dest.lexically_relative(c);
        return !rel.empty() && *rel.begin() != ".." && rel != ".";
      });
      if (!inside) {
        throw Error(where + ", seed '" + s + "': " + dest.string() +
                        " is not inside one of its config directories",
                    "a seed fills the profile's layer; name a file in a 'config' directory");
      }
      p.seeds.emplace_back(dest, source);
    }
    for (const auto& e : r.lists["env"]) {
      size_t eq = e.find('=');
      if (eq == std::string::npos || eq == 0) {
        throw Error(where + ", env '" + e + "': expected NAME=VALUE");
      }
      std::string value = e.substr(eq + 1);
      if (value == "~" || value.rfind("~/", 0) == 0) {
        value = expand(value, home, where + ", env").string();
      }
      p.env.emplace_back(e.substr(0, eq), value);
    }
    p.args = r.lists["arg"];
    p.note = r.note;
    p.hosts = r.lists["host"];
    for (const auto& c : r.lists["cache"]) {
      p.caches.push_back(expand(c, home, where + ", cache"));
    }
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<Profile> load_profiles() {
  const char* home = std::getenv("HOME");
  return load_profiles(gitbridge::default_user_config_file(), home ? fs::path(home) : fs::path());
}

std::optional<Profile> find_profile(const std::vector<Profile>& all, const std::string& name) {
  for (const auto& p : all) {
    if (p.name == name) {
      return p;
    }
  }
  return std::nullopt;
}

std::optional<Profile> profile_for_command(const std::vector<Profile>& all,
                                           const std::string& program) {
  std::string base = fs::path(program).filename().string();
  for (const auto& p : all) {
    if (std::find(p.commands.begin(), p.commands.end(), base) != p.commands.end()) {
      return p;
    }
  }
  return std::nullopt;
}

std::vector<std::string> with_profile_args(const Profile& p, std::vector<std::string> command) {
  if (!command.empty()) {
    command.insert(command.begin() + 1, p.args.begin(), p.args.end());
  }
  return command;
}

} // namespace ws
