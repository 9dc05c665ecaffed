// The person's transfer policy settings, read with libgit2's config API so that `[ws]` takes
// git's syntax, includes and integer suffixes, and shows up in `git config --list`.
#include "gitbridge/policy_config.hpp"

#include "filters/command_words.hpp"
#include "gitbridge/git_handles.hpp"
#include "gitbridge/repository.hpp"

#include <git2.h>

#include <pwd.h>
#include <strings.h>

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

namespace ws::gitbridge {

namespace {

using EntryPtr = GitPtr<git_config_entry, git_config_entry_free>;

std::string last_error() {
  return git_last_error();
}

/// The files behind the levels we add, so an error can say which file to fix.
struct Sources {
  std::filesystem::path local;
  std::filesystem::path global;

  std::string file(git_config_level_t level) const {
    const auto& p = level == GIT_CONFIG_LEVEL_LOCAL ? local : global;
    return "'" + p.string() + "'";
  }
};

void add_file(git_config* cfg, const std::filesystem::path& path, git_config_level_t level) {
  // A missing file is fine (libgit2 treats it as empty); a broken one is not.
  int rc = git_config_add_file_ondisk(cfg, path.c_str(), level, nullptr, 0);
  if (rc < 0) {
    throw GitError(rc, "cannot read git config '" + path.string() + "': " + last_error());
  }
}

/// The winning entry for `key`, or null when no file sets it.
EntryPtr find_entry(const git_config* cfg, const char* key) {
  git_config_entry* raw = nullptr;
  int rc = git_config_get_entry(&raw, cfg, key);
  EntryPtr entry(raw);
  if (rc == GIT_ENOTFOUND) {
    return nullptr;
  }
  if (rc < 0) {
    throw GitError(rc, std::string("cannot read ") + key + ": " + last_error());
  }
  return entry;
}

filters::PolicyConfig::Level read_level(const git_config* cfg, const Sources& sources) {
  EntryPtr entry = find_entry(cfg, "ws.policy");
  if (!entry) {
    return filters::PolicyConfig::Level::Default;
  }
  std::string value = entry->value ? entry->value : "";
  for (char& c : value) {
    c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  }
  if (value == "default") {
    return filters::PolicyConfig::Level::Default;
  }
  if (value == "strict") {
    return filters::PolicyConfig::Level::Strict;
  }
  throw GitError(GIT_EINVALID, "invalid ws.policy '" +
                                   std::string(entry->value ? entry->value : "") + "' in " +
                                   sources.file(entry->level) + ": expected 'default' or 'strict'");
}

/// What a number setting is, for the words of its errors.
struct NumberKind {
  const char* expected; ///< "a size such as 10m"
  const char* negative; ///< why a negative value is refused
};
constexpr NumberKind k_size{"a size such as 10m", "must not be negative (0 means no limit)"};
constexpr NumberKind k_count{"a whole number such as 20", "must not be negative"};

std::optional<uint64_t> read_number(const git_config* cfg, const Sources& sources, const char* key,
                                    const NumberKind& kind) {
  EntryPtr entry = find_entry(cfg, key);
  if (!entry) {
    return std::nullopt;
  }
  const std::string what = "invalid " + std::string(key) + " '" +
                           std::string(entry->value ? entry->value : "") + "' in " +
                           sources.file(entry->level);
  if (!entry->value) {
    throw GitError(GIT_EINVALID, what + ": expected " + kind.expected);
  }
  int64_t n = 0;
  int rc = git_config_get_int64(&n, cfg, key);
  if (rc < 0) {
    throw GitError(rc, what + ": " + last_error() + " (expected " + kind.expected + ")");
  }
  if (n < 0) {
    throw GitError(GIT_EINVALID, what + ": " + kind.negative);
  }
  return static_cast<uint64_t>(n);
}

std::optional<uint64_t> read_size(const git_config* cfg, const Sources& sources, const char* key) {
  return read_number(cfg, sources, key, k_size);
}

struct Collect {
  const char* key;
  const Sources* sources;
  std::vector<std::string>* out;
  std::exception_ptr error; // no exception may cross libgit2's C frames
};

int collect(const git_config_entry* entry, void* payload) noexcept {
  auto* c = static_cast<Collect*>(payload);
  try {
    if (!entry->value) {
      throw GitError(GIT_EINVALID, std::string(c->key) + " in " + c->sources->file(entry->level) +
                                       " has no value: expected a pattern such as 'build/'");
    }
    if (*entry->value == '\0') {
      c->out->clear(); // git's convention: an empty value resets a list
    } else {
      c->out->emplace_back(entry->value);
    }
    return 0;
  } catch (...) {
    c->error = std::current_exception();
    return GIT_EUSER;
  }
}

std::vector<std::string> read_patterns(const git_config* cfg, const char* key,
                                       const Sources& sources) {
  std::vector<std::string> patterns;
  Collect c{key, &sources, &patterns, nullptr};
  // libgit2 visits the lowest-priority file first (user file, then the repository's), so a
  // repository can reset what the person set for all repositories.
  int rc = git_config_get_multivar_foreach(cfg, key, nullptr, collect, &c);
  if (c.error) {
    std::rethrow_exception(c.error);
  }
  if (rc < 0 && rc != GIT_ENOTFOUND) {
    throw GitError(rc, std::string("cannot read ") + key + ": " + last_error());
  }
  return patterns;
}

} // namespace

std::filesystem::path default_user_config_file() {
  // XDG Base Directory: a relative XDG_CONFIG_HOME is invalid and must be ignored.
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  if (xdg && *xdg == '/') {
    return std::filesystem::path(xdg) / "ws" / "config";
  }
  const char* home = std::getenv("HOME");
  if (home && *home) {
    return std::filesystem::path(home) / ".config" / "ws" / "config";
  }
  return {};
}

namespace {
/// The repository's config over the person's: only these two files, no system or global
/// git config, no includes beyond what they say.
ConfigPtr open_config(const Sources& sources) {
  git_config* raw = nullptr;
  if (int rc = git_config_new(&raw); rc < 0) {
    throw GitError(rc, "cannot create a git config object: " + last_error());
  }
  ConfigPtr cfg(raw);
  add_file(cfg.get(), sources.local, GIT_CONFIG_LEVEL_LOCAL);
  if (!sources.global.empty()) {
    add_file(cfg.get(), sources.global, GIT_CONFIG_LEVEL_GLOBAL);
  }
  return cfg;
}
} // namespace

filters::PolicyConfig load_policy_config(const std::filesystem::path& real_git_dir,
                                         const std::filesystem::path& user_config_file) {
  Sources sources{real_git_dir / "config", user_config_file};
  ConfigPtr cfg = open_config(sources);
  filters::PolicyConfig config;
  config.level = read_level(cfg.get(), sources);
  if (auto size = read_size(cfg.get(), sources, "ws.maxFileSize")) {
    config.max_file_size = *size;
  }
  config.withhold = read_patterns(cfg.get(), "ws.withhold", sources);
  config.flag = read_patterns(cfg.get(), "ws.flag", sources);
  return config;
}

std::optional<uint64_t> load_config_size(const std::filesystem::path& real_git_dir,
                                         const std::filesystem::path& user_config_file,
                                         const char* key) {
  Sources sources{real_git_dir / "config", user_config_file};
  ConfigPtr cfg = open_config(sources);
  return read_size(cfg.get(), sources, key);
}

std::optional<uint64_t> load_config_count(const std::filesystem::path& real_git_dir,
                                          const std::filesystem::path& user_config_file,
                                          const char* key) {
  Sources sources{real_git_dir / "config", user_config_file};
  ConfigPtr cfg = open_config(sources);
  return read_number(cfg.get(), sources, key, k_count);
}

std::vector<std::string> load_config_list(const std::filesystem::path& real_git_dir,
                                          const std::filesystem::path& user_config_file,
                                          const char* key) {
  Sources sources{real_git_dir / "config", user_config_file};
  ConfigPtr cfg = open_config(sources);
  return read_patterns(cfg.get(), key, sources);
}

namespace {

/// git's expand_user_path: "~" or "~/x" from $HOME, "~user/x" from the password database.
/// nullopt when the home directory cannot be found (git then ignores the setting too).
std::optional<std::filesystem::path> expand_user(const std::string& value) {
  if (value.empty() || value.front() != '~') {
    return std::filesystem::path(value);
  }
  const size_t slash = value.find('/');
  const std::string user =
      value.substr(1, slash == std::string::npos ? std::string::npos : slash - 1);
  const std::string rest = slash == std::string::npos ? "" : value.substr(slash + 1);
  std::string home;
  if (user.empty()) {
    const char* env = std::getenv("HOME");
    if (!env || !*env) {
      return std::nullopt;
    }
    home = env;
  } else {
    struct passwd pw {};
    struct passwd* found = nullptr;
    std::vector<char> buf(16384);
    if (::getpwnam_r(user.c_str(), &pw, buf.data(), buf.size(), &found) != 0 || !found) {
      return std::nullopt;
    }
    home = found->pw_dir;
  }
  return std::filesystem::path(home) / rest;
}

/// `p` with symlinks resolved where they exist; lexically normalised where resolving fails (a
/// loop, a directory we may not search), so the answer is still where git would look.
std::filesystem::path resolved(const std::filesystem::path& p) {
  std::error_code ec;
  auto out = std::filesystem::weakly_canonical(p, ec);
  return ec ? p.lexically_normal() : out;
}

} // namespace

namespace {

/// The real repository and a snapshot of its config: every level libgit2 knows (system, XDG,
/// global, local, worktree), as git would read them. Opened once for all the questions below.
struct RealConfig {
  RepoPtr repo;
  ConfigPtr cfg;
};

RealConfig open_real_config(const std::filesystem::path& worktree) {
  git_repository* raw = nullptr;
  git_check(git_repository_open(&raw, worktree.c_str()),
            "cannot open repository '" + worktree.string() + "'");
  RealConfig out{RepoPtr(raw), nullptr};
  git_config* raw_cfg = nullptr;
  git_check(git_repository_config_snapshot(&raw_cfg, out.repo.get()),
            "cannot read the git config of '" + worktree.string() + "'");
  out.cfg.reset(raw_cfg);
  return out;
}

std::optional<std::string> hooks_dir_in(const RealConfig& real) {
  git_repository* repo = real.repo.get();
  EntryPtr entry = find_entry(real.cfg.get(), "core.hooksPath");
  if (!entry || !entry->value || !*entry->value) {
    return std::nullopt; // git then uses $GIT_DIR/hooks, which the policy blocks anyway
  }
  const char* workdir = git_repository_workdir(repo);
  if (!workdir) {
    return std::nullopt; // bare: no worktree for a hook to hide in
  }
  auto dir = expand_user(entry->value);
  if (!dir) {
    return std::nullopt;
  }
  // Hooks run at the top of the worktree, so a relative hooksPath is taken from there.
  const std::filesystem::path top(workdir);
  auto real_top = resolved(top);
  auto real_dir = resolved(top / *dir);
  auto rel = real_dir.lexically_relative(real_top);
  if (rel.empty() || *rel.begin() == "..") {
    return std::nullopt;
  }
  std::string out = rel.generic_string();
  while (out.size() > 1 && out.back() == '/') {
    out.pop_back();
  }
  return out;
}

/// Config keys whose value is a command git runs (with the worktree's top as the working
/// directory for most of them).
constexpr const char* k_command_keys =
    "^(core\\.(fsmonitor|pager|editor|sshcommand|askpass)|sequence\\.editor|gpg\\..*program|"
    "filter\\..*\\.(clean|smudge|process)|diff\\..*\\.(textconv|command)|merge\\..*\\.driver|"
    "alias\\..*|credential\\..*helper|pager\\..*|interactive\\.difffilter|"
    "uploadpack\\.packobjectshook|core\\.gitproxy|core\\.alternaterefscommand|diff\\.external|"
    "(diff|merge)tool\\..*\\.(cmd|path)|hook\\..*\\.command|trailer\\..*\\.(command|cmd)|"
    "remote\\..*\\.(uploadpack|receivepack)|submodule\\..*\\.update|gpg\\.ssh\\.defaultkeycommand|"
    "sendemail\\.(.*\\.)?(sendmailcmd|smtpserver)|lfs\\.customtransfer\\..*\\.path|"
    "lfs\\.extension\\..*\\.(clean|smudge)|web\\.browser|(browser|man)\\..*\\.(cmd|path)|"
    "guitool\\..*\\.cmd)$";

std::vector<filters::ConfigFileUse> config_files_in(const RealConfig& real,
                                                    const std::filesystem::path& worktree) {
  git_repository* repo = real.repo.get();
  git_config* cfg = real.cfg.get();
  const char* workdir = git_repository_workdir(repo);
  if (!workdir) {
    return {};
  }
  const std::filesystem::path top = resolved(workdir);
  std::vector<filters::ConfigFileUse> out;
  auto add_inside = [&](const std::filesystem::path& p, const char* key) {
    auto rel = resolved(p).lexically_relative(top);
    if (!rel.empty() && *rel.begin() != ".." && rel != ".") {
      out.push_back({rel.generic_string(), key});
    }
  };
  auto each = [&](const char* pattern, const std::function<void(const git_config_entry&)>& f) {
    git_config_iterator* raw_it = nullptr;
    git_check(git_config_iterator_glob_new(&raw_it, cfg, pattern),
              "cannot read the git config of '" + worktree.string() + "'");
    GitPtr<git_config_iterator, git_config_iterator_free> it(raw_it);
    git_config_entry* entry = nullptr;
    while (git_config_next(&entry, it.get()) == 0) {
      if (entry->value && *entry->value) {
        f(*entry);
      }
    }
  };
  each("^(include|includeif\\..*)\\.path$", [&](const git_config_entry& entry) {
    auto file = expand_user(entry.value);
    if (!file) {
      return;
    }
    // A relative path is taken from the including file's directory: the repository's own
    // config lives in its git directory, a global one in the home (or its XDG directory:
    // both are looked at, so that nothing git might read is missed).
    std::vector<std::filesystem::path> bases;
    if (file->is_absolute()) {
      bases.emplace_back();
    } else if (entry.level >= GIT_CONFIG_LEVEL_LOCAL) {
      bases.emplace_back(git_repository_commondir(repo));
      bases.emplace_back(git_repository_path(repo));
    } else if (const char* home = std::getenv("HOME"); home && *home) {
      bases.emplace_back(home);
      bases.emplace_back(std::filesystem::path(home) / ".config/git");
    }
    for (const auto& base : bases) {
      add_inside(base.empty() ? *file : base / *file, "include.path");
    }
  });
  // A file of the project git reads as data: what it ignores, the attributes that pick
  // filters and diff drivers, whose signatures it trusts, which commits blame skips.
  each("^(core\\.(excludesfile|attributesfile)|gpg\\.ssh\\.allowedsignersfile|"
       "blame\\.ignorerevsfile)$",
       [&](const git_config_entry& entry) {
         static const char* const k_names[] = {"core.excludesFile", "core.attributesFile",
                                               "gpg.ssh.allowedSignersFile",
                                               "blame.ignoreRevsFile"};
         std::string key = entry.name;
         for (const char* name : k_names) {
           if (strcasecmp(name, entry.name) == 0) {
             key = name;
           }
         }
         auto file = expand_user(entry.value);
         if (!file) {
           return;
         }
         const size_t before = out.size();
         add_inside(file->is_absolute() ? *file : top / *file, "reads");
         if (out.size() > before) {
           out.back().key = key;
         }
       });
  // A command that names a file of the project (`core.fsmonitor = tools/fsmon.sh`,
  // `filter.x.clean = ./scripts/clean`, `alias.t = !sh tools/t.sh`): git runs it from the
  // worktree's top, so an agent's edit of that file runs on the person's next git command.
  each(k_command_keys, [&](const git_config_entry& entry) {
    std::string_view value = entry.value;
    std::string_view name = entry.name;
    const bool shell = !value.empty() && value.front() == '!';
    if (shell) {
      value.remove_prefix(1);
    } else if (name.rfind("alias.", 0) == 0) {
      return; // git's own arguments, no command of the shell's
    }
    std::vector<filters::CommandWord> words;
    filters::command_words(value, words);
    for (const filters::CommandWord& word : words) {
      if (!filters::names_a_file(word)) {
        continue;
      }
      auto file = expand_user(word.text);
      if (file) {
        add_inside(file->is_absolute() ? *file : top / *file, "command");
      }
    }
  });
  return out;
}

} // namespace

std::optional<std::string> hooks_dir_inside(const std::filesystem::path& worktree) {
  return hooks_dir_in(open_real_config(worktree));
}

std::filesystem::path hooks_dir_of(const std::filesystem::path& worktree) {
  RealConfig real = open_real_config(worktree);
  EntryPtr entry = find_entry(real.cfg.get(), "core.hooksPath");
  if (entry && entry->value && *entry->value) {
    const char* workdir = git_repository_workdir(real.repo.get());
    auto dir = expand_user(entry->value);
    if (!dir) {
      return {};
    }
    // Hooks run at the top of the worktree, so a relative hooksPath is taken from there.
    return dir->is_absolute() || !workdir ? *dir : std::filesystem::path(workdir) / *dir;
  }
  return std::filesystem::path(git_repository_commondir(real.repo.get())) / "hooks";
}

std::vector<filters::ConfigFileUse> config_files_inside(const std::filesystem::path& worktree) {
  return config_files_in(open_real_config(worktree), worktree);
}

void load_worktree_config(const std::filesystem::path& worktree, filters::PolicyConfig& config) {
  RealConfig real = open_real_config(worktree);
  config.hooks_path = hooks_dir_in(real).value_or("");
  config.git_config_files = config_files_in(real, worktree);
}

} // namespace ws::gitbridge
