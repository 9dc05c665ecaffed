// Facts about a config layer's changes (config_facts.hpp): which settings keys a change
// touches, read with nlohmann::json (JSON) and a line reader for TOML's tables and keys.
#include "src/profile/config_facts.hpp"

#include "fuse/unique_fd.hpp"
#include "src/transfer/transfer_plan.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

namespace ws {

namespace fs = std::filesystem;

namespace {

using Flat = std::map<std::vector<std::string>, std::string>;

/// Every leaf of `j` by its path of object keys; arrays are leaves (a changed list is one
/// change of its key).
void flatten(const nlohmann::json& j, std::vector<std::string>& at, Flat& out) {
  if (j.is_object() && !j.empty()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      at.push_back(it.key());
      flatten(it.value(), at, out);
      at.pop_back();
    }
    return;
  }
  out[at] = j.dump();
}

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r");
  size_t b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

/// "a.\"b.c\".d" -> {a, b.c, d}: TOML's dotted keys, bare or quoted.
std::vector<std::string> dotted(const std::string& text) {
  std::vector<std::string> parts;
  std::string cur;
  char quote = 0;
  for (char c : text) {
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else {
        cur += c;
      }
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '.') {
      parts.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(trim(cur));
  return parts;
}

/// TOML as table headers and `key = value` lines: enough to know which keys a change
/// touches (an inline table is one value of its key). A value spanning lines counts by its
/// first line; a line that is neither is kept as text under the current table, so a change
/// there still names the table.
Flat flatten_toml(const std::string& text) {
  Flat out;
  std::vector<std::string> table;
  std::istringstream in(text);
  std::string line;
  size_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    std::string t = trim(line);
    if (t.empty() || t[0] == '#') {
      continue;
    }
    if (t[0] == '[') {
      std::string inner = t.substr(t.rfind('[') + 1);
      inner = inner.substr(0, inner.find(']'));
      table = dotted(inner);
      out[table] += "[table]";
      continue;
    }
    size_t eq = t.find('=');
    std::vector<std::string> key = table;
    if (eq != std::string::npos) {
      for (auto& k : dotted(t.substr(0, eq))) {
        key.push_back(k);
      }
      out[key] = trim(t.substr(eq + 1));
    } else {
      key.push_back("#" + std::to_string(n));
      out[key] = t;
    }
  }
  return out;
}

/// Settings files are small; anything past this is not one a CLI would read.
constexpr off_t k_max_settings = 16 * 1024 * 1024;

/// The content of the regular file `p`, never through a symlink and never blocking on a FIFO
/// the agent left in its layer; nullopt when it is none (or too large to be settings).
std::optional<std::string> read_file(const fs::path& p) {
  fuse::UniqueFd fd(::open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > k_max_settings) {
    return std::nullopt;
  }
  std::string out;
  char buf[65536];
  ssize_t n;
  while ((n = ::read(fd.get(), buf, sizeof buf)) > 0) {
    out.append(buf, static_cast<size_t>(n));
  }
  return n < 0 ? std::nullopt : std::optional<std::string>(out);
}

/// The files a CLI reads its settings from lie at the top of its directory (settings.json,
/// .claude.json, config.toml); deeper JSON is its data (transcripts, telemetry, caches).
bool is_settings(const std::string& path, bool& toml) {
  if (path.find('/') != std::string::npos) {
    return false;
  }
  std::string ext = fs::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), ::tolower);
  toml = ext == ".toml";
  return toml || ext == ".json";
}

} // namespace

std::vector<std::vector<std::string>>
changed_settings_keys(const std::optional<std::string>& before,
                      const std::optional<std::string>& after, bool toml, bool& unreadable) {
  auto flat = [&](const std::optional<std::string>& text, bool& bad) {
    Flat out;
    if (!text) {
      return out;
    }
    if (toml) {
      return flatten_toml(*text);
    }
    nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
    if (j.is_discarded()) {
      bad = true;
      return out;
    }
    std::vector<std::string> at;
    flatten(j, at, out);
    return out;
  };
  bool old_bad = false;
  unreadable = false;
  Flat a = flat(before, old_bad);
  Flat b = flat(after, unreadable);
  std::vector<std::vector<std::string>> keys;
  for (const auto& [k, v] : b) {
    auto it = a.find(k);
    if (it == a.end() || it->second != v) {
      keys.push_back(k);
    }
  }
  for (const auto& [k, v] : a) {
    if (!b.count(k)) {
      keys.push_back(k); // a removed deny rule loosens as much as an added allow rule
    }
  }
  return keys;
}

std::vector<ConfigChange> profile_changes(const Profile& p) {
  std::vector<ConfigChange> out;
  for (const auto& layer : config_layers(p)) {
    if (!layer.ws.exists()) {
      continue;
    }
    for (auto& c : fuse::compute_changes(layer.ws.repo, layer.ws.layout)) {
      filters::ConfigChangeFacts f;
      f.type = change_type(c.kind);
      f.path = c.path;
      f.mode = c.mode;
      fs::path real = layer.target / c.path;
      for (const auto& [dest, source] : p.seeds) {
        if (dest == real) {
          real = source; // what the layer started from
        }
      }
      fs::path mine = layer.ws.layout.upper() / c.path;
      struct stat st {};
      if (::lstat(real.c_str(), &st) == 0) {
        f.real_mode = st.st_mode;
      }
      if (S_ISREG(f.mode) && S_ISREG(f.real_mode) && (f.real_mode & 0111) && (f.mode & 0111)) {
        f.real_exec_same = read_file(real) == read_file(mine);
      }
      bool toml = false;
      if (is_settings(c.path, toml) && (S_ISREG(f.mode) || c.kind == fuse::ChangeKind::Deleted)) {
        std::optional<std::string> before = read_file(real);
        std::optional<std::string> after =
            c.kind == fuse::ChangeKind::Deleted ? std::nullopt : read_file(mine);
        f.keys = changed_settings_keys(before, after, toml, f.unreadable);
        f.unreadable = f.unreadable || (!after && c.kind != fuse::ChangeKind::Deleted);
      }
      out.push_back({layer.target, std::move(c), filters::decide_config_change(f)});
    }
  }
  return out;
}

} // namespace ws
