// A file that would land beneath a directory symlink the person made in the real tree after
// the agent wrote there (`lib -> src`, or `lib -> a directory outside the project`): every
// path that lands in the real tree (`ws apply`, `ws apply --commits`, `ws review`) lists it as
// a conflict in the same words, lands nothing, writes nothing through the link, and keeps the
// workspace, so that once the person removes the link the same command lands it all. Real
// views, the agent's real git commits in `ws run`, as root and as a normal user.
#include "tests/integration/review_terminal.hpp"
#include "tests/integration/run_support.hpp"
#include "tests/support/harness.hpp"
#include "tests/support/text_checks.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

constexpr auto npos = std::string::npos;

/// What every command says of a file beneath the person's `lib` symlink: one line per file.
constexpr const char* k_conflict =
    "CONFLICT lib is a symlink in the real tree, and this apply does not delete it: nothing is "
    "written through it\n";

constexpr const char* k_agent_git =
    "GIT_AUTHOR_DATE='2026-01-02T03:04:05+0100' git -c user.name=Agent -c "
    "user.email=agent@example.com";

/// How many times `needle` occurs in `hay`.
size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != npos; at = hay.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

/// The person's project, where the agent committed `lib/x.c` and a README line (two
/// commits), then left `lib/y.c` and a new executable `lib/tool.sh` (withheld) uncommitted;
/// then the person made `lib` a symlink: to `src`, or to a directory outside the project.
struct LinkedAway {
  Person p;
  fs::path target;
  explicit LinkedAway(const std::string& user, bool outside) : p(user) {
    REQUIRE(
        p.sh_as("git config user.name Person && git config user.email person@example.com").status ==
        0);
    REQUIRE(p.ws("new").status == 0);
    std::string g = k_agent_git;
    Run a = p.ws("run -- sh -c " +
                 q("mkdir lib && echo 'int x;' > lib/x.c && git add lib/x.c && " + g +
                   " commit -qm 'lib: x' && echo more >> README.md && " + g +
                   " commit -qam 'readme: more' && echo 'int y;' > lib/y.c && "
                   "printf '#!/bin/sh\\necho hi\\n' > lib/tool.sh && chmod +x lib/tool.sh"));
    REQUIRE_MESSAGE(a.status == 0, a.out << a.err);
    target = outside ? p.scratch() / "elsewhere" : p.project() / "src";
    REQUIRE(p.sh_as("mkdir -p " + q(target.string()) + " && ln -s " +
                    q(outside ? target.string() : std::string("src")) + " lib")
                .status == 0);
  }
  /// What the person has: HEAD, the index, the status, every file (outside too).
  std::string state() const {
    return p
        .sh_as("git rev-parse HEAD && git ls-files -s && git status --porcelain "
               "--untracked-files=all && find . " +
               q(target.string()) + " -path ./.git -prune -o -print | sort")
        .out;
  }
};

} // namespace

TEST_CASE("symlink conflict: ws apply --commits lists a file beneath the person's new directory "
          "symlink as a conflict - nothing lands or goes through the link - and lands once the "
          "link is gone") {
  for (const std::string& user : people()) {
    for (bool outside : {false, true}) {
      LinkedAway s(user, outside);
      INFO("as " << s.p.label() << ", lib -> " << s.target.string());
      std::string before = s.state();
      for (std::string cmd : {"apply --commits --check", "apply --commits --include lib/tool.sh",
                              "apply --commits"}) {
        Run a = s.p.ws(cmd);
        INFO("ws " << cmd << ": " << a.status << "\n" << a.out << a.err);
        CHECK(a.status == 1);
        // The commit's file and the uncommitted one each, in the words `ws apply` uses.
        CHECK(count(a.err, k_conflict) == (cmd.find("include") != npos ? 3 : 2));
        CHECK(a.err.find("refusing to write through a symlink") == npos);
        CHECK(a.err.find("nothing was applied") != npos);
        CHECK(s.state() == before);
      }
      CHECK(fs::is_empty(s.target) == outside);
      // Plain `ws apply` says the same of the same files.
      Run plain = s.p.ws("apply --include lib/tool.sh");
      INFO("ws apply: " << plain.out << plain.err);
      CHECK(plain.status == 1);
      CHECK(count(plain.err, k_conflict) == 3);
      CHECK(s.state() == before);

      // The workspace is as it was: with the link gone, everything lands.
      REQUIRE(s.p.sh_as("rm lib").status == 0);
      Run a = s.p.ws("apply --commits --include lib/tool.sh");
      INFO("after rm lib: " << a.out << a.err);
      REQUIRE(a.status == 0);
      CHECK(a.out.find("landed 2 commits on main and 2 uncommitted changes") != npos);
      CHECK(s.p.sh_as("git log --format=%s -3").out == "readme: more\nlib: x\ninit\n");
      CHECK(s.p.sh_as("cat lib/x.c lib/y.c && test -x lib/tool.sh && git status --porcelain").out ==
            "int x;\nint y;\n?? lib/tool.sh\n?? lib/y.c\n");
      CHECK(fs::is_empty(s.target) == outside);
    }
  }
}

TEST_CASE("symlink conflict: ws review lists an accepted file beneath the person's new directory "
          "symlink as ws apply does - nothing lands and the decisions stay - and lands once the "
          "link is gone") {
  if (!tmux_or_skip()) {
    return;
  }
  for (bool outside : {false, true}) {
    TestRepo repo;
    TempDir away;
    MountedWorkspace w(repo);
    REQUIRE(w.in_view("mkdir lib && echo 'int x;' > lib/x.c && echo note > notes.md && "
                      "printf '#!/bin/sh\\necho hi\\n' > lib/tool.sh && chmod +x lib/tool.sh")
                .status == 0);
    fs::path target = outside ? away.path() : repo.path() / "src";
    fs::create_symlink(outside ? target : fs::path("src"), repo.path() / "lib");
    INFO("lib -> " << target.string());
    std::string before = repo.snapshot();
    std::string target_before = sh("ls -A " + q(target.string())).out;
    {
      ReviewTerminal t(w, repo, "", 200, 40); // wide: a conflict line is one line
      t.wait_for("0/2 decided");
      // The list: lib/x.c, notes.md; WITHHELD: lib/tool.sh (taken: the reviewer includes it).
      t.keys("a", "[+] A lib/x.c");
      t.keys("a", "[+] A notes.md");
      t.send("G");
      t.keys("o", "Take WITHHELD 'lib/tool.sh'");
      t.keys("y", "[+] A lib/tool.sh");
      t.keys("F", "Finish:");
      t.keys("t", "ws-exit=1");
      std::string done = t.screen();
      INFO(done);
      CHECK(count(done, "CONFLICT lib is a symlink in the real tree, and this apply does not "
                        "delete it: nothing is") == 2);
      CHECK(done.find("refusing to write through a symlink") == npos);
      CHECK(done.find("nothing was landed") != npos);
    }
    CHECK(repo.snapshot() == before);
    CHECK(sh("ls -A " + q(target.string())).out == target_before);

    // The link gone, the same review comes back decided, and lands.
    fs::remove(repo.path() / "lib");
    ReviewTerminal t(w, repo, "", 200, 40);
    t.wait_for("decisions restored from your last session");
    CHECK(t.screen().find("3/3 decided") != npos);
    t.keys("F", "Finish:");
    t.keys("t", "ws-exit=0");
    CHECK(t.screen().find("applied 3 files") != npos);
    CHECK(repo.read("lib/x.c") == "int x;\n");
    CHECK(repo.read("notes.md") == "note\n");
    CHECK(sh("test -x lib/tool.sh", repo.path()).status == 0);
    CHECK(sh("ls -A " + q(target.string())).out == target_before);
  }
}
