// The built-in rule tables: places, the withheld table and git's hook names here, the flagged
// table in flag_rules.cpp. A rule belongs where the principle puts it:
// - withheld when the file runs code by itself, with no tool named by the person (Python
//   imports sitecustomize.py at every start-up; direnv loads .env on `cd`; rustup runs the
//   toolchain rust-toolchain.toml names for every `cargo`; git runs hook managers' configs
//   on `git commit`; an editor runs what its settings name when the project opens);
// - flagged when the person runs a tool by name and the tool executes what the file says
//   (`make`, `pytest`, `cmake --preset`, `npm install`), or the file changes what git sees.
// Every pattern is matched ignoring case: a case-insensitive filesystem opens "MAKEFILE" for
// "Makefile", so an agent must not slip past a rule by spelling.
#include "filters/policy_rules.hpp"

#include "filters/pattern.hpp"

namespace ws::filters {

namespace {

constexpr PlaceRule k_places[] = {
    {".venv/", "under .venv/ (a Python virtual environment)"},
    {"venv/", "under venv/ (a Python virtual environment)"},
    {"pyvenv.cfg", "pyvenv.cfg (marks a Python virtual environment)"},
    {"node_modules/", "under node_modules/"},
    // Yarn's node_modules under Plug'n'Play: packages it unpacked to build or run them.
    {"**/.yarn/unplugged/", "under .yarn/unplugged/ (packages yarn installed)"},
    // direnv's `layout python`/`layout node` trees: their bin/ is put first on your PATH
    // whenever direnv loads the project, so a `python` there runs instead of yours.
    {".direnv/", "under .direnv/ (direnv's layouts: on your PATH in the project)"},
    {"__pycache__/", "under __pycache__/ (compiled Python)"},
    {"*.pyc", "compiled Python (.pyc)"},
    {"*.pyo", "compiled Python (.pyo)"},
};

// --- withheld: runs by itself ----------------------------------------------------------------

constexpr const char* k_python_startup = "Python runs it at every start-up";
constexpr const char* k_python_repl = "Python runs it when you start python3 in its directory "
                                      "(the interactive prompt imports it)";
constexpr const char* k_python_pip = "python3 -m pip started in its directory runs it instead "
                                     "of pip";
constexpr const char* k_direnv = "direnv loads it when you cd into the project";
constexpr const char* k_direnv_nix = "direnv (use nix, use flake) runs it when you cd into the "
                                     "project";
constexpr const char* k_commit = "git's hooks run what it says on commit";
constexpr const char* k_editor = "your editor runs what it says when it opens the project";
constexpr const char* k_agent_cli = "an agent CLI runs what it says when it starts here "
                                    "(hooks, MCP servers, helpers)";

constexpr NameRule k_self_running[] = {
    // site.py imports these from any sys.path entry (PYTHONPATH=., an editable install, a
    // script's own directory), and runs every `import` line of a .pth file.
    {"sitecustomize.py", k_python_startup, ""},
    {"usercustomize.py", k_python_startup, ""},
    {"*.pth", k_python_startup, ""},
    // `import sitecustomize` finds a package as well as a module; and the .pth files of
    // nearly every Python import a module by name at start-up (setuptools'
    // distutils-precedence.pth: _distutils_hack; virtualenv's _virtualenv.pth): from the
    // project once it is on sys.path (PYTHONPATH=., an editable install's .pth, which sorts
    // before them).
    {"**/sitecustomize/", k_python_startup, "sitecustomize/"},
    {"**/usercustomize/", k_python_startup, "usercustomize/"},
    {"_distutils_hack.py", k_python_startup, ""},
    {"**/_distutils_hack/", k_python_startup, "_distutils_hack/"},
    {"_virtualenv.py", k_python_startup, ""},
    {"**/_virtualenv/", k_python_startup, "_virtualenv/"},
    // The interactive interpreter (`python3` typed in the project, `python3 -i`) imports
    // readline and rlcompleter at every start with '' first on sys.path: the directory's own
    // wins. `python3 -m pip` puts the directory first too, so a pip there runs instead of pip.
    {"readline.py", k_python_repl, ""},
    {"**/readline/", k_python_repl, "readline/"},
    {"rlcompleter.py", k_python_repl, ""},
    {"**/rlcompleter/", k_python_repl, "rlcompleter/"},
    {"pip.py", k_python_pip, ""},
    {"/pip/", k_python_pip, "pip/"},
    // R sources ./.Rprofile and reads ./.Renviron (R_PROFILE_USER, PATH...) at every start in
    // the project: R, Rscript, RStudio opening it.
    {".Rprofile", "R runs it at every start-up in the project", ""},
    {".Renviron", "R runs it at every start-up in the project", ""},
    // A renv project's .Rprofile is `source("renv/activate.R")`: R runs that at every start.
    {"/renv/activate.R", "R runs it at every start-up in the project (renv's .Rprofile)",
     "renv/activate.R"},
    // direnv asks before running a changed .envrc (it remembers the content's hash), but not
    // before what an allowed .envrc loads: `dotenv`, `dotenv_if_exists .env.local`,
    // `source_env .envrc.local`, `use flake`. BASH_ENV, NODE_OPTIONS or PATH in a .env run
    // code in every later command.
    {".env", k_direnv, ""},
    {".env.*", k_direnv, ""},
    {".envrc.*", k_direnv, ""},
    {"shell.nix", k_direnv_nix, ""},
    {"flake.nix", k_direnv_nix, ""},
    {"devenv.nix", k_direnv_nix, ""},
    {"devenv.yaml", k_direnv_nix, ""},
    // Toolchain overrides: every run of the tool runs what they name instead of the tool.
    {"rust-toolchain", "rustup runs the toolchain it names for every cargo and rustc", ""},
    {"rust-toolchain.toml", "rustup runs the toolchain it names for every cargo and rustc", ""},
    // build.rustc-wrapper (and build.rustc) replace rustc for every cargo that asks it what it
    // is: `cargo metadata` too, which rust-analyzer runs when an editor opens the project.
    {"**/.cargo/config", "cargo runs the rustc it names (rustc-wrapper) even for cargo metadata",
     ".cargo/config"},
    {"**/.cargo/config.toml",
     "cargo runs the rustc it names (rustc-wrapper) even for cargo metadata", ".cargo/config.toml"},
    // rust-analyzer runs `cargo check` when an editor opens a Cargo project, with no command
    // typed: it compiles and runs every build script and builds the proc macros, which it
    // then runs itself as it expands them. Cargo.toml names both (`build = "gen.rs"`,
    // `proc-macro = true`, path dependencies).
    {"Cargo.toml",
     "rust-analyzer runs the build scripts and proc macros it names when your editor opens "
     "the project",
     ""},
    {"build.rs", "rust-analyzer runs it when your editor opens the project (cargo check)", ""},
    {".tool-versions", "asdf and mise run the tools it names (path: takes any directory)", ""},
    {"mise.toml", "mise runs its env and hooks when you cd into the project", ""},
    {"mise.*.toml", "mise runs its env and hooks when you cd into the project", ""},
    {".mise.toml", "mise runs its env and hooks when you cd into the project", ""},
    {".mise.*.toml", "mise runs its env and hooks when you cd into the project", ""},
    {"**/.mise/", "mise runs its env and hooks when you cd into the project", ".mise/"},
    {"**/.config/mise/", "mise runs its env and hooks when you cd into the project",
     ".config/mise/"},
    {"**/.config/mise.toml", "mise runs its env and hooks when you cd into the project",
     ".config/mise.toml"},
    {"**/mise/config.toml", "mise runs its env and hooks when you cd into the project",
     "mise/config.toml"},
    {".yarnrc.yml", "yarn runs the yarn it names (yarnPath) for every command", ""},
    {".yarnrc", "yarn runs the yarn it names (yarn-path) for every command", ""},
    {"**/.yarn/releases/", "yarn itself, run for every yarn command", ".yarn/releases/"},
    {"**/.yarn/plugins/", "yarn runs these for every command", ".yarn/plugins/"},
    // Plug'n'Play: yarn requires its loader in every node it starts (`yarn run`, `yarn node`,
    // `yarn test`), whatever script the person asked for.
    {".pnp.cjs", "yarn loads it into every node it starts", ""},
    {".pnp.js", "yarn loads it into every node it starts", ""},
    {".pnp.loader.mjs", "yarn loads it into every node it starts", ""},
    {"**/gradle/wrapper/", "./gradlew runs the gradle it names", "gradle/wrapper/"},
    {"**/.mvn/wrapper/", "./mvnw runs the maven it names", ".mvn/wrapper/"},
    {".bazelversion", "bazelisk runs the bazel it names", ""},
    {".bazeliskrc", "bazelisk runs the bazel it names", ""},
    {"/tools/bazel", "the bazel launcher runs it instead of bazel", "tools/bazel"},
    // Hook managers: the hook they installed in .git/hooks runs what these say on every
    // `git commit` or `git push`, without the person naming the manager.
    {".pre-commit-config.yaml", k_commit, ""},
    {".pre-commit-config.yml", k_commit, ""},
    {"lefthook.yml", k_commit, ""},
    {"lefthook.yaml", k_commit, ""},
    {"lefthook.json", k_commit, ""},
    {"lefthook.toml", k_commit, ""},
    {".lefthook.*", k_commit, ""},
    {"lefthook-local.*", k_commit, ""},
    {".lefthook-local.*", k_commit, ""},
    {"**/.lefthook/", k_commit, ".lefthook/"},
    {"**/.husky/", k_commit, ".husky/"},
    {".huskyrc*", k_commit, ""},
    {"husky.config.*", k_commit, ""},
    {".lintstagedrc*", k_commit, ""},
    {"lint-staged.config.*", k_commit, ""},
    {".commitlintrc*", k_commit, ""},
    {"commitlint.config.*", k_commit, ""},
    // Editors in a trusted folder: VS Code runs the executables settings name
    // (python.defaultInterpreterPath, git.path...) and folderOpen tasks; JetBrains IDEs run
    // startup tasks and file watchers.
    {"**/.vscode/settings.json", k_editor, ".vscode/settings.json"},
    {"**/.vscode/tasks.json", k_editor, ".vscode/tasks.json"},
    {"*.code-workspace", k_editor, ""},
    {"**/.idea/workspace.xml", k_editor, ".idea/workspace.xml"},
    {"**/.idea/watcherTasks.xml", k_editor, ".idea/watcherTasks.xml"},
    // Zed starts the language servers its project settings name; Helix those of a project's
    // languages.toml (its own [language-server] commands).
    {"**/.zed/settings.json", k_editor, ".zed/settings.json"},
    {"**/.helix/languages.toml", k_editor, ".helix/languages.toml"},
    // Yarn's editor SDKs: the settings of a Plug'n'Play project point VS Code's TypeScript,
    // ESLint and Prettier at them, which load them on open.
    {"**/.yarn/sdks/", k_editor, ".yarn/sdks/"},
    // Another version control system's repository: its config runs hooks and extensions
    // (.hg/hgrc [hooks], [extensions]; .jj/repo/config.toml) on any command there, which
    // shell prompts and editors run by themselves.
    {"**/.hg/", "Mercurial runs its hooks and extensions for any hg command here", ".hg/"},
    {"**/.jj/", "jj runs what its repository config says for any jj command here", ".jj/"},
    // Agent CLIs started in the project: Claude Code runs the hooks, status line and helpers
    // its settings name and the MCP servers .mcp.json names; Codex, Gemini CLI, Cursor and VS
    // Code's agent the same from theirs. All of .claude/settings*.json: the policy sees names,
    // not content, and permission rules there loosen what a later agent may do unasked.
    {"**/.claude/settings*.json", k_agent_cli, ""},
    {"**/.claude/hooks/", k_agent_cli, ".claude/hooks/"},
    {".mcp.json", k_agent_cli, ""},
    {"**/.codex/", k_agent_cli, ".codex/"},
    {"**/.gemini/settings.json", k_agent_cli, ".gemini/settings.json"},
    {"**/.vscode/mcp.json", k_agent_cli, ".vscode/mcp.json"},
    {"**/.cursor/mcp.json", k_agent_cli, ".cursor/mcp.json"},
    // The same for the other agent CLIs and IDE agents: opencode starts the local MCP servers
    // of opencode.json and loads the plugins of .opencode/plugin/ at every start; Crush its
    // MCP servers and language servers; Qwen Code (a Gemini CLI fork), Amazon Q, Roo Code,
    // Kiro and Continue the MCP servers of their project files.
    {"opencode.json", k_agent_cli, ""},
    {"opencode.jsonc", k_agent_cli, ""},
    {"**/.opencode/", k_agent_cli, ".opencode/"},
    {".crush.json", k_agent_cli, ""},
    {"crush.json", k_agent_cli, ""},
    {"**/.qwen/settings.json", k_agent_cli, ".qwen/settings.json"},
    {"**/.amazonq/mcp.json", k_agent_cli, ".amazonq/mcp.json"},
    {"**/.roo/mcp.json", k_agent_cli, ".roo/mcp.json"},
    {"**/.kiro/settings/", k_agent_cli, ".kiro/settings/"},
    {"**/.continue/mcpServers/", k_agent_cli, ".continue/mcpServers/"},
};

constexpr const char* k_hook_names[] = {
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "pre-rebase",
    "post-checkout",
    "post-merge",
    "pre-push",
    "pre-receive",
    "update",
    "proc-receive",
    "post-receive",
    "post-update",
    "reference-transaction",
    "push-to-checkout",
    "pre-auto-gc",
    "post-rewrite",
    "sendemail-validate",
    "fsmonitor-watchman",
    "p4-changelist",
    "p4-prepare-changelist",
    "p4-post-changelist",
    "p4-pre-submit",
    "post-index-change",
};

} // namespace

std::span<const PlaceRule> place_rules() {
  return k_places;
}

std::span<const NameRule> self_running_rules() {
  return k_self_running;
}

bool is_git_hook_name(std::string_view name) {
  for (const char* hook : k_hook_names) {
    if (iequal(name, hook)) {
      return true;
    }
  }
  return false;
}

} // namespace ws::filters
