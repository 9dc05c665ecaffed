// The transfer policy, table-driven: facts in, one verdict and a reason out. Each row checks
// the verdict and a piece of the reason a person reads, so a rule that fires for the wrong
// cause fails too.
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
  const char* what;
  PathFacts facts;
  Verdict verdict;
  std::string reason; ///< a substring of the reason; for Transfer the reason must be empty
};

void check_rows(const std::vector<Row>& rows, const PolicyConfig& config = {}) {
  for (const Row& row : rows) {
    const std::string what = row.what;
    CAPTURE(what);
    CAPTURE(row.facts.path);
    Decision d = decide(row.facts, config);
    CAPTURE(d.reason);
    CHECK(std::string(verdict_name(d.verdict)) == verdict_name(row.verdict));
    if (row.verdict == Verdict::Transfer) {
      CHECK(d.reason.empty());
    } else {
      CHECK(d.reason.find(row.reason) != std::string::npos);
    }
    CHECK(d.overridable() == (row.verdict == Verdict::Withheld));
  }
}

} // namespace

TEST_CASE("filters::decide blocks .git and nested repositories") {
  check_rows({
      {"hook", added(".git/hooks/pre-commit", k_exe), Verdict::Blocked,
       "never transferred: inside .git/ (hooks, config)"},
      {"config", modified(".git/config"), Verdict::Blocked, "inside .git/"},
      {"upper case", modified(".GIT/config"), Verdict::Blocked, "inside .git/"},
      {"mixed case", added(".Git/info/exclude"), Verdict::Blocked, "inside .git/"},
      {".git as a file", added(".git"), Verdict::Blocked, "inside .git/"},
      {"NTFS trailing dot", added(".git./hooks/x"), Verdict::Blocked, "inside .git/"},
      {"NTFS short name", added("GIT~1/config"), Verdict::Blocked, "inside .git/"},
      {"nested", added("vendor/lib/.git/config"), Verdict::Blocked, "a nested .git"},
      {"nested upper", modified("sub/.GIT/HEAD"), Verdict::Blocked, "a nested .git"},
      {"nested gitfile", added("sub/.git"), Verdict::Blocked, "a nested .git"},
      {"deleted", deleted(".git/index"), Verdict::Blocked, "inside .git/"},
      {"renamed out of .git", renamed(".git/hooks/pre-push", "tools/pre-push"), Verdict::Blocked,
       "inside .git/ (hooks, config), renamed from '.git/hooks/pre-push'"},
      {"renamed into .git", renamed("tools/x", ".git/hooks/post-checkout"), Verdict::Blocked,
       "inside .git/"},
      {"nested repo",
       with(added("vendor/lib/src/a.c"), [](auto& f) { f.inside_nested_repo = true; }),
       Verdict::Blocked, "never transferred: inside a nested repository or submodule"},
      {"workspace", with(added(".ws/state"), [](auto& f) { f.workspace_own = true; }),
       Verdict::Blocked, "never transferred: the workspace's own files"},
      {"dot-dot", added("../outside"), Verdict::Blocked, "not a path inside the project"},
      {"absolute", added("/etc/passwd"), Verdict::Blocked, "not a path inside the project"},
      {"not .git: .github", added(".github/CODEOWNERS"), Verdict::Transfer, ""},
      {"not .git: .gitkeep", added("empty/.gitkeep"), Verdict::Transfer, ""},
      {"not .git: my.git", added("my.git/x"), Verdict::Transfer, ""},
  });
}

TEST_CASE("filters::decide withholds by kind of file") {
  check_rows({
      {"new executable", added("scripts/new.sh", k_exe), Verdict::Withheld, "new executable"},
      {"group exec only", added("x", S_IFREG | 0654), Verdict::Withheld, "new executable"},
      // A rename keeps nothing: the facts are about the new path.
      {"renamed executable",
       with(renamed("tools/build.sh", "tools/git", k_exe), [](auto& f) { f.base_mode = k_exe; }),
       Verdict::Withheld, "new executable"},
      {"renamed onto a plain file",
       with(renamed("a.sh", "b.sh", k_exe), [](auto& f) { f.real_mode = k_file; }),
       Verdict::Withheld, "added exec bit"},
      {"renamed onto a different executable",
       with(renamed("a.sh", "b.sh", k_exe), [](auto& f) { f.real_mode = k_exe; }),
       Verdict::Withheld, "changed executable"},
      {"renamed onto the same executable",
       with(renamed("a.sh", "b.sh", k_exe),
            [](auto& f) {
              f.real_mode = k_exe;
              f.real_exec_same = true;
            }),
       Verdict::Transfer, ""},
      {"symlink replaced by an executable",
       with(facts(ChangeType::TypeChanged, "tool", k_exe),
            [](auto& f) { f.base_mode = f.real_mode = S_IFLNK | 0777; }),
       Verdict::Withheld, "new executable"},
      {"added exec bit", modified("run.sh", k_exe), Verdict::Withheld, "added exec bit"},
      {"changed executable",
       with(modified("run.sh", k_exe), [](auto& f) { f.base_mode = f.real_mode = k_exe; }),
       Verdict::Withheld, "changed executable"},
      {"unchanged executable (mode of the view only)",
       with(modified("run.sh", k_exe),
            [](auto& f) {
              f.base_mode = f.real_mode = k_exe;
              f.real_exec_same = true;
            }),
       Verdict::Transfer, ""},
      {"real tree has a directory there",
       with(added("tool", k_exe), [](auto& f) { f.real_mode = S_IFDIR | 0755; }), Verdict::Withheld,
       "new executable"},
      {"real tree has a symlink there",
       with(added("tool", k_exe), [](auto& f) { f.real_mode = S_IFLNK | 0777; }), Verdict::Withheld,
       "new executable"},
      {"real executable edited by the person since",
       with(modified("run.sh", k_exe),
            [](auto& f) {
              f.base_mode = k_file;
              f.real_mode = k_exe;
            }),
       Verdict::Withheld, "changed executable"},
      {"removed exec bit", with(modified("run.sh"), [](auto& f) { f.base_mode = k_exe; }),
       Verdict::Transfer, ""},
      {"binary", with(added("logo.png"), [](auto& f) { f.binary = true; }), Verdict::Withheld,
       "binary content"},
      {"coding line Python decodes",
       with(modified("tools/check.py"), [](auto& f) { f.recoded = true; }), Verdict::Withheld,
       "its coding line makes Python decode it (utf-7, unicode_escape...): the code that runs is "
       "not the text shown"},
      {"ignored", with(added("build/out.o"), [](auto& f) { f.ignored = true; }), Verdict::Withheld,
       "ignored by the real repository"},
      {"FIFO", added("pipe", S_IFIFO | 0644), Verdict::Withheld, "FIFO"},
      {"socket", added("sock", S_IFSOCK | 0755), Verdict::Withheld, "socket"},
      {"char device", added("null", S_IFCHR | 0666), Verdict::Withheld, "character device"},
      {"block device", added("sda", S_IFBLK | 0660), Verdict::Withheld, "block device"},
      {"gitlink", with(modified("vendor/lib", S_IFDIR | 0755), [](auto& f) { f.gitlink = true; }),
       Verdict::Withheld, "submodule pointer"},
      {"plain new file", added("src/new.c"), Verdict::Transfer, ""},
      {"plain edit", modified("src/main.c"), Verdict::Transfer, ""},
  });
}

TEST_CASE("filters::decide withholds tool-made places") {
  check_rows({
      {".venv", added(".venv/lib/python3.11/site.py"), Verdict::Withheld,
       "under .venv/ (a Python virtual environment)"},
      {"venv deep", added("tools/venv/bin/activate"), Verdict::Withheld, "under venv/"},
      {"pyvenv.cfg", added("env/pyvenv.cfg"), Verdict::Withheld, "pyvenv.cfg"},
      {"in a venv by marker",
       with(added("env/lib/site.py"), [](auto& f) { f.in_python_env = true; }), Verdict::Withheld,
       "inside a Python virtual environment"},
      {"node_modules", added("node_modules/left-pad/index.js"), Verdict::Withheld,
       "under node_modules/"},
      {"node_modules deep", added("web/app/node_modules/x/package.json"), Verdict::Withheld,
       "under node_modules/"},
      {"node_modules any case", added("Node_Modules/x.js"), Verdict::Withheld,
       "under node_modules/"},
      {"pyc", added("pkg/mod.pyc"), Verdict::Withheld, "compiled Python (.pyc)"},
      {"__pycache__", added("pkg/__pycache__/mod.cpython-311.opt-1.txt"), Verdict::Withheld,
       "under __pycache__/"},
      {"venv is not a prefix", added("venvs.txt"), Verdict::Transfer, ""},
      {"node_modules as a file", added("node_modules"), Verdict::Transfer, ""},
      {"renamed out of node_modules", renamed("node_modules/x.js", "src/x.js"), Verdict::Withheld,
       "under node_modules/, renamed from 'node_modules/x.js'"},
  });
}

TEST_CASE("filters::decide withholds risky symlinks") {
  check_rows({
      {"absolute", symlink("passwd", "/etc/passwd"), Verdict::Withheld,
       "symlink to an absolute path (/etc/passwd)"},
      {"outside", symlink("a/b/link", "../../../outside"), Verdict::Withheld,
       "symlink pointing outside the project (../../../outside)"},
      {"top-level dot-dot", symlink("up", ".."), Verdict::Withheld, "outside the project"},
      {"into .git", symlink("hooks", ".git/hooks"), Verdict::Withheld,
       "symlink pointing into .git (.git/hooks)"},
      {"into .git from below", symlink("sub/cfg", "../.GIT/config"), Verdict::Withheld,
       "pointing into .git"},
      {"through a symlink that leads outside",
       with(symlink("docs/l", "../other/x"),
            [](auto& f) { f.symlink_reach = ws::filters::SymlinkReach::Outside; }),
       Verdict::Withheld, "symlink pointing outside the project (../other/x)"},
      {"inside", symlink("docs/readme", "../README.md"), Verdict::Transfer, ""},
      {"down and up", symlink("a/l", "b/../../c"), Verdict::Transfer, ""},
      {"to the root", symlink("a/root", ".."), Verdict::Transfer, ""},
      {"escapes shown safely", symlink("l", "/tmp/\x1b[31mred"), Verdict::Withheld,
       "(/tmp/\\033[31mred)"},
  });
  Decision d = decide(symlink("l", "/tmp/\x1b[31mred"), {});
  CHECK(d.reason.find('\x1b') == std::string::npos);
}

TEST_CASE("filters::decide withholds files above ws.maxFileSize") {
  auto sized = [](uint64_t n) { return with(added("data.txt"), [n](auto& f) { f.size = n; }); };
  check_rows({
      {"11 MiB", sized(11ull << 20), Verdict::Withheld,
       "11 MiB, larger than 10 MiB (ws.maxFileSize)"},
      {"10.5 MiB", sized((21ull << 20) / 2), Verdict::Withheld, "10.5 MiB, larger than 10 MiB"},
      {"exactly the limit", sized(10ull << 20), Verdict::Transfer, ""},
  });
  PolicyConfig small;
  small.max_file_size = 1000;
  check_rows({{"bytes", sized(1001), Verdict::Withheld, "1001 bytes, larger than 1000 bytes"}},
             small);
  PolicyConfig unlimited;
  unlimited.max_file_size = 0;
  check_rows({{"no limit", sized(1ull << 40), Verdict::Transfer, ""}}, unlimited);
}

TEST_CASE("filters::decide under ws.policy strict withholds only added files") {
  PolicyConfig strict;
  strict.level = PolicyConfig::Level::Strict;
  check_rows(
      {
          {"added", added("src/new.c"), Verdict::Withheld, "new file (ws.policy = strict)"},
          {"renamed", renamed("src/a.c", "src/b.c"), Verdict::Transfer, ""},
          {"modified", modified("src/a.c"), Verdict::Transfer, ""},
          {"deleted", deleted("src/a.c"), Verdict::Transfer, ""},
          {"added Makefile", added("Makefile"), Verdict::Withheld, "ws.policy = strict"},
      },
      strict);
  check_rows({{"default level", added("src/new.c"), Verdict::Transfer, ""}});
}

TEST_CASE("filters::decide applies ws.withhold and ws.flag patterns") {
  PolicyConfig config;
  config.withhold = {"*.log", "/secrets/"};
  config.flag = {"scripts/", "deploy.sh"};
  check_rows(
      {
          {"withhold *.log", added("logs/today.log"), Verdict::Withheld,
           "matches ws.withhold pattern '*.log'"},
          {"withhold anchored", modified("secrets/key.txt"), Verdict::Withheld,
           "matches ws.withhold pattern '/secrets/'"},
          {"anchored only at top", modified("src/secrets/key.txt"), Verdict::Transfer, ""},
          {"withhold a deletion", deleted("old.log"), Verdict::Withheld, "ws.withhold"},
          {"flag dir", modified("tools/scripts/x.py"), Verdict::Flagged,
           "matches ws.flag pattern 'scripts/'"},
          {"flag name", modified("deploy.sh"), Verdict::Flagged, "ws.flag pattern 'deploy.sh'"},
          {"withhold beats flag", added("scripts/a.log"), Verdict::Withheld, "ws.withhold"},
      },
      config);
}

TEST_CASE("filters::decide flags files that run code") {
  const char* runs = "runs code on your machine: ";
  std::vector<Row> rows;
  for (const char* path : {"Makefile",
                           "sub/dir/Makefile",
                           "makefile",
                           "GNUmakefile",
                           "rules/common.mk",
                           "CMakeLists.txt",
                           "cmake/Find.cmake",
                           "package.json",
                           "web/package.json",
                           "setup.py",
                           "setup.cfg",
                           "pyproject.toml",
                           "tests/conftest.py",
                           "Dockerfile",
                           "docker-compose.yml",
                           "docker-compose.yaml",
                           ".npmrc",
                           "Gemfile",
                           "Rakefile",
                           "justfile",
                           ".bashrc",
                           ".zshrc",
                           ".profile",
                           ".bash_profile",
                           ".envrc",
                           "MAKEFILE"}) {
    std::string name = path;
    name = name.substr(name.rfind('/') + 1);
    rows.push_back({path, modified(path), Verdict::Flagged, runs + name});
  }
  for (auto [path, label] : {std::pair{".vscode/launch.json", ".vscode/"},
                             {"x/.idea/misc.xml", ".idea/"},
                             {".githooks/pre-commit", ".githooks/"},
                             {".devcontainer/devcontainer.json", ".devcontainer/"}}) {
    rows.push_back({path, modified(path), Verdict::Flagged, std::string(runs) + label});
  }
  // cargo runs its rustc-wrapper for `cargo metadata`, which editors run on open.
  rows.push_back({".cargo/config.toml", modified(".cargo/config.toml"), Verdict::Withheld,
                  "cargo runs the rustc it names (rustc-wrapper) even for cargo metadata: "
                  ".cargo/config.toml"});
  // rust-analyzer runs `cargo check` (build scripts, proc macros) when an editor opens it.
  rows.push_back({"Cargo.toml", modified("crates/m/Cargo.toml"), Verdict::Withheld,
                  "rust-analyzer runs the build scripts and proc macros it names when your "
                  "editor opens the project: Cargo.toml"});
  rows.push_back({"build.rs", modified("build.rs"), Verdict::Withheld,
                  "rust-analyzer runs it when your editor opens the project (cargo check): "
                  "build.rs"});
  rows.push_back({"CI", modified(".github/workflows/ci.yml"), Verdict::Flagged,
                  "runs in CI with the repository's secrets: .github/workflows/"});
  rows.push_back(
      {".nvmrc", modified(".nvmrc"), Verdict::Flagged, "picks the toolchain that runs: .nvmrc"});
  for (const char* path :
       {".gitattributes", ".gitignore", "sub/.gitignore", ".gitmodules", ".lfsconfig"}) {
    rows.push_back({path, modified(path), Verdict::Flagged, "changes what git sees: "});
  }
  for (const char* path :
       {"Makefile.bak", "my-package.json", "src/setup.py.txt", ".github/x", "docs/Dockerfile.md"}) {
    rows.push_back({path, modified(path), Verdict::Transfer, ""});
  }
  rows.push_back({"deleted", deleted("Makefile"), Verdict::Flagged,
                  "runs code on your machine: Makefile (deleted)"});
  rows.push_back({"renamed away", renamed("Makefile", "Makefile.old"), Verdict::Flagged,
                  "Makefile, renamed from 'Makefile'"});
  rows.push_back({"renamed onto", renamed("notes.txt", "conftest.py"), Verdict::Flagged,
                  "runs code on your machine: conftest.py"});
  check_rows(rows);
}

TEST_CASE("filters::decide precedence blocked then withheld then flagged") {
  check_rows({
      {"blocked beats withheld",
       with(added(".git/hooks/x", k_exe), [](auto& f) { f.binary = true; }), Verdict::Blocked,
       "inside .git/"},
      {"blocked beats flagged", modified("vendor/.git/Makefile"), Verdict::Blocked, "nested .git"},
      {"withheld beats flagged", added(".githooks/pre-commit", k_exe), Verdict::Withheld,
       "new executable"},
      {"ignored Makefile", with(added("gen/Makefile"), [](auto& f) { f.ignored = true; }),
       Verdict::Withheld, "ignored by the real repository"},
      // Among withhold reasons the most specific comes first.
      {".venv before new executable", added(".venv/bin/python", k_exe), Verdict::Withheld,
       "under .venv/"},
      {"node_modules before ignored",
       with(added("node_modules/.bin/x", k_exe), [](auto& f) { f.ignored = true; }),
       Verdict::Withheld, "under node_modules/"},
      {"FIFO before ignored", with(added("p", S_IFIFO | 0644), [](auto& f) { f.ignored = true; }),
       Verdict::Withheld, "FIFO"},
      {"symlink before place", symlink("node_modules/x", "/usr/lib/x"), Verdict::Withheld,
       "symlink to an absolute path"},
      {"ignored before new executable",
       with(added("out/run", k_exe), [](auto& f) { f.ignored = true; }), Verdict::Withheld,
       "ignored by the real repository"},
      {"new executable before binary",
       with(added("bin/tool", k_exe), [](auto& f) { f.binary = true; }), Verdict::Withheld,
       "new executable"},
      {"binary before size",
       with(added("big.bin"),
            [](auto& f) {
              f.binary = true;
              f.size = 1ull << 30;
            }),
       Verdict::Withheld, "binary content"},
  });
}

TEST_CASE("filters::decide lets deletions through unless blocked ignored or placed") {
  check_rows({
      {"plain", deleted("src/old.c"), Verdict::Transfer, ""},
      {"content facts ignored",
       with(deleted("assets/logo.png"),
            [](auto& f) {
              f.binary = true;
              f.size = 1ull << 40;
              f.base_mode = k_exe;
            }),
       Verdict::Transfer, ""},
      {"type facts ignored",
       with(deleted("link"),
            [](auto& f) {
              f.base_mode = S_IFLNK | 0777;
              f.symlink_target = "/etc/passwd";
            }),
       Verdict::Transfer, ""},
      {"ignored", with(deleted("build/a.o"), [](auto& f) { f.ignored = true; }), Verdict::Withheld,
       "ignored by the real repository"},
      {"node_modules", deleted("node_modules/x/index.js"), Verdict::Withheld,
       "under node_modules/"},
      {".venv", deleted(".venv/bin/activate"), Verdict::Withheld, "under .venv/"},
      {".git", deleted(".git/hooks/pre-commit"), Verdict::Blocked, "inside .git/"},
      {"flagged", deleted(".vscode/extensions.json"), Verdict::Flagged, ".vscode/ (deleted)"},
      {"runs by itself: flagged", deleted(".vscode/settings.json"), Verdict::Flagged,
       "your editor runs what it says when it opens the project: .vscode/settings.json "
       "(deleted)"},
  });
}

TEST_CASE("filters::matches follows gitignore rules") {
  struct M {
    const char* pattern;
    const char* path;
    bool expected;
  };
  const M table[] = {
      // No '/': the last component or any directory component.
      {"*.log", "a.log", true},
      {"*.log", "dir/sub/a.log", true},
      {"*.log", "a.log/inner.txt", true},
      {"*.log", "a.txt", false},
      {"build", "build", true},
      {"build", "src/build/x.o", true},
      {"build", "builds/x", false},
      {"a*", "a/b", true},
      {".*", "src/.hidden", true}, // '*' matches a leading dot, as in gitignore
      {"Makefile", "makefile", false},
      // Trailing '/': directories only, so only what lies below.
      {"build/", "build", false},
      {"build/", "build/x", true},
      {"build/", "a/build/x/y", true},
      // A '/' elsewhere anchors at the top; '*' does not cross '/'.
      {"docs/*.md", "docs/a.md", true},
      {"docs/*.md", "docs/sub/a.md", false},
      {"docs/*.md", "x/docs/a.md", false},
      {"/out", "out", true},
      {"/out", "out/a", true},
      {"/out", "src/out", false},
      {"a/*/c", "a/b/c", true},
      {"a/*/c", "a/b/d/c", false},
      // "**" spans directories.
      {"**/foo", "foo", true},
      {"**/foo", "a/b/foo", true},
      {"**/foo", "a/foo/x", true},
      {"a/**/b", "a/b", true},
      {"a/**/b", "a/x/y/b", true},
      {"a/**/b", "a/x/c", false},
      {"a/**/**/b", "a/x/b", true},
      {"abc/**", "abc/x", true},
      {"abc/**", "abc/x/y", true},
      {"abc/**", "abc", false},
      {"**", "x", true},
      {"**", "x/y", true},
      // fnmatch's own syntax.
      {"?.c", "a.c", true},
      {"?.c", "ab.c", false},
      {"[ab].c", "b.c", true},
      {"[!ab].c", "c.c", true},
      {"[!ab].c", "a.c", false},
      {"\\*.c", "*.c", true},
      {"\\*.c", "a.c", false},
      // Nothing to match.
      {"", "x", false},
      {"/", "x", false},
      {"*", "", false},
  };
  for (const M& m : table) {
    const std::string pattern = m.pattern;
    const std::string path = m.path;
    CAPTURE(pattern);
    CAPTURE(path);
    CHECK(matches(m.pattern, m.path) == m.expected);
  }
}

TEST_CASE("filters::verdict_name names each verdict") {
  CHECK(std::string(verdict_name(Verdict::Transfer)) == "transfer");
  CHECK(std::string(verdict_name(Verdict::Flagged)) == "FLAGGED");
  CHECK(std::string(verdict_name(Verdict::Withheld)) == "WITHHELD");
  CHECK(std::string(verdict_name(Verdict::Blocked)) == "BLOCKED");
}
