// The built-in rule tables. A rule belongs where the principle puts it:
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

// --- flagged: a tool the person names runs it -------------------------------------------------

constexpr const char* k_runs = "runs code on your machine";
constexpr const char* k_entry_points = "runs code on your machine (python3 -m pytest loads the "
                                       "plugins its entry points name)";
constexpr const char* k_installs = "decides what code gets installed";
constexpr const char* k_toolchain = "picks the toolchain that runs";
constexpr const char* k_ci = "runs in CI with the repository's secrets";
constexpr const char* k_git_sees = "changes what git sees";
constexpr const char* k_instructs = "instructs the agents you run here later";
// Where the tool is not plain from the name, the reason names who runs the file.
constexpr const char* k_autotools = "runs code on your machine (autoreconf, ./configure, make)";
constexpr const char* k_msbuild = "runs code on your machine (dotnet build, msbuild)";
constexpr const char* k_nuget = "decides what code gets installed (dotnet restore)";

constexpr NameRule k_flags[] = {
    // Editors, dev containers and environment loaders.
    {".envrc", k_runs, ""}, // direnv asks again before running a changed .envrc
    {"**/.vscode/", k_runs, ".vscode/"},
    {"**/.idea/", k_runs, ".idea/"},
    {"**/.zed/", "runs code on your machine (Zed's tasks)", ".zed/"},
    {"**/.helix/", "runs code on your machine (Helix)", ".helix/"},
    {".nvim.lua", "runs code on your machine (Neovim with exrc, once trusted)", ""},
    {".nvimrc", "runs code on your machine (Neovim with exrc, once trusted)", ""},
    {".lazy.lua", "runs code on your machine (Neovim's lazy.nvim, once trusted)", ""},
    {".exrc", "runs code on your machine (Vim and Neovim with exrc)", ""},
    {".vimrc", "runs code on your machine (Vim and Neovim with exrc)", ""},
    {".gvimrc", "runs code on your machine (Vim and Neovim with exrc)", ""},
    {".lvimrc", "runs code on your machine (Vim's localvimrc)", ""},
    {".ycm_extra_conf.py", "runs code on your machine (Vim's YouCompleteMe)", ""},
    {".gdbinit", "runs code on your machine (gdb, where auto-load allows it)", ""},
    {".lldbinit", "runs code on your machine (lldb, where it reads the directory's)", ""},
    {"**/.devcontainer/", k_runs, ".devcontainer/"},
    {".devcontainer.json", k_runs, ""},
    {"**/.githooks/", k_runs, ".githooks/"},
    {".nvmrc", k_toolchain, ""},
    {".node-version", k_toolchain, ""},
    {".python-version", k_toolchain, ""},
    {".ruby-version", k_toolchain, ""},
    {".java-version", k_toolchain, ""},
    {".go-version", k_toolchain, ""},
    {".sdkmanrc", k_toolchain, ""},
    // CI runs these with the repository's secrets; composite actions run from unchanged
    // workflows.
    {"/.github/workflows/", k_ci, ".github/workflows/"},
    {"/.github/actions/", k_ci, ".github/actions/"},
    {"action.yml", k_ci, ""},
    {"action.yaml", k_ci, ""},
    {".gitlab-ci.yml", k_ci, ""},
    {"/.circleci/", k_ci, ".circleci/"},
    {"/.buildkite/", k_ci, ".buildkite/"},
    {".travis.yml", k_ci, ""},
    {"azure-pipelines.yml", k_ci, ""},
    {"bitbucket-pipelines.yml", k_ci, ""},
    {"Jenkinsfile", k_ci, ""},
    {"/.gitea/workflows/", "runs in CI with the repository's secrets (Gitea Actions)",
     ".gitea/workflows/"},
    {"/.forgejo/workflows/", "runs in CI with the repository's secrets (Forgejo Actions)",
     ".forgejo/workflows/"},
    {".woodpecker.yml", "runs in CI with the repository's secrets (Woodpecker)", ""},
    {".woodpecker.yaml", "runs in CI with the repository's secrets (Woodpecker)", ""},
    {"/.woodpecker/", "runs in CI with the repository's secrets (Woodpecker)", ".woodpecker/"},
    {".drone.yml", "runs in CI with the repository's secrets (Drone)", ""},
    {"appveyor.yml", "runs in CI with the repository's secrets (AppVeyor)", ""},
    {".appveyor.yml", "runs in CI with the repository's secrets (AppVeyor)", ""},
    {".cirrus.yml", "runs in CI with the repository's secrets (Cirrus CI)", ""},
    {"/.semaphore/", "runs in CI with the repository's secrets (Semaphore)", ".semaphore/"},
    // What git itself reads from the tree.
    {".gitattributes", k_git_sees, ""},
    {".gitignore", k_git_sees, ""},
    {".gitmodules", k_git_sees, ""},
    {".lfsconfig", k_git_sees, ""}, // lfs.url: where git-lfs fetches and pushes
    // make, cmake, meson, bazel, task runners.
    {"Makefile", k_runs, ""},
    {"GNUmakefile", k_runs, ""},
    {"*.mk", k_runs, ""},
    // autotools: autoreconf turns these into ./configure and the Makefiles it writes.
    {"configure", k_autotools, ""},
    {"configure.ac", k_autotools, ""},
    {"configure.in", k_autotools, ""},
    {"Makefile.am", k_autotools, ""},
    {"Makefile.in", k_autotools, ""},
    {"*.m4", k_autotools, ""}, // aclocal.m4, acinclude.m4, m4/*.m4: macros configure expands
    {"build.ninja", "runs code on your machine (ninja)", ""},
    {"*.ninja", "runs code on your machine (ninja)", ""},
    {"xmake.lua", "runs code on your machine (xmake)", ""},
    {"premake5.lua", "runs code on your machine (premake)", ""},
    {"premake4.lua", "runs code on your machine (premake)", ""},
    {"wscript", "runs code on your machine (waf)", ""},
    {"build.zig", "runs code on your machine (zig build)", ""},
    {"build.zig.zon", "decides what code gets installed (zig build)", ""},
    {"CMakeLists.txt", k_runs, ""},
    {"*.cmake", k_runs, ""},
    {"CMakePresets.json", k_runs, ""},
    {"CMakeUserPresets.json", k_runs, ""},
    {"meson.build", k_runs, ""},
    {"meson_options.txt", k_runs, ""},
    {"meson.options", k_runs, ""},
    {"BUILD", k_runs, ""},
    {"BUILD.bazel", k_runs, ""},
    {"WORKSPACE", k_runs, ""},
    {"WORKSPACE.bazel", k_runs, ""},
    {"WORKSPACE.bzlmod", k_runs, ""},
    {"MODULE.bazel", k_runs, ""},
    {"*.bzl", k_runs, ""},
    {".bazelrc", k_runs, ""},
    {"BUCK", "runs code on your machine (buck2)", ""},
    {".buckconfig", "runs code on your machine (buck2)", ""},
    {"pants.toml", "runs code on your machine (pants)", ""},
    {"SConstruct", k_runs, ""},
    {"SConscript", k_runs, ""},
    {"justfile", k_runs, ""}, // just also reads Justfile, .justfile: case is folded
    {".justfile", k_runs, ""},
    {"Taskfile.yml", k_runs, ""},
    {"Taskfile.yaml", k_runs, ""},
    {"Taskfile.dist.yml", k_runs, ""},
    {"Taskfile.dist.yaml", k_runs, ""},
    {"Earthfile", k_runs, ""},
    {"Tiltfile", k_runs, ""},
    {"Vagrantfile", k_runs, ""},
    // Gradle and Maven.
    {"*.gradle", k_runs, ""},
    {"*.gradle.kts", k_runs, ""},
    {"gradle.properties", k_runs, ""},
    {"gradlew", k_runs, ""},
    {"gradlew.bat", k_runs, ""},
    {"**/buildSrc/", k_runs, "buildSrc/"},
    {"pom.xml", k_runs, ""},
    {"**/.mvn/", k_runs, ".mvn/"}, // extensions.xml, jvm.config (-javaagent), maven.config
    {"mvnw", k_runs, ""},
    {"mvnw.cmd", k_runs, ""},
    // sbt and mill (Scala), Leiningen and the Clojure CLI.
    {"*.sbt", "runs code on your machine (sbt)", ""},
    {"project/*.scala", "runs code on your machine (sbt)", "project/"},
    {"project/build.properties", "picks the toolchain that runs (sbt)", "project/"},
    {"build.sc", "runs code on your machine (mill)", ""},
    {"project.clj", "runs code on your machine (lein)", ""},
    {"deps.edn", "runs code on your machine (clojure)", ""},
    // MSBuild imports Directory.Build.* into every project below it; project files run their
    // Exec tasks.
    {"Directory.Build.props", k_msbuild, ""},
    {"Directory.Build.targets", k_msbuild, ""},
    {"Directory.Build.rsp", k_msbuild, ""},
    {"*.csproj", k_msbuild, ""},
    {"*.fsproj", k_msbuild, ""},
    {"*.vbproj", k_msbuild, ""},
    {"*.vcxproj", k_msbuild, ""},
    {"*.props", k_msbuild, ""},
    {"*.targets", k_msbuild, ""},
    {"NuGet.config", k_nuget, ""},
    {"packages.lock.json", k_nuget, ""},
    {"global.json", "picks the toolchain that runs (dotnet)", ""},
    // Node and its tools: configs they execute as JavaScript, package files.
    {"package.json", k_runs, ""},
    {".npmrc", k_runs, ""},
    {".pnpmfile.cjs", k_runs, ""},
    {"pnpm-workspace.yaml", k_runs, ""},
    {"bunfig.toml", k_runs, ""},
    {"deno.json", k_runs, ""},
    {"deno.jsonc", k_runs, ""},
    {"*.config.js", k_runs, ""},
    {"*.config.cjs", k_runs, ""},
    {"*.config.mjs", k_runs, ""},
    {"*.config.ts", k_runs, ""},
    {"*.config.cts", k_runs, ""},
    {"*.config.mts", k_runs, ""},
    {"*.conf.js", k_runs, ""}, // karma.conf.js, protractor.conf.js
    {".*rc.js", k_runs, ""},
    {".*rc.cjs", k_runs, ""},
    {".*rc.mjs", k_runs, ""},
    {".*rc.ts", k_runs, ""},
    {".babelrc*", k_runs, ""},
    {"babel.config.json", k_runs, ""},
    {".eslintrc*", k_runs, ""},
    {".prettierrc*", k_runs, ""},
    {".mocharc*", k_runs, ""},
    {".stylelintrc*", k_runs, ""},
    {"Gruntfile.*", k_runs, ""},
    {"gulpfile.*", k_runs, ""},
    {"package-lock.json", k_installs, ""},
    {"npm-shrinkwrap.json", k_installs, ""},
    {"yarn.lock", k_installs, ""},
    {"pnpm-lock.yaml", k_installs, ""},
    {"bun.lock", k_installs, ""},
    {"bun.lockb", k_installs, ""},
    // `npm install` runs `node-gyp rebuild` by itself where a binding.gyp is (no script
    // needed), and gyp runs the commands in `<!(...)` while it reads the files.
    {"*.gyp", "runs code on your machine (npm install, node-gyp)", ""},
    {"*.gypi", "runs code on your machine (npm install, node-gyp)", ""},
    // Python and its tools.
    {"setup.py", k_runs, ""},
    {"setup.cfg", k_runs, ""}, // [tool:pytest] addopts = -p plugin
    {"pyproject.toml", k_runs, ""},
    {"conftest.py", k_runs, ""},
    // Package metadata in the open: with the directory on sys.path (`python3 -m pytest` puts
    // it there), importlib.metadata finds its entry points, and pytest loads every `pytest11`
    // plugin they name at start (flake8, sphinx and others load theirs the same way).
    {"*.dist-info/", k_entry_points, "*.dist-info/"},
    {"*.egg-info/", k_entry_points, "*.egg-info/"},
    {"pytest.ini", k_runs, ""},
    {".pytest.ini", k_runs, ""},
    {"pytest.toml", k_runs, ""}, // pytest 9
    {".pytest.toml", k_runs, ""},
    {"noxfile.py", k_runs, ""},
    {"tox.ini", k_runs, ""},
    {"hatch.toml", k_runs, ""},
    {"hatch_build.py", "runs code on your machine (pip install, hatch build)", ""},
    {"pdm_build.py", "runs code on your machine (pip install, pdm build)", ""},
    {"conf.py", "runs code on your machine (sphinx-build)", ""},
    {"mkdocs.yml", "runs code on your machine (mkdocs: hooks)", ""},
    {"mkdocs.yaml", "runs code on your machine (mkdocs: hooks)", ""},
    {".pdbrc", k_runs, ""},
    {".pylintrc", k_runs, ""}, // init-hook
    {"pylintrc", k_runs, ""},
    {".coveragerc", k_runs, ""}, // plugins
    {"mypy.ini", k_runs, ""},    // plugins
    {".mypy.ini", k_runs, ""},
    {".flake8", k_runs, ""}, // local-plugins
    {"ipython_config.py", k_runs, ""},
    {"jupyter_*_config.py", k_runs, ""},
    {"fabfile.py", k_runs, ""},
    {"dodo.py", k_runs, ""},
    {"requirements*.txt", k_installs, ""},
    {"constraints*.txt", k_installs, ""},
    {"**/requirements/", k_installs, "requirements/"},
    {"Pipfile", k_installs, ""},
    {"Pipfile.lock", k_installs, ""},
    {"poetry.lock", k_installs, ""},
    {"pdm.lock", k_installs, ""},
    {"uv.lock", k_installs, ""},
    {"uv.toml", k_installs, ""},
    {"pylock*.toml", k_installs, ""},
    // Rust and Go.
    {"Cargo.lock", k_installs, ""},
    {"go.mod", k_installs, ""}, // replace, toolchain
    {"go.work", k_installs, ""},
    {"go.sum", k_installs, ""},
    {"go.work.sum", k_installs, ""},
    // Swift, Elixir, Erlang, Haskell, OCaml, Dart, C and C++ package managers.
    {"Package.swift", "runs code on your machine (swift build)", ""},
    {"Package.resolved", "decides what code gets installed (swift build)", ""},
    {"mix.exs", "runs code on your machine (mix)", ""},
    {"mix.lock", "decides what code gets installed (mix)", ""},
    {"rebar.config", "runs code on your machine (rebar3)", ""},
    {"Setup.hs", "runs code on your machine (cabal)", ""},
    {"*.cabal", "runs code on your machine (cabal)", ""},
    {"cabal.project", "runs code on your machine (cabal)", ""},
    {"stack.yaml", "runs code on your machine (stack)", ""},
    {"dune", "runs code on your machine (dune)", ""},
    {"dune-project", "runs code on your machine (dune)", ""},
    {"pubspec.yaml", "runs code on your machine (dart, flutter)", ""},
    {"conanfile.py", "runs code on your machine (conan install)", ""},
    {"conanfile.txt", "decides what code gets installed (conan install)", ""},
    {"vcpkg.json", "decides what code gets installed (vcpkg)", ""},
    // Ruby, Perl, PHP, Nix, containers.
    {"Gemfile", k_runs, ""},
    {"Gemfile.lock", k_installs, ""},
    {"*.gemspec", k_runs, ""},
    {"Rakefile", k_runs, ""},
    {"*.rake", "runs code on your machine (rake loads rakelib/*.rake)", ""},
    {"cpanfile", k_installs, ""},
    {".irbrc", k_runs, ""},
    {".pryrc", k_runs, ""},
    {".rspec", k_runs, ""},
    {".rubocop.yml", k_runs, ""},
    {"**/.bundle/", k_runs, ".bundle/"},
    {"Makefile.PL", k_runs, ""},
    {"Build.PL", k_runs, ""},
    {"composer.json", k_runs, ""},
    {"composer.lock", k_installs, ""},
    {"default.nix", k_runs, ""},
    // What flake.nix and shell.nix import: a devShell's shellHook runs on `nix develop` (and
    // on cd with direnv's `use flake`, which the files above are withheld for).
    {"*.nix", "runs code on your machine (nix develop, nix build)", ""},
    {"flake.lock", k_installs, ""},
    {"Dockerfile", k_runs, ""},
    {"Containerfile", k_runs, ""},
    {"docker-compose.yml", k_runs, ""},
    {"docker-compose.yaml", k_runs, ""},
    {"compose.yml", k_runs, ""},
    {"compose.yaml", k_runs, ""},
    // `docker compose up` merges these into compose.yaml by itself (privileged, volumes, build).
    {"docker-compose.override.yml", k_runs, ""},
    {"docker-compose.override.yaml", k_runs, ""},
    {"compose.override.yml", k_runs, ""},
    {"compose.override.yaml", k_runs, ""},
    {"Procfile", "runs code on your machine (foreman, honcho, overmind)", ""},
    {"Brewfile", "runs code on your machine (brew bundle)", ""}, // Ruby
    {"Podfile", "runs code on your machine (pod install)", ""},  // Ruby
    {"Fastfile", "runs code on your machine (fastlane)", ""},    // Ruby
    {"Snakefile", "runs code on your machine (snakemake)", ""},  // Python
    {"dvc.yaml", "runs code on your machine (dvc repro)", ""},
    {"*.tf", "runs code on your machine (terraform plan)", ""}, // external data, local-exec
    {"pixi.toml", "runs code on your machine (pixi)", ""},
    {"devbox.json", "runs code on your machine (devbox)", ""},
    {".dir-locals.el", "runs code on your machine (Emacs, once you accept its eval)", ""},
    {".dir-locals-2.el", "runs code on your machine (Emacs, once you accept its eval)", ""},
    // Shell start-up files (a dotfiles repository, or a tool that sources them).
    {".bashrc", k_runs, ""},
    {".bash_profile", k_runs, ""},
    {".bash_login", k_runs, ""},
    {".profile", k_runs, ""},
    {".zshrc", k_runs, ""},
    {".zshenv", k_runs, ""},
    {".zprofile", k_runs, ""},
    // REPLs and test runners that load a file of the project by themselves when started in
    // it: the person names the tool, not the file.
    {".ghci", "runs code on your machine (ghci, cabal repl, stack ghci)", ""},
    {".ocamlinit", "runs code on your machine (the ocaml toplevel, utop)", ""},
    {".iex.exs", "runs code on your machine (iex)", ""},
    {".erlang", "runs code on your machine (erl)", ""},
    {".sbtopts", "runs code on your machine (sbt: -J options)", ""},
    {".jvmopts", "runs code on your machine (sbt: JVM options such as -javaagent)", ""},
    {".nycrc", "runs code on your machine (nyc: require)", ""},
    {".nycrc.*", "runs code on your machine (nyc: require)", ""},
    {".taprc", "runs code on your machine (tap: node-arg, before)", ""},
    {".busted", "runs code on your machine (busted)", ""},
    {"Guardfile", "runs code on your machine (guard)", ""},
    {".guard.rb", "runs code on your machine (guard)", ""},
    {"**/.storybook/", "runs code on your machine (storybook)", ".storybook/"},
    {".czrc", "runs code on your machine (commitizen: its adapter path)", ""},
    {".releaserc", "runs code on your machine (semantic-release: plugins)", ""},
    {".releaserc.*", "runs code on your machine (semantic-release: plugins)", ""},
    {"nx.json", "runs code on your machine (nx: plugins)", ""},
    {"truffle-config.js", "runs code on your machine (truffle)", ""},
    {"truffle.js", "runs code on your machine (truffle)", ""},
    {"foundry.toml", "runs code on your machine (forge: ffi)", ""},
    {"skaffold.yaml", "runs code on your machine (skaffold: build hooks)", ""},
    {"environment.yml", "decides what code gets installed (conda env create)", ""},
    {"environment.yaml", "decides what code gets installed (conda env create)", ""},
    {"renv.lock", "decides what code gets installed (renv::restore)", ""},
    // Instructions agent CLIs read as their own at every start in the project.
    {"CLAUDE.md", k_instructs, ""},
    {"CLAUDE.local.md", k_instructs, ""},
    {"AGENTS.md", k_instructs, ""},
    {"AGENTS.override.md", k_instructs, ""},
    {"GEMINI.md", k_instructs, ""},
    {"**/.claude/commands/", k_instructs, ".claude/commands/"},
    {"**/.claude/agents/", k_instructs, ".claude/agents/"},
    {"**/.claude/skills/", k_instructs, ".claude/skills/"},
    {"**/.cursor/rules/", k_instructs, ".cursor/rules/"},
    {".cursorrules", k_instructs, ""},
    {"/.github/copilot-instructions.md", k_instructs, ".github/copilot-instructions.md"},
    {"/.github/instructions/", k_instructs, ".github/instructions/"},
    // Amp, Cline, Windsurf, Goose, Junie, Roo Code, Kiro, Continue, Qwen Code: their rules,
    // hints, steering and commands.
    {"AGENT.md", k_instructs, ""},
    {".clinerules", k_instructs, ""},
    {"**/.clinerules/", k_instructs, ".clinerules/"},
    {".windsurfrules", k_instructs, ""},
    {"**/.windsurf/", k_instructs, ".windsurf/"},
    {".goosehints", k_instructs, ""},
    {"**/.junie/", k_instructs, ".junie/"},
    {"**/.roo/", k_instructs, ".roo/"},
    {"**/.kiro/", k_instructs, ".kiro/"},
    {"**/.continue/", k_instructs, ".continue/"},
    {"**/.qwen/", k_instructs, ".qwen/"},
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

std::span<const NameRule> flag_rules() {
  return k_flags;
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
