// The transfer policy: one verdict per changed path, with a reason a person understands.
// The rules and their reason texts are documented in docs/policy.md; keep the two in step.
#include "filters/policy.hpp"

#include <fnmatch.h>
#include <sys/stat.h>

#include <cstdio>
#include <string_view>

namespace ws::filters {

namespace {

using Parts = std::vector<std::string>;

/// The '/'-separated components of `path`; empty components ("a//b", a trailing '/') are
/// dropped, so callers never see them.
Parts split(std::string_view path) {
  Parts parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) {
      end = path.size();
    }
    if (end > start) {
      parts.emplace_back(path.substr(start, end - start));
    }
    start = end + 1;
  }
  return parts;
}

char ascii_lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (size_t i = 0; i < a.size(); ++i) {
    if (ascii_lower(a[i]) != ascii_lower(b[i])) {
      return false;
    }
  }
  return true;
}

/// True for a name that is, or that some filesystem treats as, `.git`. Case-insensitive
/// filesystems fold ".GIT" into ".git"; NTFS drops trailing dots and spaces and knows the 8.3
/// name "git~1". git itself refuses all of these (verify_path), so blocking them costs nothing.
bool is_dotgit(std::string_view name) {
  while (!name.empty() && (name.back() == '.' || name.back() == ' ')) {
    name.remove_suffix(1);
  }
  return iequal(name, ".git") || iequal(name, "git~1");
}

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

// --- gitignore-style patterns ---------------------------------------------------------------

struct Pattern {
  Parts parts;           ///< components; "**" spans any number of directories
  bool dir_only = false; ///< matches a directory, so only paths strictly below it
  bool all = false;      ///< "**" or "/**" alone: everything
};

std::optional<Pattern> compile(std::string_view text) {
  Pattern p;
  while (!text.empty() && text.back() == '/') {
    p.dir_only = true;
    text.remove_suffix(1);
  }
  // As in gitignore: a '/' anywhere but at the end anchors the pattern at the top.
  const bool anchored = text.find('/') != std::string_view::npos;
  Parts raw = split(text);
  if (raw.empty()) {
    return std::nullopt; // "", "/": nothing to match
  }
  if (!anchored) {
    p.parts.emplace_back("**");
  }
  for (auto& part : raw) {
    if (part == "**" && !p.parts.empty() && p.parts.back() == "**") {
      continue; // "a/**/**/b" is "a/**/b"; collapsing keeps the search linear
    }
    p.parts.push_back(std::move(part));
  }
  // "dir/**" is everything inside dir, but not dir itself.
  if (p.parts.back() == "**") {
    p.parts.pop_back();
    p.dir_only = true;
    p.all = p.parts.empty();
  }
  return p;
}

/// Does pat[i..] match path[j..end)? Each component goes to fnmatch(3) on its own: components
/// hold no '/', so this is FNM_PATHNAME matching of the whole, with "**" (which fnmatch does
/// not know) spanning whole components.
bool match_parts(const Parts& pat, size_t i, const Parts& path, size_t j, size_t end, int flags) {
  if (i == pat.size()) {
    return j == end;
  }
  if (pat[i] == "**") {
    for (size_t k = j; k <= end; ++k) {
      if (match_parts(pat, i + 1, path, k, end, flags)) {
        return true;
      }
    }
    return false;
  }
  return j < end && ::fnmatch(pat[i].c_str(), path[j].c_str(), flags | FNM_PATHNAME) == 0 &&
         match_parts(pat, i + 1, path, j + 1, end, flags);
}

/// A pattern names a file or a directory; naming a directory takes everything below it, so
/// try each leading run of components (the last one only for non-directory patterns).
bool matches_parts(const Pattern& p, const Parts& path, int flags) {
  if (path.empty() || p.all) {
    return !path.empty();
  }
  const size_t last = p.dir_only ? path.size() - 1 : path.size();
  for (size_t end = 1; end <= last; ++end) {
    if (match_parts(p.parts, 0, path, 0, end, flags)) {
      return true;
    }
  }
  return false;
}

bool matches_with(std::string_view pattern, std::string_view path, int flags) {
  if (path.find('\0') != std::string_view::npos || pattern.find('\0') != std::string_view::npos) {
    return false; // fnmatch would see a shorter string than the one we were given
  }
  auto p = compile(pattern);
  return p && matches_parts(*p, split(path), flags);
}

// --- the rules -------------------------------------------------------------------------------

/// Places where tools, not people, put files: withheld, deletions included. Matched without
/// regard to case, so a case-insensitive filesystem cannot slip "Node_Modules/" past us.
struct PlaceRule {
  const char* pattern;
  const char* reason;
};
constexpr PlaceRule k_places[] = {
    {".venv/", "under .venv/ (a Python virtual environment)"},
    {"venv/", "under venv/ (a Python virtual environment)"},
    {"pyvenv.cfg", "pyvenv.cfg (marks a Python virtual environment)"},
    {"node_modules/", "under node_modules/"},
    {"__pycache__/", "under __pycache__/ (compiled Python)"},
    {"*.pyc", "compiled Python (.pyc)"},
    {"*.pyo", "compiled Python (.pyo)"},
};

/// Files that take effect on the person's machine without being called by name. `label` is
/// what the reason shows; empty means the file's own name.
struct FlagRule {
  const char* pattern;
  const char* what;
  const char* label;
};
constexpr const char* k_runs = "runs code on your machine";
constexpr const char* k_git_sees = "changes what git sees";
constexpr FlagRule k_flags[] = {
    // Editors, hook managers and environment loaders run these on open, commit or cd.
    {".envrc", k_runs, ""},
    {".vscode/", k_runs, ".vscode/"},
    {".idea/", k_runs, ".idea/"},
    {".devcontainer/", k_runs, ".devcontainer/"},
    {".husky/", k_runs, ".husky/"},
    {".githooks/", k_runs, ".githooks/"},
    {"**/.github/workflows/", k_runs, ".github/workflows/"},
    {".pre-commit-config.yaml", k_runs, ""},
    {"lefthook.yml", k_runs, ""},
    {".lefthook.yml", k_runs, ""},
    {".tool-versions", k_runs, ""},
    {".nvmrc", k_runs, ""},
    {"mise.toml", k_runs, ""},
    {".mise.toml", k_runs, ""},
    // What git itself reads from the tree.
    {".gitattributes", k_git_sees, ""},
    {".gitignore", k_git_sees, ""},
    {".gitmodules", k_git_sees, ""},
    // Build and package files: `make`, `pip install`, `npm install`, `cargo build`, `pytest`
    // run what they say.
    {"Makefile", k_runs, ""},
    {"GNUmakefile", k_runs, ""},
    {"makefile", k_runs, ""},
    {"*.mk", k_runs, ""},
    {"CMakeLists.txt", k_runs, ""},
    {"*.cmake", k_runs, ""},
    {"package.json", k_runs, ""},
    {".npmrc", k_runs, ""},
    {".yarnrc", k_runs, ""},
    {".yarnrc.yml", k_runs, ""},
    {".pnpmfile.cjs", k_runs, ""},
    {"setup.py", k_runs, ""},
    {"setup.cfg", k_runs, ""},
    {"pyproject.toml", k_runs, ""},
    {"conftest.py", k_runs, ""},
    {"noxfile.py", k_runs, ""},
    {"tox.ini", k_runs, ""},
    {"Dockerfile", k_runs, ""},
    {"docker-compose.yml", k_runs, ""},
    {"docker-compose.yaml", k_runs, ""},
    {"Cargo.toml", k_runs, ""},
    {"build.rs", k_runs, ""},
    {"**/.cargo/config", k_runs, ".cargo/config"},
    {"**/.cargo/config.toml", k_runs, ".cargo/config.toml"},
    {"Gemfile", k_runs, ""},
    {"*.gemspec", k_runs, ""},
    {"Rakefile", k_runs, ""},
    {"justfile", k_runs, ""},
    // Shell start-up files (a dotfiles repository, or a tool that sources them).
    {".bashrc", k_runs, ""},
    {".bash_profile", k_runs, ""},
    {".bash_login", k_runs, ""},
    {".profile", k_runs, ""},
    {".zshrc", k_runs, ""},
    {".zshenv", k_runs, ""},
    {".zprofile", k_runs, ""},
};

std::string basename_of(std::string_view path) {
  Parts parts = split(path);
  return parts.empty() ? std::string() : parts.back();
}

/// The names a change touches: its path and, for a rename, the name it left. A rule that
/// holds for the old name holds for the change (moving a file out of .git/ or node_modules/ is
/// still a change there).
struct Name {
  const std::string& path;
  bool old;
};

std::vector<Name> names_of(const PathFacts& f) {
  std::vector<Name> names{{f.path, false}};
  if (!f.from.empty() && f.from != f.path) {
    names.push_back({f.from, true});
  }
  return names;
}

std::string with_old(std::string reason, const Name& n) {
  if (n.old) {
    reason += ", renamed from '" + shown(n.path) + "'";
  }
  return reason;
}

std::optional<std::string> blocked(const PathFacts& f) {
  constexpr const char* k_never = "never transferred: ";
  if (f.workspace_own) {
    return std::string(k_never) + "the workspace's own files";
  }
  for (const Name& n : names_of(f)) {
    // A path we could not write safely inside the repository: defence in depth, RelPath
    // already forbids these.
    if (n.path.empty() || n.path.front() == '/' || n.path.find('\0') != std::string::npos) {
      return with_old(std::string(k_never) + "not a path inside the project", n);
    }
    Parts parts = split(n.path);
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
/// they reviewed. Resolved lexically, from the link's own directory.
std::optional<std::string> symlink_problem(const PathFacts& f) {
  const std::string& target = f.symlink_target;
  const std::string t = " (" + shown(target) + ")";
  if (!target.empty() && target.front() == '/') {
    return "symlink to an absolute path" + t;
  }
  Parts resolved = split(f.path);
  if (!resolved.empty()) {
    resolved.pop_back(); // the link itself
  }
  for (const std::string& part : split(target)) {
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
  if (f.symlink_through_symlink) {
    return "symlink through another symlink" + t;
  }
  return std::nullopt;
}

bool exec_bits(mode_t mode) {
  return (mode & (S_IXUSR | S_IXGRP | S_IXOTH)) != 0;
}

/// Withhold rules in the order a person should hear them: the most specific or dangerous
/// first (what a file is, then where it is, then what it looks like).
std::optional<std::string> withheld(const PathFacts& f, const PolicyConfig& config) {
  const bool deleted = f.type == ChangeType::Deleted;
  if (f.gitlink) {
    return "submodule pointer";
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
  const auto names = names_of(f);
  for (const Name& n : names) {
    for (const PlaceRule& rule : k_places) {
      if (matches_with(rule.pattern, n.path, FNM_CASEFOLD)) {
        return with_old(rule.reason, n);
      }
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
  if (deleted) {
    return std::nullopt; // deleting is safe: content, mode and type rules do not apply
  }
  if (S_ISREG(f.mode) && exec_bits(f.mode)) {
    if (f.type == ChangeType::Added || f.type == ChangeType::TypeChanged) {
      return "new executable";
    }
    // A renamed or edited file that was already executable stays what the person had; its
    // content is in the patch for review.
    bool was_exec = S_ISREG(f.base_mode) && exec_bits(f.base_mode);
    if ((f.type == ChangeType::Modified || f.type == ChangeType::Renamed) && !was_exec) {
      return "added exec bit";
    }
  }
  if (f.binary) {
    return "binary content";
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

std::optional<std::string> flagged(const PathFacts& f, const PolicyConfig& config) {
  const std::string deleted = f.type == ChangeType::Deleted ? " (deleted)" : "";
  for (const Name& n : names_of(f)) {
    for (const FlagRule& rule : k_flags) {
      if (matches_with(rule.pattern, n.path, FNM_CASEFOLD)) {
        std::string label = *rule.label ? rule.label : shown(basename_of(n.path));
        return with_old(std::string(rule.what) + ": " + label + deleted, n);
      }
    }
    for (const std::string& pattern : config.flag) {
      if (matches(pattern, n.path)) {
        return with_old("matches ws.flag pattern '" + shown(pattern) + "'" + deleted, n);
      }
    }
  }
  return std::nullopt;
}

} // namespace

Decision decide(const PathFacts& facts, const PolicyConfig& config) {
  if (auto why = blocked(facts)) {
    return {Verdict::Blocked, std::move(*why)};
  }
  if (auto why = withheld(facts, config)) {
    return {Verdict::Withheld, std::move(*why)};
  }
  if (auto why = flagged(facts, config)) {
    return {Verdict::Flagged, std::move(*why)};
  }
  return {Verdict::Transfer, {}};
}

bool matches(const std::string& pattern, const std::string& path) {
  return matches_with(pattern, path, 0); // case-sensitive, as git on Linux
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
