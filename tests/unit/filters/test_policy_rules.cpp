// The rules by what a file does (issue 10): files that run code by themselves are withheld,
// files a named tool runs are flagged; symlinks by where they really lead; submodules; the
// real repository's core.hooksPath. Each row checks the verdict and the reason a person reads.
#include "filters/pattern.hpp"
#include "filters/policy.hpp"
#include "tests/support/path_facts.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>

#include <string>
#include <vector>

using namespace ws::filters;
using namespace ws::test;

namespace {

struct Row {
  std::string what;
  PathFacts facts;
  Verdict verdict;
  std::string reason; ///< the whole reason (empty for Transfer)
};

void check_rows(const std::vector<Row>& rows, const PolicyConfig& config = {}) {
  for (const Row& row : rows) {
    CAPTURE(row.what);
    CAPTURE(row.facts.path);
    Decision d = decide(row.facts, config);
    CHECK(std::string(verdict_name(d.verdict)) == verdict_name(row.verdict));
    CHECK(d.reason == row.reason);
  }
}

constexpr const char* k_python = "Python runs it at every start-up: ";
constexpr const char* k_direnv = "direnv loads it when you cd into the project: ";
constexpr const char* k_nix = "direnv (use nix, use flake) runs it when you cd into the project: ";
constexpr const char* k_rustup = "rustup runs the toolchain it names for every cargo and rustc: ";
constexpr const char* k_mise = "mise runs its env and hooks when you cd into the project: ";
constexpr const char* k_commit = "git's hooks run what it says on commit: ";
constexpr const char* k_editor = "your editor runs what it says when it opens the project: ";
constexpr const char* k_agent_cli =
    "an agent CLI runs what it says when it starts here (hooks, MCP servers, helpers): ";

/// Path and the whole reason of every rule that withholds a file running code by itself.
const std::vector<std::pair<std::string, std::string>> k_self_running = {
    {"sitecustomize.py", std::string(k_python) + "sitecustomize.py"},
    {"src/pkg/sitecustomize.py", std::string(k_python) + "sitecustomize.py"},
    {"usercustomize.py", std::string(k_python) + "usercustomize.py"},
    {"lib/editable.pth", std::string(k_python) + "editable.pth"},
    {".env", std::string(k_direnv) + ".env"},
    {"app/.env.local", std::string(k_direnv) + ".env.local"},
    {".envrc.local", std::string(k_direnv) + ".envrc.local"},
    {"shell.nix", std::string(k_nix) + "shell.nix"},
    {"flake.nix", std::string(k_nix) + "flake.nix"},
    {"devenv.nix", std::string(k_nix) + "devenv.nix"},
    {"rust-toolchain", std::string(k_rustup) + "rust-toolchain"},
    {"crates/x/rust-toolchain.toml", std::string(k_rustup) + "rust-toolchain.toml"},
    {".tool-versions",
     "asdf and mise run the tools it names (path: takes any directory): .tool-versions"},
    {"mise.toml", std::string(k_mise) + "mise.toml"},
    {".mise.toml", std::string(k_mise) + ".mise.toml"},
    {"mise.local.toml", std::string(k_mise) + "mise.local.toml"},
    {".config/mise/config.toml", std::string(k_mise) + ".config/mise/"},
    {".yarnrc.yml", "yarn runs the yarn it names (yarnPath) for every command: .yarnrc.yml"},
    {".yarnrc", "yarn runs the yarn it names (yarn-path) for every command: .yarnrc"},
    {".yarn/releases/yarn-4.1.cjs", "yarn itself, run for every yarn command: .yarn/releases/"},
    {".yarn/plugins/p.cjs", "yarn runs these for every command: .yarn/plugins/"},
    {"gradle/wrapper/gradle-wrapper.properties",
     "./gradlew runs the gradle it names: gradle/wrapper/"},
    {".mvn/wrapper/maven-wrapper.properties", "./mvnw runs the maven it names: .mvn/wrapper/"},
    {".bazelversion", "bazelisk runs the bazel it names: .bazelversion"},
    {"tools/bazel", "the bazel launcher runs it instead of bazel: tools/bazel"},
    {".pre-commit-config.yaml", std::string(k_commit) + ".pre-commit-config.yaml"},
    {"lefthook.yml", std::string(k_commit) + "lefthook.yml"},
    {".lefthook.yml", std::string(k_commit) + ".lefthook.yml"},
    {".husky/pre-commit", std::string(k_commit) + ".husky/"},
    {".lintstagedrc.json", std::string(k_commit) + ".lintstagedrc.json"},
    {"commitlint.config.js", std::string(k_commit) + "commitlint.config.js"},
    {".vscode/settings.json", std::string(k_editor) + ".vscode/settings.json"},
    {".vscode/tasks.json", std::string(k_editor) + ".vscode/tasks.json"},
    {"proj.code-workspace", std::string(k_editor) + "proj.code-workspace"},
    {".idea/workspace.xml", std::string(k_editor) + ".idea/workspace.xml"},
    {".claude/settings.json", std::string(k_agent_cli) + "settings.json"},
    {".claude/settings.local.json", std::string(k_agent_cli) + "settings.local.json"},
    {"sub/.claude/settings.json", std::string(k_agent_cli) + "settings.json"},
    {".claude/hooks/format.sh", std::string(k_agent_cli) + ".claude/hooks/"},
    {".mcp.json", std::string(k_agent_cli) + ".mcp.json"},
    {".codex/config.toml", std::string(k_agent_cli) + ".codex/"},
    {".codex/AGENTS.md", std::string(k_agent_cli) + ".codex/"},
    {".gemini/settings.json", std::string(k_agent_cli) + ".gemini/settings.json"},
    {".vscode/mcp.json", std::string(k_agent_cli) + ".vscode/mcp.json"},
    {".cursor/mcp.json", std::string(k_agent_cli) + ".cursor/mcp.json"},
    {".zed/settings.json", std::string(k_editor) + ".zed/settings.json"},
    {".helix/languages.toml", std::string(k_editor) + ".helix/languages.toml"},
    {"readline.py", "Python runs it when you start python3 in its directory (the interactive "
                    "prompt imports it): readline.py"},
    {"tools/rlcompleter/__init__.py", "Python runs it when you start python3 in its directory "
                                      "(the interactive prompt imports it): rlcompleter/"},
    {"pip.py", "python3 -m pip started in its directory runs it instead of pip: pip.py"},
    {"pip/__main__.py", "python3 -m pip started in its directory runs it instead of pip: pip/"},
    {"opencode.json", std::string(k_agent_cli) + "opencode.json"},
    {".opencode/plugin/x.ts", std::string(k_agent_cli) + ".opencode/"},
    {".crush.json", std::string(k_agent_cli) + ".crush.json"},
    {".qwen/settings.json", std::string(k_agent_cli) + ".qwen/settings.json"},
    {".amazonq/mcp.json", std::string(k_agent_cli) + ".amazonq/mcp.json"},
    {".roo/mcp.json", std::string(k_agent_cli) + ".roo/mcp.json"},
    {".kiro/settings/mcp.json", std::string(k_agent_cli) + ".kiro/settings/"},
    {".continue/mcpServers/x.yaml", std::string(k_agent_cli) + ".continue/mcpServers/"},
};

} // namespace

TEST_CASE("filters::decide withholds files that run code by themselves") {
  std::vector<Row> rows;
  for (const auto& [path, reason] : k_self_running) {
    rows.push_back({"added", added(path), Verdict::Withheld, reason});
    rows.push_back({"modified", modified(path), Verdict::Withheld, reason});
    // What it is counts before its exec bit: the reason says which tool runs it.
    rows.push_back({"executable", added(path, k_exe), Verdict::Withheld, reason});
    rows.push_back({"renamed onto", renamed("notes.txt", path), Verdict::Withheld, reason});
    // Going away lands no code, but changes what runs.
    rows.push_back({"deleted", deleted(path), Verdict::Flagged, reason + " (deleted)"});
    rows.push_back({"renamed away", renamed(path, "old/notes.txt"), Verdict::Flagged,
                    reason + ", renamed from '" + path + "'"});
  }
  check_rows(rows);
}

TEST_CASE("filters::decide folds case for files that run by themselves") {
  check_rows({
      {"SiteCustomize", added("SiteCustomize.py"), Verdict::Withheld,
       std::string(k_python) + "SiteCustomize.py"},
      {".PTH", added("x/Evil.PTH"), Verdict::Withheld, std::string(k_python) + "Evil.PTH"},
      {".ENV", added(".ENV"), Verdict::Withheld, std::string(k_direnv) + ".ENV"},
      {"RUST-TOOLCHAIN.TOML", added("Rust-Toolchain.TOML"), Verdict::Withheld,
       std::string(k_rustup) + "Rust-Toolchain.TOML"},
      {".Husky", added(".Husky/pre-commit"), Verdict::Withheld, std::string(k_commit) + ".husky/"},
      {".VSCode", modified(".VSCode/Settings.JSON"), Verdict::Withheld,
       std::string(k_editor) + ".vscode/settings.json"},
      {"TOOLS/BAZEL", added("TOOLS/BAZEL"), Verdict::Withheld,
       "the bazel launcher runs it instead of bazel: tools/bazel"},
  });
}

TEST_CASE("filters::decide leaves look-alikes of self-running files alone") {
  check_rows({
      {"suffix", added("sitecustomize.py.txt"), Verdict::Transfer, ""},
      {"prefix", added("my_sitecustomize.py"), Verdict::Transfer, ""},
      {".pth inside a name", added("docs/x.pth.md"), Verdict::Transfer, ""},
      {".environment", added(".environment"), Verdict::Transfer, ""},
      {"env.md", added("docs/env.md"), Verdict::Transfer, ""},
      {"bazel elsewhere", added("src/tools/bazel"), Verdict::Transfer, ""},
      {"other .vscode file", modified(".vscode/extensions.json"), Verdict::Flagged,
       "runs code on your machine: .vscode/"},
      {"other .idea file", modified(".idea/codeStyles/Project.xml"), Verdict::Flagged,
       "runs code on your machine: .idea/"},
      {".envrc: direnv asks again", modified(".envrc"), Verdict::Flagged,
       "runs code on your machine: .envrc"},
  });
}

TEST_CASE("filters::decide flags instructions to later agents") {
  const std::string instructs = "instructs the agents you run here later: ";
  std::vector<Row> rows;
  for (const auto& [path, label] : std::vector<std::pair<std::string, std::string>>{
           {"CLAUDE.md", "CLAUDE.md"},
           {"src/CLAUDE.md", "CLAUDE.md"},
           {"CLAUDE.local.md", "CLAUDE.local.md"},
           {"AGENTS.md", "AGENTS.md"},
           {"GEMINI.md", "GEMINI.md"},
           {".claude/commands/deploy.md", ".claude/commands/"},
           {".claude/agents/reviewer.md", ".claude/agents/"},
           {".claude/skills/x/SKILL.md", ".claude/skills/"},
           {".cursor/rules/style.mdc", ".cursor/rules/"},
           {".cursorrules", ".cursorrules"},
           {".github/copilot-instructions.md", ".github/copilot-instructions.md"},
           {".github/instructions/py.instructions.md", ".github/instructions/"},
       }) {
    rows.push_back({"added", added(path), Verdict::Flagged, instructs + label});
    rows.push_back({"modified", modified(path), Verdict::Flagged, instructs + label});
    rows.push_back({"deleted", deleted(path), Verdict::Flagged, instructs + label + " (deleted)"});
  }
  // Look-alikes: another name, or copilot's file below the top.
  rows.push_back({"claude.md.bak", added("CLAUDE.md.bak"), Verdict::Transfer, ""});
  rows.push_back({".claude/notes.txt", added(".claude/notes.txt"), Verdict::Transfer, ""});
  rows.push_back(
      {"nested .github", added("docs/.github/copilot-instructions.md"), Verdict::Transfer, ""});
  check_rows(rows);
}

TEST_CASE("filters::decide flags files a named tool runs") {
  const std::string runs = "runs code on your machine: ";
  const std::string installs = "decides what code gets installed: ";
  const std::string ci = "runs in CI with the repository's secrets: ";
  const std::string toolchain = "picks the toolchain that runs: ";
  std::vector<Row> rows;
  auto flag = [&rows](const std::string& path, const std::string& reason) {
    rows.push_back({"modified", modified(path), Verdict::Flagged, reason});
    rows.push_back({"deleted", deleted(path), Verdict::Flagged, reason + " (deleted)"});
  };
  for (const char* name : {"pytest.ini",
                           ".pdbrc",
                           ".pylintrc",
                           "pylintrc",
                           ".coveragerc",
                           "mypy.ini",
                           ".flake8",
                           "ipython_config.py",
                           "jupyter_server_config.py",
                           "CMakePresets.json",
                           "CMakeUserPresets.json",
                           "Taskfile.yml",
                           "Taskfile.yaml",
                           "justfile",
                           ".justfile",
                           "Justfile",
                           "meson.build",
                           "meson_options.txt",
                           "BUILD",
                           "BUILD.bazel",
                           "WORKSPACE",
                           "MODULE.bazel",
                           "defs.bzl",
                           ".bazelrc",
                           "build.gradle",
                           "build.gradle.kts",
                           "settings.gradle",
                           "gradle.properties",
                           "pom.xml",
                           "jest.config.js",
                           "vite.config.ts",
                           "webpack.config.cjs",
                           "babel.config.mjs",
                           "eslint.config.mjs",
                           "prettier.config.cjs",
                           ".eslintrc.js",
                           ".eslintrc.json",
                           ".babelrc",
                           ".prettierrc",
                           ".mocharc.yml",
                           "karma.conf.js",
                           "gulpfile.js",
                           "Gruntfile.js",
                           "bunfig.toml",
                           "deno.json",
                           "pnpm-workspace.yaml",
                           "Vagrantfile",
                           "Containerfile",
                           "compose.yaml",
                           ".irbrc",
                           "default.nix",
                           "composer.json"}) {
    flag(std::string("sub/") + name, runs + name);
  }
  flag(".mvn/extensions.xml", runs + ".mvn/");
  flag(".mvn/jvm.config", runs + ".mvn/");
  flag("buildSrc/src/main/kotlin/x.kt", runs + "buildSrc/");
  for (const char* name :
       {"requirements.txt", "requirements-dev.txt", "constraints.txt", "package-lock.json",
        "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "go.mod", "go.work", "go.sum",
        "Cargo.lock", "poetry.lock", "uv.lock", "Pipfile.lock", "Gemfile.lock", "flake.lock"}) {
    flag(name, installs + name);
  }
  flag("requirements/base.txt", installs + "requirements/");
  for (const char* name : {".python-version", ".node-version", ".ruby-version"}) {
    flag(name, toolchain + name);
  }
  flag(".github/actions/setup/action.yml", ci + ".github/actions/");
  flag("ci/local-action/action.yaml", ci + "action.yaml");
  flag(".gitlab-ci.yml", ci + ".gitlab-ci.yml");
  flag(".circleci/config.yml", ci + ".circleci/");
  flag(".lfsconfig", "changes what git sees: .lfsconfig");
  // Build and CI inputs beside the ones above: the reason names who runs them.
  for (const auto& [path, reason] : std::vector<std::pair<std::string, std::string>>{
           {"configure.ac",
            "runs code on your machine (autoreconf, ./configure, make): configure.ac"},
           {"configure", "runs code on your machine (autoreconf, ./configure, make): configure"},
           {"lib/Makefile.am",
            "runs code on your machine (autoreconf, ./configure, make): Makefile.am"},
           {"Makefile.in",
            "runs code on your machine (autoreconf, ./configure, make): Makefile.in"},
           {"m4/ax_pthread.m4",
            "runs code on your machine (autoreconf, ./configure, make): ax_pthread.m4"},
           {".gitea/workflows/ci.yml",
            "runs in CI with the repository's secrets (Gitea Actions): .gitea/workflows/"},
           {".forgejo/workflows/ci.yml",
            "runs in CI with the repository's secrets (Forgejo Actions): .forgejo/workflows/"},
           {".woodpecker/build.yml",
            "runs in CI with the repository's secrets (Woodpecker): .woodpecker/"},
           {".drone.yml", "runs in CI with the repository's secrets (Drone): .drone.yml"},
           {"Directory.Build.props",
            "runs code on your machine (dotnet build, msbuild): Directory.Build.props"},
           {"src/Directory.Build.targets",
            "runs code on your machine (dotnet build, msbuild): Directory.Build.targets"},
           {"src/App/App.csproj", "runs code on your machine (dotnet build, msbuild): App.csproj"},
           {"NuGet.config", "decides what code gets installed (dotnet restore): NuGet.config"},
           {"global.json", "picks the toolchain that runs (dotnet): global.json"},
           {"build.zig", "runs code on your machine (zig build): build.zig"},
           {"build.zig.zon", "decides what code gets installed (zig build): build.zig.zon"},
           {"Package.swift", "runs code on your machine (swift build): Package.swift"},
           {"build.sbt", "runs code on your machine (sbt): build.sbt"},
           {"project/Deps.scala", "runs code on your machine (sbt): project/"},
           {"mix.exs", "runs code on your machine (mix): mix.exs"},
           {"mix.lock", "decides what code gets installed (mix): mix.lock"},
           {"conanfile.py", "runs code on your machine (conan install): conanfile.py"},
           {"conanfile.txt", "decides what code gets installed (conan install): conanfile.txt"},
           {"build.ninja", "runs code on your machine (ninja): build.ninja"},
           {"xmake.lua", "runs code on your machine (xmake): xmake.lua"},
           {"premake5.lua", "runs code on your machine (premake): premake5.lua"},
           {"BUCK", "runs code on your machine (buck2): BUCK"},
           {"my.cabal", "runs code on your machine (cabal): my.cabal"},
           {"dune-project", "runs code on your machine (dune): dune-project"},
           {".zed/tasks.json", "runs code on your machine (Zed's tasks): .zed/"},
           {".helix/config.toml", "runs code on your machine (Helix): .helix/"},
           {".nvim.lua", "runs code on your machine (Neovim with exrc, once trusted): .nvim.lua"},
       }) {
    flag(path, reason);
  }
  rows.push_back({"nested .gitea", added("docs/.gitea/workflows/ci.yml"), Verdict::Transfer, ""});
  rows.push_back(
      {"src/project/x.scala is not sbt's", added("src/project/x.scala"), Verdict::Transfer, ""});
  // Case folded, and a rename onto and away.
  rows.push_back({"PYTEST.INI", modified("PYTEST.INI"), Verdict::Flagged, runs + "PYTEST.INI"});
  rows.push_back(
      {"renamed onto", renamed("x.txt", "go.mod"), Verdict::Flagged, installs + "go.mod"});
  rows.push_back({"renamed away", renamed("CMakePresets.json", "old.json"), Verdict::Flagged,
                  runs + "CMakePresets.json, renamed from 'CMakePresets.json'"});
  // A file rule names the file, never a directory above it.
  rows.push_back({"build/ is not BUILD", added("build/out.txt"), Verdict::Transfer, ""});
  rows.push_back({"Makefile/ is no Makefile", added("docs/Makefile/notes"), Verdict::Transfer, ""});
  rows.push_back({"not a config", added("src/config.js"), Verdict::Transfer, ""});
  rows.push_back({"not a requirements file", added("docs/requirements.md"), Verdict::Transfer, ""});
  check_rows(rows);
}

TEST_CASE("filters::decide withholds symlinks by where they really lead") {
  check_rows({
      // `src/up -> ..` makes `deep/.../up/../../../..` leave the project, which no lexical
      // reading of the target can see.
      {"outside", symlink("passwd-link", "src/up/../../etc/passwd", SymlinkReach::Outside),
       Verdict::Withheld, "symlink pointing outside the project (src/up/../../etc/passwd)"},
      {"into .git", symlink("h", "src/g/hooks", SymlinkReach::IntoGit), Verdict::Withheld,
       "symlink pointing into .git (src/g/hooks)"},
      {"loop", symlink("a", "b", SymlinkReach::Unresolvable), Verdict::Withheld,
       "symlink loop or too deep (b)"},
      {"inside", symlink("docs/l", "../README.md", SymlinkReach::Inside), Verdict::Transfer, ""},
      // The lexical checks still come first and read the same.
      {"absolute", symlink("p", "/etc/passwd", SymlinkReach::Outside), Verdict::Withheld,
       "symlink to an absolute path (/etc/passwd)"},
      {"lexical dot-dot", symlink("p", "../x", SymlinkReach::Inside), Verdict::Withheld,
       "symlink pointing outside the project (../x)"},
      {"lexical .git", symlink("p", ".git/config", SymlinkReach::Inside), Verdict::Withheld,
       "symlink pointing into .git (.git/config)"},
      {"deleting a link is fine",
       with(deleted("old-link"), [](auto& f) { f.symlink_reach = SymlinkReach::Outside; }),
       Verdict::Transfer, ""},
  });
}

TEST_CASE("filters::decide blocks submodule contents and withholds its pointer") {
  auto in_sub = [](PathFacts f) {
    f.submodule = "vendor/lib";
    return f;
  };
  auto pointer = [](PathFacts f) {
    f.gitlink = true;
    return f;
  };
  const std::string never = "never transferred: inside submodule 'vendor/lib'";
  check_rows({
      {"added inside", in_sub(added("vendor/lib/src/a.c")), Verdict::Blocked, never},
      {"modified inside", in_sub(modified("vendor/lib/Makefile")), Verdict::Blocked, never},
      {"deleted inside", in_sub(deleted("vendor/lib/README")), Verdict::Blocked, never},
      {"renamed out of it", in_sub(renamed("vendor/lib/a.c", "src/a.c")), Verdict::Blocked, never},
      {"pointer modified", pointer(modified("vendor/lib")), Verdict::Withheld, "submodule pointer"},
      {"pointer deleted", pointer(deleted("vendor/lib")), Verdict::Withheld, "submodule pointer"},
      {"pointer replaced by a file", pointer(facts(ChangeType::TypeChanged, "vendor/lib")),
       Verdict::Withheld, "submodule pointer"},
      {"pointer renamed", pointer(renamed("vendor/lib", "vendor/lib2")), Verdict::Withheld,
       "submodule pointer"},
  });
}

TEST_CASE("filters::decide withholds everything in the real core.hooksPath") {
  PolicyConfig config;
  config.hooks_path = "tools/hooks";
  const std::string reason = "in core.hooksPath 'tools/hooks' (git runs these on commit, push...)";
  check_rows(
      {
          {"new hook", added("tools/hooks/pre-commit"), Verdict::Withheld, reason},
          {"new executable hook", added("tools/hooks/pre-commit", k_exe), Verdict::Withheld,
           reason},
          {"edited helper", modified("tools/hooks/lib/common.sh"), Verdict::Withheld, reason},
          {"deleted hook", deleted("tools/hooks/pre-push"), Verdict::Withheld, reason},
          {"case folded", added("Tools/Hooks/post-checkout"), Verdict::Withheld, reason},
          {"the directory replaced by a symlink",
           with(facts(ChangeType::TypeChanged, "tools/hooks", S_IFLNK | 0777),
                [](auto& f) { f.symlink_target = "../evil"; }),
           Verdict::Withheld, reason},
          {"renamed into", renamed("notes.txt", "tools/hooks/commit-msg"), Verdict::Withheld,
           reason},
          {"renamed out of", renamed("tools/hooks/commit-msg", "notes.txt"), Verdict::Withheld,
           reason + ", renamed from 'tools/hooks/commit-msg'"},
          {"a sibling directory", added("tools/hooksx/pre-commit"), Verdict::Transfer, ""},
          {"the parent", added("tools/pre-commit"), Verdict::Transfer, ""},
      },
      config);
  // core.hooksPath = . (the top): only hook names there.
  config.hooks_path = ".";
  check_rows(
      {
          {"top hook", added("pre-commit"), Verdict::Withheld,
           "in core.hooksPath '.' (git runs these on commit, push...)"},
          {"a hook name below", added("src/pre-commit"), Verdict::Transfer, ""},
          {"other top file", added("README"), Verdict::Transfer, ""},
      },
      config);
  // Unset: nothing special.
  check_rows({{"unset", added("tools/hooks/pre-commit"), Verdict::Transfer, ""}});
}

TEST_CASE("filters::at_or_below compares whole components") {
  CHECK(at_or_below("a/b", "a/b", false));
  CHECK(at_or_below("a/b/c", "a/b", false));
  CHECK(!at_or_below("a/bc", "a/b", false));
  CHECK(!at_or_below("a", "a/b", false));
  CHECK(!at_or_below("A/B/c", "a/b", false));
  CHECK(at_or_below("A/B/c", "a/b", true));
  CHECK(!at_or_below("a", "", true));
}

// Red team 10: more of what tools load by themselves from a project. Each was a plain
// transfer before (tests/integration/test_redteam_transfer_implicit.cpp runs the real tools
// where they are installed).
TEST_CASE("filters::decide withholds modules Python imports at start-up, by any form") {
  std::vector<Row> rows;
  for (const auto& [path, label] : std::vector<std::pair<std::string, std::string>>{
           {"sitecustomize/__init__.py", "sitecustomize/"},
           {"src/sitecustomize/hook.py", "sitecustomize/"},
           {"usercustomize/__init__.py", "usercustomize/"},
           {"_distutils_hack.py", "_distutils_hack.py"},
           {"src/_distutils_hack/__init__.py", "_distutils_hack/"},
           {"_virtualenv.py", "_virtualenv.py"},
           {"lib/_virtualenv/__init__.py", "_virtualenv/"},
       }) {
    const std::string reason = std::string(k_python) + label;
    rows.push_back({"added", added(path), Verdict::Withheld, reason});
    rows.push_back({"modified", modified(path), Verdict::Withheld, reason});
    rows.push_back({"deleted", deleted(path), Verdict::Flagged, reason + " (deleted)"});
  }
  rows.push_back({"look-alike", added("my_sitecustomize/__init__.py"), Verdict::Transfer, ""});
  rows.push_back({"look-alike", added("docs/_virtualenv.md"), Verdict::Transfer, ""});
  check_rows(rows);
}

TEST_CASE("filters::decide withholds what yarn, R and other version control systems load "
          "by themselves") {
  const std::string yarn = "yarn loads it into every node it starts: ";
  const std::string r = "R runs it at every start-up in the project: ";
  std::vector<Row> rows;
  for (const auto& [path, reason] : std::vector<std::pair<std::string, std::string>>{
           {".pnp.cjs", yarn + ".pnp.cjs"},
           {".pnp.js", yarn + ".pnp.js"},
           {"app/.pnp.loader.mjs", yarn + ".pnp.loader.mjs"},
           {".yarn/sdks/eslint/lib/api.js", std::string(k_editor) + ".yarn/sdks/"},
           {".Rprofile", r + ".Rprofile"},
           {"analysis/.Renviron", r + ".Renviron"},
           {".hg/hgrc", "Mercurial runs its hooks and extensions for any hg command here: .hg/"},
           {"vendor/x/.hg/hgrc",
            "Mercurial runs its hooks and extensions for any hg command here: .hg/"},
           {".jj/repo/config.toml",
            "jj runs what its repository config says for any jj command here: .jj/"},
           {"mise/config.toml",
            "mise runs its env and hooks when you cd into the project: mise/config.toml"},
       }) {
    rows.push_back({"added", added(path), Verdict::Withheld, reason});
    rows.push_back({"modified", modified(path), Verdict::Withheld, reason});
  }
  // Yarn's unpacked packages are a tool-made place, as node_modules/ is.
  rows.push_back({"unplugged", modified(".yarn/unplugged/esbuild-npm-0.19.0/node/install.js"),
                  Verdict::Withheld, "under .yarn/unplugged/ (packages yarn installed)"});
  rows.push_back({"unplugged deleted", deleted(".yarn/unplugged/x/package.json"), Verdict::Withheld,
                  "under .yarn/unplugged/ (packages yarn installed)"});
  rows.push_back({".hgignore", added(".hgignore"), Verdict::Transfer, ""});
  rows.push_back({".Rhistory", added(".Rhistory"), Verdict::Transfer, ""});
  check_rows(rows);
}

TEST_CASE("filters::decide flags what a named tool merges in or runs, beside the files above") {
  std::vector<Row> rows;
  for (const auto& [path, reason] : std::vector<std::pair<std::string, std::string>>{
           {"pytest.toml", "runs code on your machine: pytest.toml"},
           {".pytest.toml", "runs code on your machine: .pytest.toml"},
           {"docker-compose.override.yml",
            "runs code on your machine: docker-compose.override.yml"},
           {"compose.override.yaml", "runs code on your machine: compose.override.yaml"},
           {"Procfile", "runs code on your machine (foreman, honcho, overmind): Procfile"},
           {"Brewfile", "runs code on your machine (brew bundle): Brewfile"},
           {"ios/Podfile", "runs code on your machine (pod install): Podfile"},
           {"fastlane/Fastfile", "runs code on your machine (fastlane): Fastfile"},
           {"Snakefile", "runs code on your machine (snakemake): Snakefile"},
           {"dvc.yaml", "runs code on your machine (dvc repro): dvc.yaml"},
           {"infra/main.tf", "runs code on your machine (terraform plan): main.tf"},
           {"pixi.toml", "runs code on your machine (pixi): pixi.toml"},
           {"devbox.json", "runs code on your machine (devbox): devbox.json"},
           {".dir-locals.el",
            "runs code on your machine (Emacs, once you accept its eval): .dir-locals.el"},
           {"binding.gyp", "runs code on your machine (npm install, node-gyp): binding.gyp"},
           {"deps/common.gypi", "runs code on your machine (npm install, node-gyp): common.gypi"},
           {"hatch_build.py",
            "runs code on your machine (pip install, hatch build): hatch_build.py"},
           {"pdm_build.py", "runs code on your machine (pip install, pdm build): pdm_build.py"},
           {"docs/conf.py", "runs code on your machine (sphinx-build): conf.py"},
           {"mkdocs.yml", "runs code on your machine (mkdocs: hooks): mkdocs.yml"},
           {"rakelib/deploy.rake",
            "runs code on your machine (rake loads rakelib/*.rake): deploy.rake"},
           {"cpanfile", "decides what code gets installed: cpanfile"},
           {"nix/devshell.nix", "runs code on your machine (nix develop, nix build): devshell.nix"},
           {".gdbinit", "runs code on your machine (gdb, where auto-load allows it): .gdbinit"},
           {".lldbinit",
            "runs code on your machine (lldb, where it reads the directory's): .lldbinit"},
       }) {
    rows.push_back({"added", added(path), Verdict::Flagged, reason});
    rows.push_back({"modified", modified(path), Verdict::Flagged, reason});
  }
  rows.push_back({"look-alike", added("docs/terraform.tf.md"), Verdict::Transfer, ""});
  rows.push_back({"look-alike", added("src/config.py"), Verdict::Transfer, ""});
  // What a self-running rule names first keeps its verdict.
  rows.push_back({"flake.nix", added("flake.nix"), Verdict::Withheld,
                  "direnv (use nix, use flake) runs it when you cd into the project: flake.nix"});
  check_rows(rows);
}

TEST_CASE("filters::decide knows the REPLs, test runners and editor plug-ins that load a project "
          "file by themselves") {
  std::vector<Row> rows;
  for (const auto& [path, reason] : std::vector<std::pair<std::string, std::string>>{
           {".ghci", "runs code on your machine (ghci, cabal repl, stack ghci): .ghci"},
           {"lib/.ocamlinit", "runs code on your machine (the ocaml toplevel, utop): .ocamlinit"},
           {".iex.exs", "runs code on your machine (iex): .iex.exs"},
           {".erlang", "runs code on your machine (erl): .erlang"},
           {".sbtopts", "runs code on your machine (sbt: -J options): .sbtopts"},
           {".jvmopts",
            "runs code on your machine (sbt: JVM options such as -javaagent): .jvmopts"},
           {".nycrc", "runs code on your machine (nyc: require): .nycrc"},
           {".nycrc.json", "runs code on your machine (nyc: require): .nycrc.json"},
           {".taprc", "runs code on your machine (tap: node-arg, before): .taprc"},
           {".busted", "runs code on your machine (busted): .busted"},
           {"Guardfile", "runs code on your machine (guard): Guardfile"},
           {".storybook/main.js", "runs code on your machine (storybook): .storybook/"},
           {".czrc", "runs code on your machine (commitizen: its adapter path): .czrc"},
           {".releaserc.yml",
            "runs code on your machine (semantic-release: plugins): .releaserc.yml"},
           {"nx.json", "runs code on your machine (nx: plugins): nx.json"},
           {"truffle-config.js", "runs code on your machine (truffle): truffle-config.js"},
           {"foundry.toml", "runs code on your machine (forge: ffi): foundry.toml"},
           {"skaffold.yaml", "runs code on your machine (skaffold: build hooks): skaffold.yaml"},
           {"environment.yml",
            "decides what code gets installed (conda env create): environment.yml"},
           {"renv.lock", "decides what code gets installed (renv::restore): renv.lock"},
           {".vimrc", "runs code on your machine (Vim and Neovim with exrc): .vimrc"},
           {".lvimrc", "runs code on your machine (Vim's localvimrc): .lvimrc"},
           {".ycm_extra_conf.py",
            "runs code on your machine (Vim's YouCompleteMe): .ycm_extra_conf.py"},
       }) {
    rows.push_back({"added", added(path), Verdict::Flagged, reason});
    rows.push_back({"modified", modified(path), Verdict::Flagged, reason});
  }
  // Run by themselves: R at every start (renv's .Rprofile sources it), direnv's layouts on PATH.
  const std::string renv =
      "R runs it at every start-up in the project (renv's .Rprofile): renv/activate.R";
  rows.push_back({"renv", modified("renv/activate.R"), Verdict::Withheld, renv});
  rows.push_back({"renv below the top", added("pkg/renv/activate.R"), Verdict::Transfer, ""});
  rows.push_back({"direnv layout", added(".direnv/python-3.11/bin/activate"), Verdict::Withheld,
                  "under .direnv/ (direnv's layouts: on your PATH in the project)"});
  rows.push_back({"look-alike", added("docs/ghci.md"), Verdict::Transfer, ""});
  check_rows(rows);
}

TEST_CASE("filters::decide withholds what the person's own configs run, flags it going away") {
  PolicyConfig config;
  const std::string reason = "your .pre-commit-config.yaml runs it on every git commit (hook c)";
  config.run_by_configs.push_back({"tools/check.py", reason});
  check_rows(
      {
          {"edited", modified("tools/check.py"), Verdict::Withheld, reason},
          {"edited, executable: the config's reason first", modified("tools/check.py", k_exe),
           Verdict::Withheld, reason},
          {"the agent's file renamed onto it", renamed("notes.py", "tools/check.py"),
           Verdict::Withheld, reason},
          {"renamed away", renamed("tools/check.py", "notes.py"), Verdict::Flagged,
           reason + ", renamed from 'tools/check.py'"},
          {"deleted", deleted("tools/check.py"), Verdict::Flagged, reason + " (deleted)"},
          {"a neighbour", modified("tools/check2.py"), Verdict::Transfer, ""},
          {"below a name", modified("tools/check.py/x"), Verdict::Transfer, ""},
      },
      config);
}
