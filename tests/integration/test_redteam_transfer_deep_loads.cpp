// Red team against the transfer, what tools load past the files they are named by: pytest
// imports every conftest.py of the directories it collects, and each imports more; a build
// script compiles in its `mod` and `include!` files; rust-analyzer opens the Cargo projects of
// the top's direct subdirectories by itself. Each case plants the person's files in the real
// tree, has the agent rewrite only a file the loaded one pulls in (the loaded one stays as the
// person wrote it), checks the verdict a person reads, applies, and runs the real tool (pytest;
// cargo where it is here) to see that none of the agent's code ran; `--include` then lands it
// and it does. The conftest.py case runs as root and as a normal user.
#include "tests/integration/run_support.hpp"
#include "tests/support/harness.hpp"
#include "tests/support/tool_files.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

/// Python that leaves a mark named `name` in `marks`, then goes on as `rest`.
std::string py_mark(const fs::path& marks, const std::string& name, const std::string& rest = "") {
  return "import pathlib; pathlib.Path('" + (marks / name).string() + "').touch()\n" + rest;
}

/// Rust that leaves a mark named `name` in `marks`.
std::string rs_mark(const fs::path& marks, const std::string& name) {
  return "let _ = std::fs::write(\"" + (marks / name).string() + "\", \"\");";
}

/// "VERDICT: REASON" of every change `ws diff --json` reports, as `p` runs it.
std::map<std::string, std::string> verdicts(const Person& p) {
  static const std::string k_parse =
      "import json, sys\n"
      "for c in json.load(sys.stdin)['changes']:\n"
      "    print(c['path'] + '\\t' + c['verdict'] + (': ' + c['reason'] if c.get('reason') "
      "else ''))\n";
  Run r = p.sh_as(p.ws_line("diff --json") + " | " + py() + " -c " + q(k_parse));
  CHECK_MESSAGE(r.status == 0, r.err);
  std::map<std::string, std::string> out;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    const size_t tab = line.find('\t');
    if (tab != std::string::npos) {
      out[line.substr(0, tab)] = line.substr(tab + 1);
    }
  }
  return out;
}

/// `python3 -m pytest` as a hook runs it, with the Python that has pytest, writing nothing
/// of its own into the project.
const std::string k_pytest = "PYTHONDONTWRITEBYTECODE=1 \"$(sed -n '1s/^#!//p' \"$(command -v "
                             "pytest)\")\" -m pytest -p no:cacheprovider 2>&1";

/// `cargo check --workspace` as rust-analyzer runs it on open, offline, building into `target`.
std::string cargo_check(const fs::path& target) {
  return "CARGO_TARGET_DIR=" + q(target.string()) + " cargo check -q --offline --workspace 2>&1";
}

} // namespace

TEST_CASE("redteam deep loads: pytest run by a hook imports what a conftest.py below the "
          "usual places imports - as root and as a normal user") {
  if (!have("pytest")) {
    MESSAGE("no pytest here: skipped");
    return;
  }
  for (const std::string& user : people()) {
    Person p(user);
    INFO("as " << p.label());
    const fs::path marks = p.scratch() / "marks";
    REQUIRE(p.sh_as("mkdir -p " + q(marks.string())).status == 0);
    // The person's tree: a conftest.py deep in src/app/tests (no package: `prepend` puts its
    // directory on sys.path) and one in a package below lib/ (its base, lib, goes on
    // sys.path), each importing a helper of its own; ordinary code importing its module.
    const std::string plant =
        "mkdir -p src/app/tests lib/pkg/sub && "
        "printf 'import fixtures_util\\n' > src/app/tests/conftest.py && "
        "printf 'x = 1\\n' > src/app/tests/fixtures_util.py && "
        "printf 'def test_core():\\n    pass\\n' > src/app/tests/test_core.py && "
        "printf 'import core\\n' > src/app/main.py && printf 'y = 1\\n' > src/app/core.py && "
        "touch lib/pkg/__init__.py lib/pkg/sub/__init__.py && "
        "printf 'from . import helpers\\nfrom pkg.shared import z\\n' > lib/pkg/sub/conftest.py && "
        "printf 'h = 1\\n' > lib/pkg/sub/helpers.py && printf 'z = 1\\n' > lib/pkg/shared.py && "
        "printf 'def test_s():\\n    pass\\n' > lib/pkg/sub/test_s.py && "
        "git add -A && git -c user.name=T -c user.email=t@example.com commit -qm tests && "
        "printf '#!/bin/sh\\npython3 -m pytest\\n' > .git/hooks/pre-commit && "
        "chmod +x .git/hooks/pre-commit";
    REQUIRE(p.sh_as(plant).status == 0);
    Run before = p.sh_as(k_pytest);
    INFO("pytest before: " << before.out);
    REQUIRE(before.status == 0);
    REQUIRE(p.ws("new").status == 0);
    // The agent: only the modules the conftest.py files import (they stay the person's), and
    // an honest edit of a module only ordinary code imports.
    const std::string edit =
        "printf %s " + q(py_mark(marks, "fixtures", "x = 1\n")) +
        " > src/app/tests/fixtures_util.py && printf %s " +
        q(py_mark(marks, "helpers", "h = 1\n")) + " > lib/pkg/sub/helpers.py && printf %s " +
        q(py_mark(marks, "shared", "z = 1\n")) +
        " > lib/pkg/shared.py && printf 'y = 2\\n' > src/app/core.py && "
        // and a conftest.py of its own, with the module it imports.
        "mkdir -p src/app/tests/sub && printf 'import evil_helper\\n' > "
        "src/app/tests/sub/conftest.py && printf %s " +
        q(py_mark(marks, "evil")) +
        " > src/app/tests/sub/evil_helper.py && "
        "printf 'def test_sub():\\n    pass\\n' > src/app/tests/sub/test_sub.py && "
        // and package metadata naming a plugin, which pytest loads before any test.
        "mkdir -p plug-1.0.dist-info && printf '[pytest11]\\nplug = evil_helper\\n' > "
        "plug-1.0.dist-info/entry_points.txt";
    REQUIRE(p.sh_as(edit, p.view()).status == 0);
    std::map<std::string, std::string> seen = verdicts(p);
    const std::string hook =
        "withheld: your git hook .git/hooks/pre-commit runs it on every git commit (pytest, ";
    CHECK(seen["src/app/tests/fixtures_util.py"] ==
          hook + "imported by src/app/tests/conftest.py)");
    CHECK(seen["lib/pkg/sub/helpers.py"] == hook + "imported by lib/pkg/sub/conftest.py)");
    CHECK(seen["lib/pkg/shared.py"] == hook + "imported by lib/pkg/sub/conftest.py)");
    CHECK(seen["src/app/core.py"].rfind("transfer", 0) == 0); // ordinary code imports it
    CHECK(seen["src/app/tests/sub/conftest.py"] == hook + "every conftest.py)");
    CHECK(seen["src/app/tests/sub/evil_helper.py"] ==
          hook + "imported by src/app/tests/sub/conftest.py)");
    CHECK(seen["plug-1.0.dist-info/entry_points.txt"] ==
          hook + "the plugins entry_points.txt names)");
    Run a = p.ws("apply");
    INFO("ws apply: " << a.status << "\n" << a.out << a.err);
    REQUIRE(a.status == 0);
    CHECK(p.sh_as("cat src/app/core.py").out == "y = 2\n");
    Run t = p.sh_as(k_pytest);
    INFO("pytest: " << t.status << "\n" << t.out);
    CHECK(t.status == 0);
    CHECK(fs::is_empty(marks));
    Run inc = p.ws("apply --include src/app/tests/ --include lib/");
    INFO("ws apply --include: " << inc.status << "\n" << inc.out << inc.err);
    REQUIRE(inc.status == 0);
    Run t2 = p.sh_as(k_pytest);
    INFO("pytest: " << t2.status << "\n" << t2.out);
    for (const char* mark : {"fixtures", "helpers", "shared", "evil"}) {
      INFO(mark);
      CHECK(fs::exists(marks / mark));
    }
  }
}

TEST_CASE("redteam deep loads: rust-analyzer builds a build script's mod and include! files "
          "when an editor opens the project") {
  TestRepo repo;
  repo.write("Cargo.toml", "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n"
                           "[workspace]\nmembers = [\"crates/*\"]\n");
  repo.write("build.rs", "mod helper;\n#[path = \"tools/paths.rs\"]\nmod paths;\n"
                         "include!(\"gen.rs\");\n"
                         "fn main() { helper::go(); paths::go(); generated(); }\n");
  repo.write("helper.rs", "mod deep;\npub fn go() { deep::go(); }\n");
  repo.write("helper/deep.rs", "pub fn go() {}\n");
  repo.write("tools/paths.rs", "pub fn go() {}\n");
  repo.write("gen.rs", "fn generated() {}\n");
  repo.write("src/main.rs", "mod util;\nfn main() { util::f(); }\n");
  repo.write("src/util.rs", "pub fn f() {}\n");
  // A member whose build script lies elsewhere (`package.build`), with a module of its own.
  repo.write("crates/u/Cargo.toml", "[package]\nname = \"u\"\nversion = \"0.1.0\"\n"
                                    "edition = \"2021\"\nbuild = \"b/main.rs\"\n");
  repo.write("crates/u/b/main.rs", "mod step;\nfn main() { step::go(); }\n");
  repo.write("crates/u/b/step.rs", "pub fn go() {}\n");
  repo.write("crates/u/src/lib.rs", "");
  repo.commit_all();
  MountedWorkspace w(repo);
  TempDir marks;
  auto go = [&](const std::string& name) {
    return "pub fn go() { " + rs_mark(marks.path(), name) + " }\n";
  };
  REQUIRE(
      w.in_view(
           "printf %s " +
           q("mod deep;\npub fn go() { deep::go(); " + rs_mark(marks.path(), "helper") + " }\n") +
           " > helper.rs && printf %s " + q(go("deep")) + " > helper/deep.rs && printf %s " +
           q(go("paths")) + " > tools/paths.rs && printf %s " +
           q("fn generated() { " + rs_mark(marks.path(), "gen") + " }\n") +
           " > gen.rs && printf %s " + q(go("step")) +
           " > crates/u/b/step.rs && printf 'pub fn f() { let _ = 1; }\\n' > src/util.rs")
          .status == 0);
  const std::string why = "withheld: your Cargo.toml runs it when your editor opens the project "
                          "(rust-analyzer, the build script of ";
  CHECK(verdict_of(w, "helper.rs") == why + "Cargo.toml, a module of build.rs)");
  CHECK(verdict_of(w, "helper/deep.rs") == why + "Cargo.toml, a module of build.rs, helper.rs)");
  CHECK(verdict_of(w, "tools/paths.rs") == why + "Cargo.toml, a module of build.rs)");
  CHECK(verdict_of(w, "gen.rs") == why + "Cargo.toml, included by build.rs)");
  CHECK(verdict_of(w, "crates/u/b/step.rs") ==
        why + "crates/u/Cargo.toml, a module of crates/u/b/main.rs)");
  // A module of the crate itself, not of a build script: lands.
  CHECK(verdict_of(w, "src/util.rs").rfind("transfer", 0) == 0);
  Run a = w.ws("apply");
  INFO("ws apply: " << a.status << "\n" << a.out << a.err);
  REQUIRE(a.status == 0);
  CHECK(repo.read("src/util.rs") == "pub fn f() { let _ = 1; }\n");
  if (!have("cargo")) {
    MESSAGE("no cargo here: the build the editor would run is not tried");
    return;
  }
  TempDir target;
  Run before = sh(cargo_check(target.path()), repo.path());
  INFO("cargo check: " << before.status << "\n" << before.out);
  CHECK(before.status == 0);
  CHECK(fs::is_empty(marks.path()));
  Run inc = w.ws("apply --include helper.rs --include helper/ --include tools/ --include gen.rs "
                 "--include crates/");
  INFO("ws apply --include: " << inc.status << "\n" << inc.out << inc.err);
  REQUIRE(inc.status == 0);
  Run after = sh(cargo_check(target.path()), repo.path());
  INFO("cargo check: " << after.status << "\n" << after.out);
  for (const char* mark : {"helper", "deep", "paths", "gen", "step"}) {
    INFO(mark);
    CHECK(fs::exists(marks.path() / mark));
  }
}

TEST_CASE("redteam deep loads: rust-analyzer opens the Cargo project of a direct subdirectory "
          "by itself when the top has none") {
  TestRepo repo;
  // No Cargo.toml at the top: rust-analyzer looks one level down and finds rust/.
  repo.write("rust/Cargo.toml",
             "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"
             "build = \"gen/b.rs\"\n\n[dependencies]\nmac = { path = \"mac\" }\n");
  repo.write("rust/gen/b.rs", "fn main() {}\n");
  repo.write("rust/src/main.rs", "mac::nothing!();\nfn main() {}\n");
  repo.write("rust/mac/Cargo.toml", "[package]\nname = \"mac\"\nversion = \"0.1.0\"\n"
                                    "edition = \"2021\"\n\n[lib]\nproc-macro = true\n");
  repo.write(
      "rust/mac/src/lib.rs",
      "use proc_macro::TokenStream;\nmod helper;\n#[proc_macro]\n"
      "pub fn nothing(_: TokenStream) -> TokenStream { helper::go(); TokenStream::new() }\n");
  repo.write("rust/mac/src/helper.rs", "pub fn go() {}\n");
  repo.write("rust/src/other.rs", "// the person's\n");
  repo.commit_all();
  MountedWorkspace w(repo);
  TempDir marks;
  REQUIRE(w.in_view("printf %s " + q("fn main() { " + rs_mark(marks.path(), "gen") + " }\n") +
                    " > rust/gen/b.rs && printf %s " +
                    q("pub fn go() { " + rs_mark(marks.path(), "macro") + " }\n") +
                    " > rust/mac/src/helper.rs && echo '// agent' >> rust/src/other.rs")
              .status == 0);
  const std::string why = "withheld: your rust/Cargo.toml runs it when your editor opens the "
                          "project (rust-analyzer, ";
  CHECK(verdict_of(w, "rust/gen/b.rs") == why + "the build script of rust/Cargo.toml)");
  CHECK(verdict_of(w, "rust/mac/src/helper.rs") ==
        why + "the proc-macro crate of rust/mac/Cargo.toml)");
  CHECK(verdict_of(w, "rust/src/other.rs").rfind("transfer", 0) == 0);
  Run a = w.ws("apply");
  INFO("ws apply: " << a.status << "\n" << a.out << a.err);
  REQUIRE(a.status == 0);
  CHECK(repo.read("rust/src/other.rs") == "// the person's\n// agent\n");
  if (!have("cargo")) {
    MESSAGE("no cargo here: the build the editor would run is not tried");
    return;
  }
  TempDir target;
  Run before = sh(cargo_check(target.path()), repo.path() / "rust");
  INFO("cargo check: " << before.status << "\n" << before.out);
  CHECK(before.status == 0);
  CHECK(fs::is_empty(marks.path()));
  Run inc = w.ws("apply --include rust/gen/ --include rust/mac/");
  INFO("ws apply --include: " << inc.status << "\n" << inc.out << inc.err);
  REQUIRE(inc.status == 0);
  Run after = sh(cargo_check(target.path()), repo.path() / "rust");
  INFO("cargo check: " << after.status << "\n" << after.out);
  CHECK(fs::exists(marks.path() / "gen"));
  CHECK(fs::exists(marks.path() / "macro"));
}
