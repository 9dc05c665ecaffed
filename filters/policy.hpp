#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ws::filters {

/// What may happen to one changed path when the agent's work is transferred.
enum class Verdict {
  Transfer, ///< lands with `ws apply`
  Flagged,  ///< lands, but is shown loudly: it can run code without being called by name
  Withheld, ///< stays in the workspace unless the person overrides it for this path
  Blocked,  ///< never lands; no override
};

struct Decision {
  Verdict verdict = Verdict::Transfer;
  std::string reason; ///< for a person: "new executable", "ignored by the real repository"...
                      ///< (empty for Transfer; the texts are listed in docs/policy.md)
  bool overridable() const { return verdict == Verdict::Withheld; }
};

/// How the change looks, in git's terms.
enum class ChangeType { Added, Modified, Deleted, Renamed, TypeChanged };

/// Where a symlink in the view leads, resolved component by component against the view as
/// it will be after apply (symlinks in the view and in the real tree followed).
enum class SymlinkReach {
  Inside,       ///< stays in the project, outside .git
  Outside,      ///< leaves the project
  IntoGit,      ///< reaches a .git directory (top-level or nested)
  Unresolvable, ///< a loop, or more symlinks than the kernel would follow
};

/// Everything the policy needs to know about one changed path. Facts about the repository
/// come from the REAL repository (its ignore rules, index and config), never from the view.
struct PathFacts {
  ChangeType type = ChangeType::Modified;
  std::string path;     ///< repository-relative, '/'-separated, no leading "./"
  std::string from;     ///< Renamed: the old path
  mode_t mode = 0;      ///< st_mode in the view (type bits included); 0 for Deleted
  mode_t base_mode = 0; ///< st_mode of what stood there before (0 if nothing)
  mode_t real_mode = 0; ///< st_mode of the real tree's object at `path` now (0 if none)
  /// The real tree has at `path` an executable regular file whose content is exactly the
  /// view's: the only case where an executable in the view is not new to the person.
  bool real_exec_same = false;
  uint64_t size = 0;   ///< bytes in the view
  bool binary = false; ///< content holds a NUL byte in its first 8000 bytes (as git)
  /// Its first lines declare a Python source coding that is not ASCII as it reads
  /// (`# coding: utf-7`): what Python runs is not the text shown (filters/coding_line.hpp).
  bool recoded = false;
  std::string symlink_target; ///< for symlinks in the view
  bool ignored = false;       ///< the real repository ignores this path (and does not track it)
  bool tracked = false;       ///< the real repository's index has this path
  bool inside_nested_repo = false; ///< an ancestor directory holds a `.git` (nested repo/submodule)
  bool gitlink = false;            ///< the real index has a submodule (gitlink) at this path
  /// Non-empty: `path` (or a rename's `from`) lies inside the submodule at this path, a
  /// gitlink in the REAL index, initialized or not.
  std::string submodule;
  bool workspace_own = false; ///< the path is the workspace's own state or view
  /// Symlinks: where the target really leads (see SymlinkReach).
  SymlinkReach symlink_reach = SymlinkReach::Inside;
  /// An ancestor directory holds a `pyvenv.cfg`: a Python virtual environment under any name
  /// (`env/`, `.tox/py311/`). Leave false if unknown: `.venv/`, `venv/` and `pyvenv.cfg`
  /// itself are recognised by name.
  bool in_python_env = false;
  /// A `.gitignore` the agent added or changed ignores this new path (it can only withhold:
  /// what the real repository ignores is `ignored`, whatever the agent wrote).
  bool ignored_by_agent = false;
  /// The agent's git put back the version it started from over a change the person made
  /// since (`git checkout -- FILE`, `stash`, `reset --hard`), or removed a file it never
  /// tracked (`git clean`): landing it would undo the person's work.
  bool restores_start = false;
  /// Non-empty ("1a2b3c4 'subject'"): landing this undoes a commit the agent started with,
  /// which its git reset or rebased away.
  std::string undoes_commit;
};

/// The person's settings, from `[ws]` in git-config files (see docs/policy.md).
/// A project file the real git config uses: `how` is "include.path" (git reads it as config),
/// "command" (a command git runs names it), both withheld; or "reads" (git reads it as data
/// that changes what it shows or trusts: core.attributesFile...), flagged.
struct ConfigFileUse {
  std::string path; ///< repository-relative, '/'-separated
  std::string how;
  std::string key = {}; ///< for "reads": the key, as a person writes it ("core.attributesFile")
};

/// A project file that a config the person already has in the REAL tree runs by itself: a
/// `.pre-commit-config.yaml` local hook's entry, a Claude Code hook, a VS Code `folderOpen`
/// task, a husky or lefthook hook (and the package.json script it runs), what `.envrc`
/// sources, a git hook of the real repository (src/transfer/self_run_configs.hpp). Withheld
/// when the agent's version would land there, flagged when it goes away.
struct ScriptUse {
  std::string path;   ///< repository-relative, '/'-separated
  std::string runner; ///< "your .pre-commit-config.yaml runs it on every git commit (hook check)"
};

/// Every file of one name at or below a directory that a tool, run by a config the person
/// has in the REAL tree, loads by itself: pytest imports each `conftest.py` on its way through
/// the project, whoever wrote it and whether or not it exists yet; the compiler and
/// rust-analyzer run every `*.rs` of a proc-macro crate. Judged as a ScriptUse.
struct ScriptNameUse {
  std::string dir;    ///< repository-relative, '/'-separated; "" for the whole project
  std::string name;   ///< the file's own name, ASCII case ignored ("conftest.py"); `*.rs`: any
                      ///< name ending so
  std::string runner; ///< the reason, as ScriptUse::runner
};

struct PolicyConfig {
  enum class Level { Default, Strict } level = Level::Default; ///< ws.policy
  uint64_t max_file_size = 10ull * 1024 * 1024;                ///< ws.maxFileSize
  std::vector<std::string> withhold; ///< ws.withhold: extra patterns, withheld (overridable)
  std::vector<std::string> flag;     ///< ws.flag: extra patterns, flagged
  /// The real repository's core.hooksPath when it lies inside the worktree: repository-
  /// relative, '/'-separated, "." for the top; empty when unset or outside.
  std::string hooks_path;
  /// Files inside the worktree that the real repository's config obeys or runs
  /// (gitbridge::config_files_inside).
  std::vector<ConfigFileUse> git_config_files;
  /// Files inside the worktree that the person's self-running configs run by themselves
  /// (src/transfer/self_run_configs.hpp), read from the real tree; sorted by path, one each.
  std::vector<ScriptUse> run_by_configs;
  /// The same for files found by their name (ScriptNameUse); a few, tried after the paths.
  std::vector<ScriptNameUse> run_by_name;
};

/// The one verdict for a changed path, with its reason. Pure: no I/O.
Decision decide(const PathFacts& facts, const PolicyConfig& config);

/// True when `path` matches a gitignore-style `pattern`: a pattern without '/' matches the
/// last component or any directory component ("*.log", "build"); with a '/' it is anchored at
/// the top ("docs/*.md", "/out"); a trailing '/' matches directories only, i.e. anything below
/// them; "**" spans directories.
bool matches(const std::string& pattern, const std::string& path);

const char* verdict_name(Verdict v); ///< "transfer", "FLAGGED", "WITHHELD", "BLOCKED"

/// `s` as reasons show a name the agent chose: control bytes escaped, cut at about 100 bytes.
std::string shown_in_reason(std::string_view s);

} // namespace ws::filters
