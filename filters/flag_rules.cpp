// The flagged rule table: files a tool the person runs by name executes or obeys (`make`,
// `pytest`, `npm install`, `cmake --preset`), and files that change what git sees. The
// principle that puts a rule here rather than in the withheld table is in policy_rules.cpp.
// Every pattern is matched ignoring case.
#include "filters/policy_rules.hpp"

namespace ws::filters {

namespace {

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

} // namespace

std::span<const NameRule> flag_rules() {
  return k_flags;
}

} // namespace ws::filters
