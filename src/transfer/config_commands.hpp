#pragma once

// What the command lines of the person's self-running configs name (self_run_configs.hpp):
// the reader that remembers every config file it looked at, and the collector that turns
// command lines into project files, following the package.json scripts they run.

#include "filters/command_words.hpp"
#include "filters/policy.hpp"

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace ws {

/// When git runs the hook `name`: "on every git commit", "on every git push"...
std::string when_hook_runs(std::string_view name);

/// Shell text without its comments (a `#` that starts a word, outside quotes, to the end of
/// its line) and with continued lines joined: what a hook or `.envrc` runs, for command_words.
std::string without_shell_comments(std::string_view text);

/// What runs a command, for the reason a person reads: "your CONFIG runs it WHEN (DETAIL)".
struct Runner {
  std::string config; ///< ".pre-commit-config.yaml", "git hook .git/hooks/pre-commit"
  std::string when;   ///< "on every git commit"
  std::string detail; ///< "hook check"; may be empty
  /// The reason, `what` naming the file ("it", "its scripts").
  std::string reason(const std::string& what = "it") const;
  /// The same runner, `more` added to its detail.
  Runner with_detail(const std::string& more) const;
};

/// Reads the person's configs from the real tree, and remembers each file and directory it
/// looked at (the kept plan's inputs). Used by one thread.
class ConfigReader {
public:
  /// The file's content; nullopt when absent, not regular, unreadable or over 1 MiB.
  std::optional<std::string> text(const std::filesystem::path& path);
  std::optional<nlohmann::json> yaml(const std::filesystem::path& path);
  std::optional<nlohmann::json> jsonc(const std::filesystem::path& path);
  std::optional<nlohmann::json> toml(const std::filesystem::path& path);
  /// The entries of the directory `dir` (none if it is not one), sorted.
  std::vector<std::filesystem::path> list(const std::filesystem::path& dir);
  std::vector<std::filesystem::path> take() { return std::move(m_read); }

private:
  std::vector<std::filesystem::path> m_read;
};

/// Collects the project files command lines name, each with the first runner that names it,
/// and follows the package.json scripts they run (reading package.json through `reader`).
/// Used by one thread.
class Collector {
public:
  /// The paths the REAL index tracks whose last component is a name (`conftest.py`), sorted:
  /// gitbridge::RealRepo::tracked_named. Asked only when a tool that loads files by their
  /// name runs (pytest).
  using TrackedNamed = std::function<std::vector<std::string>(const std::string& name)>;

  Collector(const std::filesystem::path& worktree, ConfigReader& reader,
            TrackedNamed tracked_named = {})
      : m_top(worktree), m_top_text(worktree.string()), m_reader(reader),
        m_tracked_named(std::move(tracked_named)) {}

  /// Every project file `line` (a shell command line) names, run in `dir` (repository-
  /// relative, "" for the top) by `runner`; `depth` counts package.json scripts followed.
  void command(std::string_view line, const std::string& dir, const Runner& runner, int depth = 0);
  /// `args` as an exec'd command: each element one word, the first the command.
  void argv(const std::vector<std::string>& args, const std::string& dir, const Runner& runner);
  /// A word that is a path whatever it looks like (pre-commit's `language: script` entry).
  void path(const std::string& word, const std::string& dir, const Runner& runner);
  /// The script `name` of the real package.json in `dir`, with its pre and post scripts, as
  /// `npm run NAME` runs them (at most 4 scripts deep); package.json then runs by itself too.
  void npm_script(const std::string& name, const std::string& dir, const Runner& runner, int depth);
  /// The Cargo project whose manifest is `dir`/Cargo.toml, as `runner` builds it: its build
  /// scripts, proc-macro crates, members and path dependencies.
  void cargo_project(const std::string& dir, const Runner& runner);
  /// The Cargo projects rust-analyzer loads when an editor opens the project with no
  /// `linkedProjects`: the top's Cargo.toml and those of the top's direct subdirectories
  /// (cargo_loads.cpp), each as cargo_project, run by "your DIR/Cargo.toml".
  void editor_cargo_projects();
  /// `path` (repository-relative) runs by itself, for `reason`; the first reason kept.
  void add(const std::string& path, std::string reason);
  /// Every file named so far, and what the named scripts load in turn (script_loads.cpp).
  std::vector<filters::ScriptUse> take();
  /// The files found by their name that the named tools load (pytest's conftest.py); after
  /// take().
  std::vector<filters::ScriptNameUse> take_by_name() { return std::move(m_by_name); }

  /// How a named file runs, which says what it loads: Python's imports, node's requires, a
  /// shell script's command lines, a Makefile's includes and rules; `Exec` is a file run as a
  /// command (its name or `#!` line tells which).
  enum class Lang {
    Exec,
    Python,
    Node,
    Shell,
    Make,
    Tox,
    Taskfile,
    Pyproject,
    Cargo,
    Rust,        ///< a build script and the modules and `include!` files it compiles in
    PytestConfig ///< pytest.ini, pyproject.toml, tox.ini, setup.cfg as pytest reads them
  };

private:
  /// A named file to read for what it loads, when it runs in `cwd` for `runner`.
  struct Load {
    std::string path;
    std::string cwd;
    Runner runner;
    Lang lang;
    std::vector<std::string> roots = {}; ///< Python: sys.path, repository-relative ("" top)
    bool imported = false;               ///< itself loaded by a followed file (the reason's chain)
    int depth = 0;
    /// A tool's own config (jest.config.js): its relative path strings name files it loads
    /// (`setupFiles: ['./test/setup.js']`), not only its requires.
    bool tool_config = false;
    /// The tool reading it (`poe`, `pdm`...): pyproject.toml holds the tasks of several.
    std::string tool = {};
  };
  /// Follows `path` (named as `runner` runs it) unless already followed as `lang`.
  void load(Load l);
  /// What the loads read say: more names, more loads (script_loads.cpp).
  void follow();
  void follow_python(const Load& l, const std::string& text);
  void follow_node(const Load& l, const std::string& text);
  void follow_make(const Load& l, const std::string& text);
  /// The configs that `tool` (`make`, `tox`, `pytest`, `eslint`...), run in `cwd`, reads and
  /// runs; false when it is not such a tool.
  bool runner_config(std::string_view tool, const std::string& cwd, const Runner& runner);
  void follow_taskfile(const Load& l);
  void follow_pyproject(const Load& l);
  void follow_cargo(const Load& l);
  /// The `mod` and `include!` files of a build script, followed in turn (rust_modules.hpp).
  void follow_rust(const Load& l, const std::string& text);
  /// A build script `path` of the manifest `manifest`: withheld, and what it compiles in.
  void build_script(const std::string& path, const std::string& manifest, const Load& l);
  /// Every file named `name` (`*.rs`: ending so) at or below `dir` runs, for `reason`.
  void add_by_name(const std::string& dir, const std::string& name, std::string reason);
  /// pytest run in `cwd`: its configs (their `-p` plugins), every conftest.py.
  void pytest(const std::string& cwd, const Runner& runner);
  void follow_pytest_config(const Load& l, const std::string& text);
  /// Every conftest.py the real index tracks, as pytest run in `cwd` by `by` imports it
  /// (sys.path as its default `prepend` import mode makes it), followed for what it imports.
  void tracked_conftests(const std::string& cwd, const Runner& by);
  /// The module of an entry point (`pkg.mod:func`), in `dir` and in its `src/` layout.
  void entry_point(const std::string& ref, const std::string& dir, const Runner& runner);

  void words_of(const std::vector<filters::CommandWord>& words, const std::string& dir,
                const Runner& runner, int depth);
  void module(std::string name, const std::string& dir, const Runner& runner);
  /// The project .npmrc in `dir`, which npm obeys running a script, and what it names.
  void npmrc(const std::string& dir, const Runner& runner);
  std::optional<std::string> script_run(const std::vector<filters::CommandWord>& words, size_t i,
                                        std::string_view tool, const std::string& dir);
  const nlohmann::json* package_scripts(const std::string& dir);
  /// The program `npx X`, `pnpm exec X`, `yarn X` (not a script) runs from node_modules/.bin.
  std::optional<std::string> package_bin(const std::vector<filters::CommandWord>& words, size_t i,
                                         std::string_view tool);

  std::filesystem::path m_top;
  std::string m_top_text;
  ConfigReader& m_reader;
  TrackedNamed m_tracked_named;
  std::map<std::string, std::optional<nlohmann::json>> m_packages; ///< by directory
  std::set<std::string> m_seen;
  std::vector<filters::ScriptUse> m_out;
  std::vector<filters::ScriptNameUse> m_by_name;
  std::vector<Load> m_loads;
  std::vector<Load> m_later; ///< loaded once m_loads is followed to its end
  std::set<std::tuple<std::string, Lang, std::string>> m_loaded; ///< path, lang, tool
};

} // namespace ws
