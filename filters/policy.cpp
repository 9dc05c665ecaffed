// The transfer policy: one verdict per changed path, with a reason a person understands.
// The rules and their reason texts are documented in docs/policy.md; keep the two in step.
// The rule tables are in policy_rules.cpp, pattern matching in pattern.cpp.
#include "filters/policy.hpp"

#include "filters/pattern.hpp"
#include "filters/policy_rules.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <string_view>

namespace ws::filters {

namespace {

/// `s` made safe to show on a terminal: control bytes as C escapes (an agent chooses names and
/// symlink targets, and must not be able to move the cursor or recolour the review), and cut
/// short so the reason stays one line.
std::string shown(std::string_view s) {
  constexpr size_t k_max = 100;
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (out.size() >= k_max) {
      // Do not cut a UTF-8 sequence in half.
      while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) {
        out.pop_back();
      }
      if (!out.empty() && static_cast<unsigned char>(out.back()) >= 0xC0) {
        out.pop_back();
      }
      return out + "...";
    }
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string human_size(uint64_t n) {
  static constexpr const char* k_units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (n < 1024) {
    return std::to_string(n) + (n == 1 ? " byte" : " bytes");
  }
  int unit = 0;
  uint64_t scale = 1024;
  while (unit + 1 < 6 && n / scale >= 1024) {
    scale *= 1024;
    ++unit;
  }
  if (n % scale == 0) {
    return std::to_string(n / scale) + " " + k_units[unit];
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", static_cast<double>(n) / static_cast<double>(scale),
                k_units[unit]);
  return buf;
}

std::string basename_of(std::string_view path) {
  auto parts = split_path(path);
  return parts.empty() ? std::string() : parts.back();
}

/// "WHAT: LABEL", the label being the rule's own or the file's name.
std::string rule_reason(const NameRule& rule, std::string_view path) {
  return std::string(rule.what) + ": " + (*rule.label ? rule.label : shown(basename_of(path)));
}

/// The names a change touches: its path and, for a rename, the name it left. A rule that
/// holds for the old name holds for the change (moving a file out of .git/ or node_modules/ is
/// still a change there).
/// Each split once: every rule table is asked about each name.
struct Name {
  Name(const std::string& p, bool o) : path(p), old(o), split(p) {}
  const std::string& path;
  bool old;
  SplitPath split;
};

std::vector<Name> names_of(const PathFacts& f) {
  std::vector<Name> names;
  names.reserve(2);
  names.emplace_back(f.path, false);
  if (!f.from.empty() && f.from != f.path) {
    names.emplace_back(f.from, true);
  }
  return names;
}

std::string with_old(std::string reason, const Name& n) {
  if (n.old) {
    reason += ", renamed from '" + shown(n.path) + "'";
  }
  return reason;
}

std::optional<std::string> blocked(const PathFacts& f, const std::vector<Name>& names) {
  constexpr const char* k_never = "never transferred: ";
  if (f.workspace_own) {
    return std::string(k_never) + "the workspace's own files";
  }
  for (const Name& n : names) {
    // A path we could not write safely inside the repository: defence in depth, RelPath
    // already forbids these.
    if (n.path.empty() || n.path.front() == '/' || n.path.find('\0') != std::string::npos) {
      return with_old(std::string(k_never) + "not a path inside the project", n);
    }
    const auto& parts = n.split.parts;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (parts[i] == "." || parts[i] == "..") {
        return with_old(std::string(k_never) + "not a path inside the project", n);
      }
      if (is_dotgit(parts[i])) {
        return with_old(std::string(k_never) +
                            (i == 0 ? "inside .git/ (hooks, config)"
                                    : "a nested .git (another repository's hooks and config)"),
                        n);
      }
    }
  }
  // A submodule's contents belong to another repository; with `--index` they would even
  // replace its gitlink. Initialized or not, the real index says it is one.
  if (!f.submodule.empty()) {
    return std::string(k_never) + "inside submodule '" + shown(f.submodule) + "'";
  }
  if (f.inside_nested_repo) {
    return std::string(k_never) + "inside a nested repository or submodule";
  }
  return std::nullopt;
}

std::optional<std::string> special_file(mode_t mode) {
  if (S_ISFIFO(mode)) {
    return "FIFO";
  }
  if (S_ISSOCK(mode)) {
    return "socket";
  }
  if (S_ISCHR(mode)) {
    return "character device";
  }
  if (S_ISBLK(mode)) {
    return "block device";
  }
  return std::nullopt;
}

/// Symlinks that could make a later write or read on the person's machine land outside what
/// they reviewed. The lexical checks catch what is plain from the target alone; `symlink_reach`
/// (resolved against the view as it will be after apply) catches what only resolving shows,
/// such as `up/../../etc` where `up` is itself a link to "..".
std::optional<std::string> symlink_problem(const PathFacts& f) {
  const std::string& target = f.symlink_target;
  const std::string t = " (" + shown(target) + ")";
  if (!target.empty() && target.front() == '/') {
    return "symlink to an absolute path" + t;
  }
  auto resolved = split_path(f.path);
  if (!resolved.empty()) {
    resolved.pop_back(); // the link itself
  }
  for (const std::string& part : split_path(target)) {
    if (part == ".") {
      continue;
    }
    if (part == "..") {
      if (resolved.empty()) {
        return "symlink pointing outside the project" + t;
      }
      resolved.pop_back();
      continue;
    }
    resolved.push_back(part);
  }
  for (const std::string& part : resolved) {
    if (is_dotgit(part)) {
      return "symlink pointing into .git" + t;
    }
  }
  switch (f.symlink_reach) {
  case SymlinkReach::Inside:
    break;
  case SymlinkReach::Outside:
    return "symlink pointing outside the project" + t;
  case SymlinkReach::IntoGit:
    return "symlink pointing into .git" + t;
  case SymlinkReach::Unresolvable:
    return "symlink loop or too deep" + t;
  }
  return std::nullopt;
}

bool exec_bits(mode_t mode) {
  return (mode & (S_IXUSR | S_IXGRP | S_IXOTH)) != 0;
}

/// The real repository's core.hooksPath: git runs `<dir>/<hook>` on commit, push, checkout...
/// and a hook may run anything beside it, so everything at or below the directory counts.
/// When the directory is the top itself, only the hook names there count.
std::optional<std::string> in_hooks_path(const std::vector<Name>& names,
                                         const std::string& hooks_path) {
  if (hooks_path.empty()) {
    return std::nullopt;
  }
  for (const Name& n : names) {
    const bool hit = hooks_path == "." ? n.split.parts.size() == 1 && is_git_hook_name(n.path)
                                       : at_or_below(n.path, hooks_path, true);
    if (hit) {
      return with_old(
          "in core.hooksPath '" + shown(hooks_path) + "' (git runs these on commit, push...)", n);
    }
  }
  return std::nullopt;
}

/// An executable lands only as the person already has it: same path, executable, same bytes.
/// Anything else is new code to run, whatever the change looks like (a rename keeps nothing:
/// the facts are about the new path).
std::optional<std::string> executable(const PathFacts& f) {
  if (!S_ISREG(f.mode) || !exec_bits(f.mode) || f.real_exec_same) {
    return std::nullopt;
  }
  if (!S_ISREG(f.real_mode)) {
    return "new executable";
  }
  if (!exec_bits(f.real_mode)) {
    return "added exec bit";
  }
  return "changed executable";
}

/// The reason of the first of the person's self-running configs that runs the file at `n`
/// (ScriptUse, then ScriptNameUse).
const std::string* run_by_config(const Name& n, const PolicyConfig& config) {
  // Sorted by path: the imports a hook's scripts load can be thousands, the changes too.
  const auto& uses = config.run_by_configs;
  auto it = std::lower_bound(uses.begin(), uses.end(), n.path,
                             [](const ScriptUse& u, const std::string& p) { return u.path < p; });
  if (it != uses.end() && it->path == n.path) {
    return &it->runner;
  }
  // Found by its name below a directory (pytest's conftest.py).
  const size_t slash = n.path.rfind('/');
  const std::string_view base = slash == std::string::npos
                                    ? std::string_view(n.path)
                                    : std::string_view(n.path).substr(slash + 1);
  for (const ScriptNameUse& use : config.run_by_name) {
    const bool named = use.name.starts_with('*')
                           ? base.size() >= use.name.size() - 1 &&
                                 iequal(base.substr(base.size() - (use.name.size() - 1)),
                                        std::string_view(use.name).substr(1))
                           : iequal(base, use.name);
    if (named &&
        (use.dir.empty() || (n.path.size() > use.dir.size() + 1 && n.path.starts_with(use.dir) &&
                             n.path[use.dir.size()] == '/'))) {
      return &use.runner;
    }
  }
  return nullptr;
}

/// Withhold rules in the order a person should hear them: the most specific or dangerous
/// first (what a file is, then where it is, then what it looks like).
std::optional<std::string> withheld(const PathFacts& f, const std::vector<Name>& names,
                                    const PolicyConfig& config) {
  const bool deleted = f.type == ChangeType::Deleted;
  if (f.gitlink) {
    return "submodule pointer";
  }
  // Undoing the person's work comes first: it is what a person must never miss.
  if (!f.undoes_commit.empty()) {
    return "undoes your commit " + shown(f.undoes_commit) +
           ", which the agent's git reset or rebased away";
  }

  if (auto why = in_hooks_path(names, config.hooks_path)) {
    return why; // deletions too: removing a hook can remove a check the person relies on
  }
  for (const Name& n : names) {
    for (const ConfigFileUse& use : config.git_config_files) {
      if (n.path != use.path || use.how == "reads") {
        continue;
      }
      return with_old(use.how == "include.path"
                          ? "your git config includes it (include.path): git obeys what it says "
                            "(core.fsmonitor, aliases and filters run commands)"
                          : "your git config runs it (a command in core.fsmonitor, a filter, an "
                            "alias...): your next git command would",
                      n);
    }
  }

  // What a config of the person's runs by itself: the agent's version would run next.
  if (!deleted) {
    if (const std::string* runner = run_by_config(names.front(), config)) {
      return *runner;
    }
  }

  if (!deleted) {
    if (auto why = special_file(f.mode)) {
      return why;
    }
    if (S_ISLNK(f.mode)) {
      if (auto why = symlink_problem(f)) {
        return why;
      }
    }
  }
  for (const Name& n : names) {
    if (const PlaceRule* rule = find_place(n.split)) {
      return with_old(rule->reason, n);
    }
  }
  // Only what lands under such a name runs by itself; deleting one or renaming it away is
  // flagged (below).
  if (!deleted) {
    if (const NameRule* rule = find_rule(self_running_rules(), names.front().split)) {
      return rule_reason(*rule, f.path);
    }
  }
  if (f.in_python_env) {
    return "inside a Python virtual environment (holds pyvenv.cfg)";
  }
  for (const Name& n : names) {
    for (const std::string& pattern : config.withhold) {
      if (matches(pattern, n.path)) {
        return with_old("matches ws.withhold pattern '" + shown(pattern) + "'", n);
      }
    }
  }
  if (f.ignored) {
    return "ignored by the real repository";
  }
  if (f.restores_start) {
    return deleted ? "not tracked by the agent's git, which removed it (git clean?): kept yours"
                   : "the agent's git put back the version it started from over your edit "
                     "(git checkout, stash, reset): kept yours";
  }
  if (f.ignored_by_agent && !deleted) {
    return "ignored by a .gitignore the agent wrote";
  }
  if (deleted) {
    return std::nullopt; // deleting is safe: content, mode and type rules do not apply
  }
  if (auto why = executable(f)) {
    return why;
  }
  if (f.binary) {
    return "binary content";
  }
  if (f.recoded) {
    return "its coding line makes Python decode it (utf-7, unicode_escape...): the code that "
           "runs is not the text shown";
  }
  if (config.max_file_size > 0 && f.size > config.max_file_size) {
    return human_size(f.size) + ", larger than " + human_size(config.max_file_size) +
           " (ws.maxFileSize)";
  }
  if (config.level == PolicyConfig::Level::Strict && f.type == ChangeType::Added) {
    return "new file (ws.policy = strict)";
  }
  return std::nullopt;
}

std::optional<std::string> flagged(const PathFacts& f, const std::vector<Name>& names,
                                   const PolicyConfig& config) {
  const bool deleted = f.type == ChangeType::Deleted;
  const char* suffix = deleted ? " (deleted)" : "";
  for (const Name& n : names) {
    // A self-running file that goes away (deleted, or renamed to an ordinary name) changes
    // what runs, but lands no code.
    if (deleted || n.old) {
      if (const NameRule* rule = find_rule(self_running_rules(), n.split)) {
        return with_old(rule_reason(*rule, n.path) + suffix, n);
      }
    }
    if (deleted || n.old) {
      if (const std::string* runner = run_by_config(n, config)) {
        return with_old(*runner + suffix, n);
      }
    }
    if (const NameRule* rule = find_rule(flag_rules(), n.split)) {
      return with_old(rule_reason(*rule, n.path) + suffix, n);
    }
    for (const ConfigFileUse& use : config.git_config_files) {
      if (n.path == use.path && use.how == "reads") {
        return with_old(
            "changes what git sees: your git config reads it (" + shown(use.key) + ")" + suffix, n);
      }
    }
    for (const std::string& pattern : config.flag) {
      if (matches(pattern, n.path)) {
        return with_old("matches ws.flag pattern '" + shown(pattern) + "'" + suffix, n);
      }
    }
  }
  return std::nullopt;
}

} // namespace

Decision decide(const PathFacts& facts, const PolicyConfig& config) {
  const std::vector<Name> names = names_of(facts);
  if (auto why = blocked(facts, names)) {
    return {Verdict::Blocked, std::move(*why)};
  }
  if (auto why = withheld(facts, names, config)) {
    return {Verdict::Withheld, std::move(*why)};
  }
  if (auto why = flagged(facts, names, config)) {
    return {Verdict::Flagged, std::move(*why)};
  }
  return {Verdict::Transfer, {}};
}

std::string shown_in_reason(std::string_view s) {
  return shown(s);
}

const char* verdict_name(Verdict v) {
  switch (v) {
  case Verdict::Transfer:
    return "transfer";
  case Verdict::Flagged:
    return "FLAGGED";
  case Verdict::Withheld:
    return "WITHHELD";
  case Verdict::Blocked:
    return "BLOCKED";
  }
  return "?";
}

} // namespace ws::filters
