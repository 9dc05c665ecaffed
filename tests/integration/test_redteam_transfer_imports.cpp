// Red team 13 against the transfer: the person's own config (a git hook, a pre-commit local
// hook) runs a project script by name, and the agent changes not that script (withheld by
// red team 12) but what it loads: a Python module it imports (or a stdlib name it shadows
// from the script's directory), a file node `require`s, a shell file it sources or a script it
// runs in turn, the Makefile's `include` and the scripts its rules run. Each case plants the
// person's config and scripts in the real tree, has the agent edit the loaded file in a real
// view, checks the verdict a person reads, applies, and runs the REAL tool (git commit, make,
// node, python3) to see that the agent's code did not run; then `--include` lands it and it
// does, which is what the reason said.
#include "tests/support/harness.hpp"
#include "tests/support/tool_files.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

constexpr auto npos = std::string::npos;

const char* const k_commit = "git add -A && git -c user.name=P -c user.email=p@example.com "
                             "commit -q --allow-empty -m c";

/// Python that leaves a mark where it runs.
std::string py_mark(const fs::path& mark) {
  return "import pathlib; pathlib.Path('" + mark.string() + "').touch()\n";
}

/// The paths of `changed`, each checked withheld with `reason`; then `ws apply` lands none of
/// them and the person's `git commit` (whose hook runs the script) leaves no mark.
void check_withheld_then_commit(MountedWorkspace& w, TestRepo& repo,
                                const std::vector<std::string>& changed,
                                const std::vector<std::string>& reasons, const fs::path& marks) {
  for (size_t i = 0; i < changed.size(); ++i) {
    const std::string v = verdict_of(w, changed[i]);
    INFO(changed[i] << ": " << v);
    CHECK(v == "withheld: " + reasons[i]);
  }
  Run st = w.ws("status");
  INFO("ws status:\n" << st.out << st.err);
  CHECK(st.out.find("WITHHELD") != npos);
  Run a = w.ws("apply");
  INFO("ws apply: " << a.status << "\n" << a.out << a.err);
  REQUIRE(a.status == 0);
  Run c = sh(k_commit, repo.path());
  INFO("git commit: " << c.status << "\n" << c.out << c.err);
  CHECK(c.status == 0);
  CHECK((c.out + c.err).find("checked") != npos); // the person's hook ran
  CHECK(fs::is_empty(marks));                     // and none of the agent's code
}

/// Lands `path` on purpose; the next commit then runs the agent's code.
void include_then_commit(MountedWorkspace& w, TestRepo& repo, const std::string& path,
                         const fs::path& mark) {
  Run inc = w.ws("apply --include " + path);
  INFO("ws apply --include: " << inc.status << "\n" << inc.out << inc.err);
  REQUIRE(inc.status == 0);
  Run c = sh(k_commit, repo.path());
  INFO("git commit: " << c.status << "\n" << c.out << c.err);
  CHECK(fs::exists(mark));
}

} // namespace

TEST_CASE("redteam transfer imports: the modules a hook's Python script imports, and a stdlib "
          "name shadowed from its directory, run on the next git commit") {
  TestRepo repo;
  // The person's hook script: helpers from its own directory (sys.path[0]), the package
  // `tools` from the top (the script puts it on sys.path, as many do), and json (stdlib).
  repo.write("tools/check.py", "import os, sys\n"
                               "sys.path.insert(0, os.path.dirname(os.path.dirname("
                               "os.path.abspath(__file__))))\n"
                               "import json\n"
                               "import helpers as h\n"
                               "from tools.util import norm\n"
                               "from tools import (\n    style,\n)\n"
                               "h.run(); print(norm('checked'), json.dumps(style.x))\n");
  repo.write("tools/__init__.py", "");
  repo.write("tools/helpers.py", "def run():\n    pass\n");
  repo.write("tools/util.py", "from .deep import inner\n\ndef norm(s):\n    return inner(s)\n");
  repo.write("tools/deep.py", "def inner(s):\n    return s\n");
  repo.write("tools/style.py", "x = 1\n");
  repo.write("tools/other.py", "print('other')\n");
  repo.commit_all();
  write_file(repo.path() / ".git/hooks/pre-commit", "#!/bin/sh\npython3 tools/check.py\n", true);
  MountedWorkspace w(repo);
  TempDir marks;
  const std::string m = marks.path().string();
  // The agent: a helper, a module two imports deep, a package's submodule, and a json.py.
  REQUIRE(w.in_view("printf %s " + q(py_mark(m + "/helpers") + "def run():\n    pass\n") +
                    " > tools/helpers.py && printf %s " +
                    q(py_mark(m + "/deep") + "def inner(s):\n    return s\n") +
                    " > tools/deep.py && printf %s " + q(py_mark(m + "/style") + "x = 1\n") +
                    " > tools/style.py && printf %s " + q(py_mark(m + "/json") + "dumps = str\n") +
                    " > tools/json.py && echo '# x' >> tools/other.py")
              .status == 0);
  const std::string why = "your git hook .git/hooks/pre-commit runs it on every git commit";
  check_withheld_then_commit(
      w, repo, {"tools/helpers.py", "tools/deep.py", "tools/style.py", "tools/json.py"},
      {why + " (imported by tools/check.py)", why + " (imported by tools/check.py, tools/util.py)",
       why + " (imported by tools/check.py)", why + " (imported by tools/check.py)"},
      marks.path());
  CHECK(verdict_of(w, "tools/other.py") == ""); // landed: imported by nothing
  CHECK(repo.read("tools/other.py") == "print('other')\n# x\n");
  include_then_commit(w, repo, "tools/deep.py", marks.path() / "deep");
}

TEST_CASE("redteam transfer imports: what a pre-commit hook's node script requires runs on "
          "the next git commit") {
  if (!have("node")) {
    MESSAGE("skipped: no node");
    return;
  }
  TestRepo repo;
  repo.write("scripts/lint.js", "const rules = require('./lib/rules');\n"
                                "const { fmt } = require(\"../config/fmt.cjs\");\n"
                                "console.log(fmt(rules.name));\n");
  repo.write("scripts/lib/rules/index.js", "module.exports = { name: 'checked' };\n");
  repo.write("config/fmt.cjs", "exports.fmt = (s) => s;\n");
  repo.commit_all();
  write_file(repo.path() / ".git/hooks/pre-commit", "#!/bin/sh\nnode scripts/lint.js\n", true);
  MountedWorkspace w(repo);
  TempDir marks;
  const std::string m = marks.path().string();
  auto js_mark = [&](const std::string& name) {
    return "require('fs').writeFileSync('" + m + "/" + name + "', '');\n";
  };
  REQUIRE(w.in_view("printf %s " + q(js_mark("rules") + "module.exports = { name: 'checked' };\n") +
                    " > scripts/lib/rules/index.js && printf %s " +
                    q(js_mark("fmt") + "exports.fmt = (s) => s;\n") + " > config/fmt.cjs")
              .status == 0);
  const std::string why = "your git hook .git/hooks/pre-commit runs it on every git commit "
                          "(imported by scripts/lint.js)";
  check_withheld_then_commit(w, repo, {"scripts/lib/rules/index.js", "config/fmt.cjs"}, {why, why},
                             marks.path());
  include_then_commit(w, repo, "config/fmt.cjs", marks.path() / "fmt");
}

TEST_CASE("redteam transfer imports: a hook's shell script sources a file next to it and runs "
          "another script") {
  TestRepo repo;
  repo.write("tools/hook.sh", "#!/bin/sh\nset -e\n. \"$(dirname \"$0\")/lib.sh\"\n"
                              "python3 tools/lint.py\n");
  repo.write("tools/lib.sh", "say() { echo \"$@\"; }\n");
  repo.write("tools/lint.py", "print('checked')\n");
  repo.commit_all();
  write_file(repo.path() / ".git/hooks/pre-commit", "#!/bin/sh\nsh tools/hook.sh\n", true);
  MountedWorkspace w(repo);
  TempDir marks;
  const std::string m = marks.path().string();
  REQUIRE(w.in_view("printf %s " + q("touch " + m + "/lib\nsay() { echo \"$@\"; }\n") +
                    " > tools/lib.sh && printf %s " + q(py_mark(m + "/lint") + "print('x')\n") +
                    " > tools/lint.py")
              .status == 0);
  const std::string why = "your git hook .git/hooks/pre-commit runs it on every git commit "
                          "(run by tools/hook.sh)";
  check_withheld_then_commit(w, repo, {"tools/lib.sh", "tools/lint.py"}, {why, why}, marks.path());
  include_then_commit(w, repo, "tools/lib.sh", marks.path() / "lib");
}

TEST_CASE("redteam transfer imports: make run by a hook obeys the Makefile's include and runs "
          "the scripts its rules name") {
  TestRepo repo;
  repo.write("Makefile", "include mk/common.mk\n-include mk/local.mk\n"
                         "check:\n\t@python3 tools/lint.py\n");
  repo.write("mk/common.mk", "FLAGS = -q\n");
  repo.write("tools/lint.py", "print('checked')\n");
  repo.commit_all();
  write_file(repo.path() / ".git/hooks/pre-commit", "#!/bin/sh\nmake -s check\n", true);
  MountedWorkspace w(repo);
  TempDir marks;
  const std::string m = marks.path().string();
  REQUIRE(w.in_view("printf %s " + q("$(shell touch " + m + "/common)\nFLAGS = -q\n") +
                    " > mk/common.mk && printf %s " + q("$(shell touch " + m + "/local)\n") +
                    " > mk/local.mk && printf %s " + q(py_mark(m + "/lint") + "print('x')\n") +
                    " > tools/lint.py")
              .status == 0);
  const std::string why = "your git hook .git/hooks/pre-commit runs it on every git commit";
  check_withheld_then_commit(w, repo, {"mk/common.mk", "mk/local.mk", "tools/lint.py"},
                             {why + " (make, included by Makefile)",
                              why + " (make, included by Makefile)",
                              why + " (make, a rule of Makefile)"},
                             marks.path());
  include_then_commit(w, repo, "mk/local.mk", marks.path() / "local");
}

// tox, nox and pytest are not installed here: the verdicts and what lands are checked, as a
// person reads them; the tools' own documentation says what they run (tox: the `commands` of
// every testenv; nox: noxfile.py, imported; pytest: the rootdir's conftest.py, imported first).
TEST_CASE("redteam transfer imports: tox, nox and pytest run by a pre-commit hook run their "
          "configs' commands and imports by themselves") {
  TestRepo repo;
  repo.write("tox.ini", "[tox]\nenvlist = lint\n\n[testenv:lint]\ndeps = flake8\n"
                        "commands =\n    python {toxinidir}/tools/lint.py {posargs}\n"
                        "    - sh tools/after.sh\n[other]\ncommands = python tools/not.py\n");
  repo.write("noxfile.py", "import nox\nfrom tools import sessions\n");
  repo.write("conftest.py", "from tools.fixtures import *\n");
  for (const char* f : {"tools/lint.py", "tools/after.sh", "tools/not.py", "tools/sessions.py",
                        "tools/fixtures.py"}) {
    repo.write(f, "# the person's\n");
  }
  repo.write(".pre-commit-config.yaml",
             "repos:\n- repo: local\n  hooks:\n"
             "  - {id: tox, name: tox, entry: tox -e lint, language: system}\n"
             "  - {id: nox, name: nox, entry: nox -s lint, language: system}\n"
             "  - {id: tests, name: tests, entry: python3 -m pytest -q, language: system}\n");
  repo.commit_all();
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("for f in tox.ini noxfile.py conftest.py tools/lint.py tools/after.sh "
                    "tools/not.py tools/sessions.py tools/fixtures.py; do echo '# agent' >> $f; "
                    "done")
              .status == 0);
  const std::string why = "withheld: your .pre-commit-config.yaml runs ";
  CHECK(verdict_of(w, "tools/lint.py") ==
        why + "it on every git commit (hook tox, tox, a command of tox.ini)");
  CHECK(verdict_of(w, "tools/after.sh") ==
        why + "it on every git commit (hook tox, tox, a command of tox.ini)");
  CHECK(verdict_of(w, "tools/sessions.py") ==
        why + "it on every git commit (hook nox, nox, imported by noxfile.py)");
  CHECK(verdict_of(w, "tools/fixtures.py") ==
        why + "it on every git commit (hook tests, pytest, imported by conftest.py)");
  CHECK(verdict_of(w, "tools/not.py").rfind("transfer", 0) == 0); // no testenv of tox's
  // The configs are withheld by their own names already (flagged before: now they run).
  CHECK(verdict_of(w, "tox.ini") == why + "its commands on every git commit (hook tox, tox)");
  CHECK(verdict_of(w, "noxfile.py") == why + "its sessions on every git commit (hook nox, nox)");
  CHECK(verdict_of(w, "conftest.py") == why + "it on every git commit (hook tests, pytest)");
  Run a = w.ws("apply");
  INFO("ws apply: " << a.status << "\n" << a.out << a.err);
  REQUIRE(a.status == 0);
  CHECK(repo.read("tools/lint.py") == "# the person's\n");
  CHECK(repo.read("tools/not.py") == "# the person's\n# agent\n");
}

// eslint, jest and task are not installed here: the verdicts and what lands are checked.
// lint-staged runs `eslint --fix` on commit, and eslint imports eslint.config.js, which
// requires the project's own rules; `npm test` runs jest, which loads jest.config.js and the
// setup files it names; a hook runs `task lint`, and task runs the task's cmds.
TEST_CASE("redteam transfer imports: eslint, jest and task run by a commit hook load their "
          "configs and what those name") {
  TestRepo repo;
  repo.write("package.json", R"({"scripts": {"test": "jest --ci"},
  "lint-staged": {"*.js": "eslint --fix"}})");
  repo.write("eslint.config.js", "const local = require('./tools/eslint-rules');\n"
                                 "module.exports = [{ plugins: { local } }];\n");
  repo.write("jest.config.js", "module.exports = { setupFiles: ['<rootDir>/test/setup.js'],\n"
                               "  globalSetup: './test/global.js' };\n");
  repo.write("Taskfile.yml", "version: '3'\ntasks:\n  lint:\n    dir: web\n    cmds:\n"
                             "      - node ../tools/lint.mjs\n      - cmd: sh ./fix.sh\n"
                             "  other: echo done\n");
  for (const char* f : {"tools/eslint-rules.js", "test/setup.js", "test/global.js",
                        "tools/lint.mjs", "web/fix.sh", "tools/unrelated.js"}) {
    repo.write(f, "// the person's\n");
  }
  repo.commit_all();
  write_file(repo.path() / ".git/hooks/pre-commit",
             "#!/bin/sh\nnpx lint-staged\nnpm test\ntask lint\n", true);
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("for f in tools/eslint-rules.js test/setup.js test/global.js tools/lint.mjs "
                    "web/fix.sh tools/unrelated.js eslint.config.js; do echo '// agent' >> $f; "
                    "done")
              .status == 0);
  const std::string why = "withheld: your ";
  CHECK(verdict_of(w, "eslint.config.js") ==
        why + "package.json runs it on every git commit (lint-staged *.js, eslint)");
  CHECK(verdict_of(w, "tools/eslint-rules.js") ==
        why + "package.json runs it on every git commit (lint-staged *.js, eslint, imported "
              "by eslint.config.js)");
  const std::string hook = why + "git hook .git/hooks/pre-commit runs it on every git commit (";
  CHECK(verdict_of(w, "test/setup.js") ==
        hook + "package.json's \"test\" script, jest, imported by jest.config.js)");
  CHECK(verdict_of(w, "test/global.js") ==
        hook + "package.json's \"test\" script, jest, imported by jest.config.js)");
  CHECK(verdict_of(w, "tools/lint.mjs") == hook + "task, a task of Taskfile.yml, lint)");
  CHECK(verdict_of(w, "web/fix.sh") == hook + "task, a task of Taskfile.yml, lint)");
  CHECK(verdict_of(w, "tools/unrelated.js").rfind("transfer", 0) == 0);
  Run a = w.ws("apply");
  INFO("ws apply: " << a.status << "\n" << a.out << a.err);
  REQUIRE(a.status == 0);
  CHECK(repo.read("test/setup.js") == "// the person's\n");
  CHECK(repo.read("tools/unrelated.js") == "// the person's\n// agent\n");
}
