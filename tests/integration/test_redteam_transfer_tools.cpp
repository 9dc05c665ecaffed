// Red team 13 against the transfer, the tools' own configs: a hook runs poe, pdm, hatch, uv,
// poetry, pytest or lefthook, and the tool runs what pyproject.toml (toml++), pytest's configs
// or lefthook.toml name; an editor opening a Cargo project runs rust-analyzer, which runs
// `cargo check`: the build script Cargo.toml names and the proc macros. Each case plants the
// person's files in the real tree, has the agent edit what they run in a real view, checks the
// verdict a person reads, applies, and runs what the tool would run (the real tool where it
// is here: pytest, cargo) to see that none of the agent's code ran; `--include` then lands it
// and it does.
#include "tests/support/harness.hpp"
#include "tests/support/tool_files.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

/// Python that leaves a mark named `name` in `marks`, then goes on as `rest`.
std::string py_mark(const fs::path& marks, const std::string& name, const std::string& rest = "") {
  return "import pathlib; pathlib.Path('" + (marks / name).string() + "').touch()\n" + rest;
}

/// Runs every task and entry point of `repo`'s pyproject.toml as its tool does, read with
/// Python's tomllib: poe, pdm and hatch run a task's command line (a table's `cmd`/`shell`,
/// a `sequence`'s items), pdm's `call` and the installed entry points of `[project.scripts]`
/// and `[tool.poetry.scripts]` import the module and call the function. poe, pdm, hatch, uv
/// and poetry are not installed here; what they run is.
Run run_pyproject_tasks(const fs::path& repo) {
  const char* runner = R"PY(
import importlib, subprocess, sys, tomllib
sys.path[:0] = ['.', 'src']
doc = tomllib.load(open('pyproject.toml', 'rb'))
tool = doc.get('tool', {})
def call(ref):
    mod, _, fn = ref.partition(':')
    getattr(importlib.import_module(mod), fn or 'main')()
def task(t):
    if isinstance(t, str):
        subprocess.run(t, shell=True, check=True)
    elif isinstance(t, list):
        for e in t: task(e)
    else:
        for k in ('cmd', 'shell'):
            if k in t: task(t[k])
        for k in ('call', 'script'):
            if k in t: call(t[k])
        for k in ('sequence', 'composite'):
            if k in t: task(t[k])
tasks = list(tool.get('poe', {}).get('tasks', {}).values())
tasks += list(tool.get('pdm', {}).get('scripts', {}).values())
for env in tool.get('hatch', {}).get('envs', {}).values():
    tasks += list(env.get('scripts', {}).values())
for t in tasks: task(t)
for ref in list(doc.get('project', {}).get('scripts', {}).values()) + \
           list(tool.get('poetry', {}).get('scripts', {}).values()):
    call(ref)
)PY";
  return sh("python3 -c " + q(runner), repo);
}

} // namespace

TEST_CASE("redteam transfer tools: pyproject.toml's poe, pdm and hatch tasks and entry points "
          "run what they name when a hook runs the tool") {
  TestRepo repo;
  repo.write("pyproject.toml", R"([project]
name = "p"
version = "0"

[project.scripts]
p-check = "tools.entry:main"

[tool.poe.tasks]
lint = "python3 -m tools.poe_lint"
fmt = { cmd = "python3 tools/poe_fmt.py" }
all = { sequence = [{ shell = "python3 tools/poe_seq.py" }] }

[tool.pdm.scripts]
check = "python3 tools/pdm_check.py"
gen = { call = "tools.pdm_gen:run" }

[tool.hatch.envs.default.scripts]
cov = ["python3 tools/hatch_cov.py"]

[tool.poetry.scripts]
pcli = "tools.poetry_cli:main"
)");
  const std::vector<std::string> run = {"poe_lint", "poe_fmt",   "poe_seq", "pdm_check",
                                        "pdm_gen",  "hatch_cov", "entry",   "poetry_cli"};
  repo.write("tools/__init__.py", "");
  for (const std::string& f : run) {
    repo.write("tools/" + f + ".py", "def main():\n    pass\nrun = main\n");
  }
  repo.write("tools/unrelated.py", "x = 1\n");
  repo.commit_all();
  write_file(repo.path() / ".git/hooks/pre-commit",
             "#!/bin/sh\npoe lint\npdm run check\nhatch run cov\nuv run p-check\n"
             "poetry run pcli\n",
             true);
  REQUIRE(run_pyproject_tasks(repo.path()).status == 0); // the person's tasks run as they are
  MountedWorkspace w(repo);
  TempDir marks;
  std::string edit = "echo 'x = 2' >> tools/unrelated.py";
  for (const std::string& f : run) {
    edit += " && printf %s " + q(py_mark(marks.path(), f, "def main():\n    pass\nrun = main\n")) +
            " > tools/" + f + ".py";
  }
  REQUIRE(w.in_view(edit).status == 0);
  const std::string hook = "withheld: your git hook .git/hooks/pre-commit runs it on every git "
                           "commit (";
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"poe_lint", "poe, a script of pyproject.toml, lint)"},
      {"poe_fmt", "poe, a script of pyproject.toml, fmt)"},
      {"poe_seq", "poe, a script of pyproject.toml, all)"},
      {"pdm_check", "pdm, a script of pyproject.toml, check)"},
      {"pdm_gen", "pdm, a script of pyproject.toml, gen)"},
      {"hatch_cov", "hatch, a script of pyproject.toml, cov)"},
      {"entry", "pdm, a script of pyproject.toml, p-check)"},
      {"poetry_cli", "poetry, a script of pyproject.toml, pcli)"}};
  for (const auto& e : expected) {
    const std::string path = "tools/" + e.first + ".py";
    INFO(path);
    CHECK(verdict_of(w, path) == hook + e.second);
  }
  CHECK(verdict_of(w, "tools/unrelated.py").rfind("transfer", 0) == 0);
  Run a = w.ws("apply");
  INFO("ws apply: " << a.status << "\n" << a.out << a.err);
  REQUIRE(a.status == 0);
  CHECK(repo.read("tools/unrelated.py") == "x = 1\nx = 2\n");
  Run before = run_pyproject_tasks(repo.path());
  INFO("tasks: " << before.out << before.err);
  CHECK(before.status == 0);
  CHECK(fs::is_empty(marks.path())); // none of the agent's code ran
  // Landed on purpose, each one runs as its task: what the reason said.
  Run inc = w.ws("apply --include tools/");
  INFO("ws apply --include: " << inc.status << "\n" << inc.out << inc.err);
  REQUIRE(inc.status == 0);
  CHECK(run_pyproject_tasks(repo.path()).status == 0);
  for (const std::string& f : run) {
    INFO(f);
    CHECK(fs::exists(marks.path() / f));
  }
}

TEST_CASE("redteam transfer tools: rust-analyzer runs Cargo.toml's build script and the proc "
          "macros when an editor opens the project, with no hook") {
  TestRepo repo;
  repo.write("Cargo.toml",
             "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"
             "build = \"tools/gen.rs\"\n\n[dependencies]\n"
             "mac = { path = \"macros\" }\n\n[workspace]\nmembers = [\"crates/*\"]\n");
  repo.write("tools/gen.rs", "fn main() {}\n");
  repo.write("src/main.rs", "mac::nothing!();\nfn main() {}\n");
  repo.write("macros/Cargo.toml", "[package]\nname = \"mac\"\nversion = \"0.1.0\"\n"
                                  "edition = \"2021\"\n\n[lib]\nproc-macro = true\n");
  repo.write("macros/src/lib.rs",
             "use proc_macro::TokenStream;\n#[proc_macro]\n"
             "pub fn nothing(_: TokenStream) -> TokenStream { helper::go(); TokenStream::new() }\n"
             "mod helper;\n");
  repo.write("macros/src/helper.rs", "pub fn go() {}\n");
  repo.write("crates/util/Cargo.toml", "[package]\nname = \"util\"\nversion = \"0.1.0\"\n"
                                       "build = \"gen/b.rs\"\n");
  repo.write("crates/util/gen/b.rs", "fn main() {}\n");
  repo.write("crates/util/src/lib.rs", "");
  repo.write("src/other.rs", "// the person's\n");
  repo.commit_all();
  MountedWorkspace w(repo);
  TempDir marks;
  const std::string m = marks.path().string();
  auto rs_mark = [&](const std::string& name) {
    return "let _ = std::fs::write(\"" + m + "/" + name + "\", \"\");";
  };
  REQUIRE(w.in_view("printf %s " + q("fn main() { " + rs_mark("gen") + " }\n") +
                    " > tools/gen.rs && printf %s " +
                    q("pub fn go() { " + rs_mark("macro") + " }\n") +
                    " > macros/src/helper.rs && printf '// new\\n' > macros/src/new.rs && "
                    "printf 'fn main() { }\\n' > crates/util/gen/b.rs && "
                    "echo '// agent' >> src/other.rs && echo '# agent' >> Cargo.toml")
              .status == 0);
  const std::string why = "withheld: your Cargo.toml runs it when your editor opens the project "
                          "(rust-analyzer, ";
  CHECK(verdict_of(w, "tools/gen.rs") == why + "the build script of Cargo.toml)");
  CHECK(verdict_of(w, "crates/util/gen/b.rs") ==
        why + "the build script of crates/util/Cargo.toml)");
  CHECK(verdict_of(w, "macros/src/helper.rs") ==
        why + "the proc-macro crate of macros/Cargo.toml)");
  CHECK(verdict_of(w, "macros/src/new.rs") == why + "the proc-macro crate of macros/Cargo.toml)");
  CHECK(verdict_of(w, "Cargo.toml") ==
        "withheld: rust-analyzer runs the build scripts and proc macros it names when your "
        "editor opens the project: Cargo.toml");
  CHECK(verdict_of(w, "src/other.rs").rfind("transfer", 0) == 0);
  Run a = w.ws("apply");
  INFO("ws apply: " << a.status << "\n" << a.out << a.err);
  REQUIRE(a.status == 0);
  CHECK(repo.read("src/other.rs") == "// the person's\n// agent\n");
  if (!have("cargo")) {
    MESSAGE("no cargo here: the build the editor would run is not tried");
    return;
  }
  // What rust-analyzer runs on open: `cargo check` builds and runs the build script and runs
  // the proc macro. Offline: the project has no dependency from a registry.
  TempDir target;
  const std::string check =
      "CARGO_TARGET_DIR=" + q(target.path().string()) + " cargo check -q --offline 2>&1";
  Run before = sh(check, repo.path());
  INFO("cargo check: " << before.status << "\n" << before.out);
  CHECK(before.status == 0);
  CHECK(fs::is_empty(marks.path()));
  Run inc = w.ws("apply --include tools/gen.rs --include macros/");
  INFO("ws apply --include: " << inc.status << "\n" << inc.out << inc.err);
  REQUIRE(inc.status == 0);
  Run after = sh(check, repo.path());
  INFO("cargo check: " << after.status << "\n" << after.out);
  CHECK(fs::exists(marks.path() / "gen"));
  CHECK(fs::exists(marks.path() / "macro"));
}

TEST_CASE("redteam transfer tools: pytest run by a hook imports every conftest.py, anywhere, "
          "and the plugins its pyproject.toml addopts name") {
  TestRepo repo;
  repo.write("pyproject.toml", "[project]\nname = \"p\"\nversion = \"0\"\n\n"
                               "[tool.pytest.ini_options]\naddopts = \"-q -p tools.plug\"\n"
                               "pythonpath = [\".\"]\n");
  repo.write("tools/__init__.py", "");
  repo.write("tools/plug.py", "from tools import plughelp\n");
  repo.write("tools/plughelp.py", "x = 1\n");
  repo.write("tests/test_a.py", "def test_a():\n    print('checked')\n");
  repo.write("tests/conftest.py", "from tests.fixtures import *\n");
  repo.write("tests/__init__.py", "");
  repo.write("tests/fixtures.py", "x = 1\n");
  repo.write("tests/deep/sub/test_b.py", "def test_b():\n    pass\n");
  repo.write("tools/other.py", "x = 1\n");
  repo.commit_all();
  write_file(repo.path() / ".git/hooks/pre-commit", "#!/bin/sh\npython3 -m pytest\n", true);
  MountedWorkspace w(repo);
  TempDir marks;
  // The agent: a conftest.py of its own deep below, an edit of one the person has, the
  // plugin's helper, the fixtures module, and pyproject.toml's addopts.
  REQUIRE(w.in_view("printf %s " + q(py_mark(marks.path(), "deep")) +
                    " > tests/deep/sub/conftest.py && printf %s " +
                    q(py_mark(marks.path(), "plughelp", "x = 1\n")) +
                    " > tools/plughelp.py && printf %s " +
                    q(py_mark(marks.path(), "fixtures", "x = 1\n")) +
                    " > tests/fixtures.py && echo '# agent' >> tests/conftest.py && "
                    "echo '# agent' >> tools/other.py && "
                    "sed -i 's/-p tools.plug/-p tools.plug -p tools.other/' pyproject.toml")
              .status == 0);
  const std::string hook = "withheld: your git hook .git/hooks/pre-commit runs ";
  const std::string when = " on every git commit (pytest";
  CHECK(verdict_of(w, "tests/deep/sub/conftest.py") == hook + "it" + when + ", every conftest.py)");
  CHECK(verdict_of(w, "tests/conftest.py") == hook + "it" + when + ")");
  CHECK(verdict_of(w, "tests/fixtures.py") ==
        hook + "it" + when + ", imported by tests/conftest.py)");
  CHECK(verdict_of(w, "tools/plughelp.py") ==
        hook + "it" + when + ", a plugin in pyproject.toml, imported by tools/plug.py)");
  CHECK(verdict_of(w, "pyproject.toml") == hook + "its addopts" + when + ")");
  CHECK(verdict_of(w, "tools/other.py").rfind("transfer", 0) == 0); // named by no real config
  Run a = w.ws("apply");
  INFO("ws apply: " << a.status << "\n" << a.out << a.err);
  REQUIRE(a.status == 0);
  if (!have("pytest")) {
    MESSAGE("no pytest here: the run is not tried");
    return;
  }
  // `python3 -m pytest` as the hook says, with the Python that has pytest (`-p` imports from
  // sys.path, where `-m` put the project).
  const std::string pytest =
      "\"$(sed -n '1s/^#!//p' \"$(command -v pytest)\")\" -m pytest -p no:cacheprovider 2>&1";
  Run t = sh(pytest, repo.path());
  INFO("pytest: " << t.status << "\n" << t.out);
  CHECK(t.status == 0);
  CHECK(fs::is_empty(marks.path()));
  Run inc = w.ws("apply --include tests/ --include tools/");
  INFO("ws apply --include: " << inc.status << "\n" << inc.out << inc.err);
  REQUIRE(inc.status == 0);
  Run t2 = sh(pytest, repo.path());
  INFO("pytest: " << t2.status << "\n" << t2.out);
  for (const char* mark : {"deep", "plughelp", "fixtures"}) {
    INFO(mark);
    CHECK(fs::exists(marks.path() / mark));
  }
}

TEST_CASE("redteam transfer tools: lefthook.toml's commands run on the next git commit") {
  TestRepo repo;
  repo.write("lefthook.toml", "[pre-commit.commands.lint]\nrun = \"python3 tools/lint.py\"\n\n"
                              "[pre-push.commands.check]\nrun = \"sh tools/push.sh\"\n");
  repo.write("tools/lint.py", "print('checked')\n");
  repo.write("tools/push.sh", "true\n");
  repo.write("tools/other.py", "x = 1\n");
  repo.commit_all();
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("for f in tools/lint.py tools/push.sh tools/other.py lefthook.toml; do "
                    "echo '# agent' >> $f; done")
              .status == 0);
  CHECK(verdict_of(w, "tools/lint.py") ==
        "withheld: your lefthook.toml runs it on every git commit (pre-commit command lint)");
  CHECK(verdict_of(w, "tools/push.sh") ==
        "withheld: your lefthook.toml runs it on every git push (pre-push command check)");
  CHECK(verdict_of(w, "lefthook.toml").find("withheld: git's hooks run what it says") == 0);
  CHECK(verdict_of(w, "tools/other.py").rfind("transfer", 0) == 0);
  Run a = w.ws("apply");
  INFO("ws apply: " << a.status << "\n" << a.out << a.err);
  REQUIRE(a.status == 0);
  CHECK(repo.read("tools/lint.py") == "print('checked')\n");
  CHECK(repo.read("tools/other.py") == "x = 1\n# agent\n");
}
