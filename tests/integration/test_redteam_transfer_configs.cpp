// Red team 12 against the transfer: a config the person already has in the REAL tree runs a
// project script by itself (a git hook, a .pre-commit-config.yaml local hook, a husky hook and
// the package.json script it runs, a Claude Code hook, a VS Code folderOpen task, lefthook,
// direnv, a dev container's initializeCommand, an MCP server), and the agent changes the
// SCRIPT, not the config (whose own change is withheld by name). Each case plants the config
// in the real tree, has the agent edit the script in a real view, and checks what a person
// would: the verdict and reason in `ws diff --json`, `ws status`, `ws apply` (nothing lands
// unless included) and, where the tool is here (git hooks, npm), that the script really runs.
#include "tests/integration/review_terminal.hpp"
#include "tests/support/harness.hpp"
#include "tests/support/tool_files.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

constexpr auto npos = std::string::npos;

bool withheld_for(const std::string& verdict, const std::string& reason_part) {
  return verdict.rfind("withheld", 0) == 0 && verdict.find(reason_part) != npos;
}

/// The agent's version of `path` in the view: a script that leaves a mark where it runs.
std::string plant(const fs::path& mark) {
  return "import pathlib; pathlib.Path('" + mark.string() + "').touch()\n";
}

} // namespace

TEST_CASE("redteam transfer configs: a script the real git hook runs is withheld everywhere, "
          "and --include lands it") {
  TestRepo repo;
  repo.write("tools/check.py", "print('checked')\n");
  repo.write("tools/other.py", "print('other')\n");
  repo.commit_all();
  // The person's own pre-commit hook (not in the project: .git/hooks).
  write_file(repo.path() / ".git/hooks/pre-commit",
             "#!/bin/sh\n# lint first\npython3 tools/check.py\n", true);
  MountedWorkspace w(repo);
  TempDir marks;
  const fs::path mark = marks.path() / "ran";
  REQUIRE(w.in_view("printf %s " + q(plant(mark)) + " > tools/check.py && echo x >> tools/other.py")
              .status == 0);

  const std::string v = verdict_of(w, "tools/check.py");
  INFO("tools/check.py: " << v);
  CHECK(v == "withheld: your git hook .git/hooks/pre-commit runs it on every git commit");
  CHECK(verdict_of(w, "tools/other.py").rfind("transfer", 0) == 0); // named by nothing

  Run st = w.ws("status");
  INFO("ws status:\n" << st.out << st.err);
  CHECK(st.out.find("tools/check.py") != npos);
  CHECK(st.out.find("your git hook .git/hooks/pre-commit runs it") != npos);
  Run d = w.ws("diff --no-pager");
  INFO("ws diff:\n" << d.out << d.err);
  CHECK(d.out.find("+++ b/tools/check.py") == npos); // not in the patch
  CHECK((d.out + d.err).find("your git hook .git/hooks/pre-commit runs it") != npos);

  {
    if (have("tmux")) {
      ReviewTerminal t(w, repo, "", 160, 30, "LC_ALL=C.UTF-8");
      t.wait_for("WITHHELD (1)");
      CHECK(t.screen().find("tools/check.py") != npos);
      t.keys("q", "ws-exit=");
    } else {
      MESSAGE("no tmux: ws review not checked");
    }
  }

  Run a = w.ws("apply");
  INFO("ws apply: " << a.status << "\n" << a.out << a.err);
  REQUIRE(a.status == 0);
  CHECK(repo.read("tools/check.py") == "print('checked')\n");
  CHECK(repo.read("tools/other.py") == "print('other')\nx\n");
  // The person's next commit runs the hook: their own check.py, not the agent's.
  Run c = sh("git add -A && git -c user.name=P -c user.email=p@example.com commit -qm person",
             repo.path());
  INFO("git commit: " << c.out << c.err);
  CHECK(c.status == 0);
  CHECK((c.out + c.err).find("checked") != npos); // the hook ran (git sends its output to stderr)
  CHECK(!fs::exists(mark));

  // Taken on purpose, it lands, and the next commit runs it: what the reason said.
  Run inc = w.ws("apply --include tools/check.py");
  INFO("ws apply --include: " << inc.status << "\n" << inc.out << inc.err);
  REQUIRE(inc.status == 0);
  sh("echo y >> README.md && git add -A && git -c user.name=P -c user.email=p@example.com "
     "commit -qm again",
     repo.path());
  CHECK(fs::exists(mark));
}

TEST_CASE("redteam transfer configs: an edit of the real config between two ws diff runs "
          "changes the verdict (the kept plan's input)") {
  TestRepo repo;
  repo.write("tools/a.py", "print('a')\n");
  repo.write("tools/b.py", "print('b')\n");
  repo.write(".pre-commit-config.yaml", "repos:\n- repo: local\n  hooks:\n  - id: a\n"
                                        "    name: a\n    entry: python3 tools/a.py\n"
                                        "    language: system\n");
  repo.commit_all();
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("echo '# x' >> tools/a.py && echo '# y' >> tools/b.py").status == 0);
  CHECK(withheld_for(verdict_of(w, "tools/a.py"),
                     "your .pre-commit-config.yaml runs it on every git commit (hook a)"));
  CHECK(verdict_of(w, "tools/b.py").rfind("transfer", 0) == 0);
  // The same again: the kept plan.
  CHECK(verdict_of(w, "tools/b.py").rfind("transfer", 0) == 0);
  // The person points the hook at b.py, in their real tree.
  repo.write(".pre-commit-config.yaml", "repos:\n- repo: local\n  hooks:\n  - id: b\n"
                                        "    name: b\n    entry: python3 ./tools/b.py\n"
                                        "    language: system\n    stages: [pre-push]\n");
  CHECK(withheld_for(verdict_of(w, "tools/b.py"),
                     "your .pre-commit-config.yaml runs it on every git push (hook b)"));
  CHECK(verdict_of(w, "tools/a.py").rfind("transfer", 0) == 0);
  // And a git hook the person adds, outside the project.
  write_file(repo.path() / ".git/hooks/post-checkout", "#!/bin/sh\nsh tools/a.py\n", true);
  CHECK(withheld_for(verdict_of(w, "tools/a.py"),
                     "your git hook .git/hooks/post-checkout runs it on every git checkout"));
}

TEST_CASE("redteam transfer configs: pre-commit, Claude Code, VS Code, lefthook, direnv, dev "
          "container and MCP configs name scripts - withheld") {
  TestRepo repo;
  repo.write(".pre-commit-config.yaml",
             "# the person's hooks\n"
             "default_install_hook_types: [pre-commit, pre-push]\n"
             "repos:\n"
             "  - repo: https://github.com/pre-commit/pre-commit-hooks\n"
             "    rev: v4.0.0\n"
             "    hooks: [{id: trailing-whitespace, args: [remote/args.py]}]\n"
             "  - repo: local\n"
             "    hooks:\n"
             "      - id: check\n"
             "        name: check\n"
             "        entry: python3 tools/check.py\n"
             "        language: system\n"
             "      - id: lint\n"
             "        name: lint\n"
             "        entry: tools/lint.sh\n"
             "        language: script\n"
             "      - id: argd\n"
             "        name: argd\n"
             "        entry: python3\n"
             "        args: ['tools/argd.py', '--strict']\n"
             "        language: system\n"
             "      - id: mod\n"
             "        name: mod\n"
             "        entry: python3 -m tools.modcheck\n"
             "        language: system\n"
             "      - id: manual\n"
             "        name: manual\n"
             "        entry: python3 tools/manual.py\n"
             "        language: system\n"
             "        stages: [manual]\n");
  repo.write(".claude/settings.json",
             "{\"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": "
             "\"command\", \"command\": \"bash scripts/lint.sh\"}]}],\n"
             " \"SessionStart\": [{\"hooks\": [{\"type\": \"command\", \"command\": "
             "\"\\\"$CLAUDE_PROJECT_DIR\\\"/tools/session.py\"}]}]},\n"
             " \"statusLine\": {\"type\": \"command\", \"command\": \"node tools/status.js\"},\n"
             " \"apiKeyHelper\": \"./tools/key.sh\"}\n");
  repo.write(
      ".vscode/tasks.json",
      "{\n  // VS Code's own format: comments and trailing commas\n  \"version\": \"2.0.0\",\n"
      "  \"tasks\": [\n"
      "    {\"label\": \"watch\", \"type\": \"shell\", \"command\": \"python3\",\n"
      "     \"args\": [\"${workspaceFolder}/tools/watch.py\"], \"dependsOn\": [\"prep\"],\n"
      "     \"runOptions\": {\"runOn\": \"folderOpen\"},},\n"
      "    {\"label\": \"prep\", \"type\": \"process\", \"command\": \"./tools/prep.sh\"},\n"
      "    {\"label\": \"by-hand\", \"type\": \"shell\", \"command\": \"tools/by-hand.sh\"},\n"
      "  ],\n}\n");
  repo.write("lefthook.yml", "pre-push:\n  commands:\n    lint:\n      run: sh ./tools/y.sh "
                             "{push_files}\n");
  repo.write(".envrc", "source_env tools/env.sh\ndotenv_if_exists config/dev.env\n"
                       "watch_file tools/watched.txt\n");
  repo.write(".devcontainer/devcontainer.json",
             "{\"initializeCommand\": [\"bash\", \"tools/init.sh\"],\n"
             " \"postStartCommand\": {\"a\": \"python3 tools/start.py\"}}\n");
  repo.write(".mcp.json", "{\"mcpServers\": {\"db\": {\"command\": \"node\", \"args\": "
                          "[\"tools/mcp.js\"]}}}\n");
  repo.write(".gemini/settings.json", "{\"mcpServers\": {\"fs\": {\"command\": "
                                      "\"python3 -m tools.gemsrv\"}}}\n");
  const std::vector<std::pair<std::string, std::string>> named{
      {"tools/check.py", "your .pre-commit-config.yaml runs it on every git commit (hook check)"},
      {"tools/lint.sh", "your .pre-commit-config.yaml runs it on every git commit (hook lint)"},
      {"tools/argd.py", "your .pre-commit-config.yaml runs it on every git commit (hook argd)"},
      {"tools/modcheck.py", "(hook mod)"},
      {"tools/__init__.py", "(hook mod)"},
      {"scripts/lint.sh", "your .claude/settings.json runs it in every Claude Code session here "
                          "(PreToolUse hook)"},
      {"tools/session.py", "(SessionStart hook)"},
      {"tools/status.js", "(statusLine)"},
      {"tools/key.sh", "(apiKeyHelper)"},
      {"tools/watch.py",
       "your .vscode/tasks.json runs it when VS Code opens the folder (task 'watch')"},
      {"tools/prep.sh", "(task 'prep')"},
      {"tools/y.sh", "your lefthook.yml runs it on every git push (pre-push command lint)"},
      {"tools/env.sh", "your .envrc runs it when you cd into the project (direnv)"},
      {"config/dev.env", "your .envrc runs it"},
      {"tools/init.sh", "your .devcontainer/devcontainer.json runs it on this machine when its "
                        "dev container starts (initializeCommand)"},
      {"tools/start.py", "(postStartCommand)"},
      {"tools/mcp.js", "your .mcp.json runs it when an agent CLI starts here (MCP server db)"},
      {"tools/gemsrv.py", "your .gemini/settings.json runs it when an agent CLI starts here "
                          "(MCP server fs)"}};
  const std::vector<std::string> unnamed{"tools/manual.py", "tools/by-hand.sh", "tools/watched.txt",
                                         "remote/args.py", "tools/plain.py"};
  std::string script;
  for (const auto& entry : named) {
    repo.write(entry.first, "print(1)\n");
    script += "echo '# agent' >> " + entry.first + " && ";
  }
  for (const std::string& path : unnamed) {
    repo.write(path, "print(1)\n");
    script += "echo '# agent' >> " + path + " && ";
  }
  repo.commit_all();
  MountedWorkspace w(repo);
  REQUIRE(w.in_view(script + "true").status == 0);
  const std::vector<JsonChange> changes = diff_changes(w);
  auto verdict = [&](const std::string& path) {
    for (const JsonChange& c : changes) {
      if (c.path == path) {
        return c.verdict + ": " + c.reason;
      }
    }
    return std::string("(not a change)");
  };
  for (const auto& entry : named) {
    const std::string v = verdict(entry.first);
    INFO(entry.first << ": " << v);
    CHECK(withheld_for(v, entry.second));
  }
  for (const std::string& path : unnamed) {
    const std::string v = verdict(path);
    INFO(path << ": " << v);
    CHECK(v.rfind("transfer", 0) == 0);
  }
  Run a = w.ws("apply");
  INFO("ws apply: " << a.status << "\n" << a.out << a.err);
  REQUIRE(a.status == 0);
  for (const auto& entry : named) {
    CHECK_MESSAGE(repo.read(entry.first) == "print(1)\n", entry.first << " landed");
  }
  CHECK(repo.read("tools/plain.py") == "print(1)\n# agent\n");
}

TEST_CASE("redteam transfer configs: a husky hook's npm test runs package.json's script on "
          "commit - the script and package.json are withheld") {
  TestRepo repo;
  repo.write("package.json", "{\"name\": \"p\", \"version\": \"1.0.0\", \"scripts\": "
                             "{\"pretest\": \"sh tools/pre.sh\", \"test\": \"node "
                             "scripts/test.js\"}}\n");
  repo.write("scripts/test.js", "console.log('tests pass')\n");
  repo.write("tools/pre.sh", "true\n");
  repo.write(".husky/pre-commit", "npm test\n");
  // npm loads this into every node a script starts.
  repo.write(".npmrc", "fund=false\nnode-options = --require ./tools/preload.js\n");
  repo.write("tools/preload.js", "\n");
  repo.commit_all();
  // What husky's install does: git runs the hooks in .husky (here directly).
  REQUIRE(
      sh("chmod +x .husky/pre-commit && git config core.hooksPath .husky", repo.path()).status ==
      0);
  MountedWorkspace w(repo);
  TempDir marks;
  const fs::path mark = marks.path() / "ran";
  REQUIRE(w.in_view("printf '%s\\n' \"require('fs').writeFileSync('" + mark.string() +
                    "', 'x')\" > scripts/test.js && echo '# agent' >> tools/pre.sh && "
                    "echo '// agent' >> tools/preload.js && echo 'x=1' >> .npmrc && "
                    "sed -i 's/node scripts/node  scripts/' package.json")
              .status == 0);
  const std::string v = verdict_of(w, "scripts/test.js");
  INFO("scripts/test.js: " << v);
  CHECK(v == "withheld: your .husky/pre-commit runs it on every git commit "
             "(package.json's \"test\" script)");
  CHECK(withheld_for(verdict_of(w, "tools/pre.sh"), "your .husky/pre-commit runs it"));
  CHECK(withheld_for(verdict_of(w, "package.json"), "your .husky/pre-commit runs its scripts on "
                                                    "every git commit"));
  CHECK(withheld_for(verdict_of(w, "tools/preload.js"), "(package.json's \"test\" script, "
                                                        "node-options)"));
  CHECK(withheld_for(verdict_of(w, ".npmrc"), "your .husky/pre-commit runs npm with it"));
  Run a = w.ws("apply");
  INFO("ws apply: " << a.status << "\n" << a.out << a.err);
  REQUIRE(a.status == 0);
  if (!have("npm") || !have("node")) {
    MESSAGE("no npm: the commit that would run it is not tried");
    return;
  }
  Run inc = w.ws("apply --include scripts/test.js");
  REQUIRE(inc.status == 0);
  Run c = sh("echo y >> README.md && git add README.md && git -c user.name=P "
             "-c user.email=p@example.com commit -qm person",
             repo.path());
  INFO("git commit: " << c.status << c.out << c.err);
  CHECK_MESSAGE(fs::exists(mark), "the husky hook did not run package.json's test script");
}

TEST_CASE("redteam transfer configs: a named script renamed onto, renamed away or deleted") {
  TestRepo repo;
  repo.write("tools/check.py", "print('checked')\n");
  repo.write("tools/spare.py", "print('spare')\n");
  repo.write("tools/gone.py", "print('gone')\n");
  repo.write(".pre-commit-config.yaml",
             "repos:\n- repo: local\n  hooks:\n  - {id: c, name: c, entry: python3 "
             "tools/check.py, language: system}\n  - {id: g, name: g, entry: python3 "
             "tools/gone.py, language: system}\n");
  repo.commit_all();
  MountedWorkspace w(repo);
  // The agent's own file takes the named one's place: a rename keeps nothing.
  REQUIRE(w.in_view("mv tools/check.py tools/old-check.py && mv tools/spare.py tools/check.py && "
                    "rm tools/gone.py")
              .status == 0);
  for (const JsonChange& c : diff_changes(w)) {
    INFO(c.status << " " << c.path << " <- " << c.from << ": " << c.verdict << ": " << c.reason);
    if (c.path == "tools/check.py") {
      CHECK(c.verdict == "withheld");
    }
    if (c.path == "tools/gone.py") {
      CHECK(c.verdict == "flagged");
      CHECK(c.reason.find("(deleted)") != npos);
    }
  }
}

TEST_CASE("redteam transfer configs: the real pre-commit runs a local hook's script on commit - "
          "the agent's version does not land") {
  if (!have("pre-commit")) {
    MESSAGE("skipped: no pre-commit (Debian's pre-commit package)");
    return;
  }
  TestRepo repo;
  repo.write("tools/check.py", "print('checked')\n");
  repo.write(".pre-commit-config.yaml", "repos:\n- repo: local\n  hooks:\n  - id: check\n"
                                        "    name: check\n    entry: python3 tools/check.py\n"
                                        "    language: system\n    pass_filenames: false\n"
                                        "    always_run: true\n");
  repo.commit_all();
  TempDir home;
  const std::string env = "HOME=" + q(home.path().string()) + " ";
  Run inst = sh(env + "pre-commit install", repo.path());
  REQUIRE_MESSAGE(inst.status == 0, inst.out << inst.err);
  MountedWorkspace w(repo);
  TempDir marks;
  const fs::path mark = marks.path() / "ran";
  REQUIRE(w.in_view("printf %s " + q(plant(mark)) + " > tools/check.py").status == 0);
  CHECK(verdict_of(w, "tools/check.py") ==
        "withheld: your .pre-commit-config.yaml runs it on every git commit (hook check)");
  REQUIRE(w.ws("apply").status == 0);
  // pre-commit runs what is staged: the person stages everything, as `git commit -a` would.
  const std::string commit =
      env + "git add -A && git -c user.name=P -c user.email=p@example.com commit -q "
            "--allow-empty -m c";
  Run c = sh(commit, repo.path());
  INFO("git commit: " << c.status << c.out << c.err);
  CHECK(c.status == 0);
  CHECK((c.out + c.err).find("check") != npos); // pre-commit ran the hook
  CHECK(!fs::exists(mark));
  // Taken on purpose, the next commit runs it: what the reason said.
  REQUIRE(w.ws("apply --include tools/check.py").status == 0);
  Run c2 = sh(commit, repo.path());
  INFO("git commit: " << c2.status << c2.out << c2.err);
  CHECK(fs::exists(mark));
}

// Red team 12, found while closing the above: the names a tool resolves beyond the word written
// (node adds .js and index.js, Python runs a directory's __main__.py), a hook that changes
// directory first, the top found with git, and the hook managers configured in package.json
// (husky 4, simple-git-hooks, lint-staged) all landed their scripts with no verdict.
TEST_CASE("redteam transfer configs: resolved names, cd, the top from git, and package.json's "
          "hook managers") {
  TestRepo repo;
  write_file(repo.path() / ".git/hooks/pre-push",
             "#!/bin/sh\nnode scripts/build\npython3 tools/app\n"
             "sh \"$(git rev-parse --show-toplevel)/tools/top.sh\"\n"
             "cd web && npm run check\n",
             true);
  repo.write("web/package.json", "{\"scripts\": {\"check\": \"node ./lint.js\"}}\n");
  repo.write("package.json",
             "{\"name\": \"p\", \"husky\": {\"hooks\": {\"commit-msg\": \"node tools/msg.js\"}},\n"
             " \"lint-staged\": {\"*.py\": [\"python3 tools/fmt.py\"]}}\n");
  const std::vector<std::pair<std::string, std::string>> named{
      {"scripts/build.js", "your git hook .git/hooks/pre-push runs it on every git push"},
      {"scripts/build/index.js", "your git hook .git/hooks/pre-push runs it"},
      {"tools/app/__main__.py", "your git hook .git/hooks/pre-push runs it"},
      {"tools/top.sh", "your git hook .git/hooks/pre-push runs it"},
      {"web/lint.js", "(package.json's \"check\" script)"},
      {"tools/msg.js", "your package.json runs it on every git commit (husky commit-msg)"},
      {"tools/fmt.py", "your package.json runs it on every git commit (lint-staged *.py)"}};
  std::string script;
  for (const auto& entry : named) {
    repo.write(entry.first, "1\n");
    script += "echo 2 >> " + entry.first + " && ";
  }
  repo.write("web/other.js", "1\n");
  // A hook the person linked into the project, as many do.
  repo.write("tools/hooks/commit-msg", "#!/bin/sh\ntrue\n");
  fs::create_symlink("../../tools/hooks/commit-msg", repo.path() / ".git/hooks/commit-msg");
  repo.commit_all();
  MountedWorkspace w(repo);
  REQUIRE(w.in_view(script + "echo 2 >> web/other.js && echo '{}' > package.json && "
                             "echo 'touch /tmp/x' >> tools/hooks/commit-msg")
              .status == 0);
  CHECK(verdict_of(w, "tools/hooks/commit-msg") ==
        "withheld: your git hook .git/hooks/commit-msg runs it on every git commit (a symlink to "
        "this file)");
  const std::vector<JsonChange> changes = diff_changes(w);
  for (const auto& entry : named) {
    std::string v = "(not a change)";
    for (const JsonChange& c : changes) {
      if (c.path == entry.first) {
        v = c.verdict + ": " + c.reason;
      }
    }
    INFO(entry.first << ": " << v);
    CHECK(withheld_for(v, entry.second));
  }
  CHECK(withheld_for(verdict_of(w, "package.json"), "your package.json runs what it says"));
  CHECK(verdict_of(w, "web/other.js").rfind("transfer", 0) == 0);
}
