// The agent's git is its own (docs/agent-git.md): real git in a view, as the agent (`ws run`)
// and as the person (in the real tree). Neither side's commits move the other's HEAD; the
// person's gc never breaks the agent's git; linked worktrees work; pins go with the workspace.
#include "tests/integration/apply_support.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

constexpr auto npos = std::string::npos;

Run agent(const MountedWorkspace& w, const std::string& script) {
  return run_as_agent(w, script);
}

std::string out_of(const Run& r) {
  std::string s = r.out;
  while (!s.empty() && s.back() == '\n') {
    s.pop_back();
  }
  return s;
}

std::string real_git(const TestRepo& repo, const std::string& args) {
  Run r = sh(std::string(k_person_git) + " " + args, repo.path());
  INFO("git " << args << ": " << r.err);
  REQUIRE(r.status == 0);
  return out_of(r);
}

} // namespace

TEST_CASE("agent git: the person's commits never move the agent's HEAD, nor the agent's the "
          "person's") {
  TestRepo repo;
  MountedWorkspace w(repo);
  std::string start = real_git(repo, "rev-parse HEAD");

  repo.write("README.md", "the person's new readme\n");
  real_git(repo, "commit -qam person-1");
  std::string person = real_git(repo, "rev-parse HEAD");

  Run seen = agent(w, "git rev-parse HEAD && git status --porcelain");
  INFO("agent: " << seen.out << seen.err);
  REQUIRE(seen.status == 0);
  // Its HEAD stayed; the person's file shows (untouched by the agent), so its git sees it
  // modified, which is true.
  CHECK(seen.out == start + "\n M README.md\n");

  Run commit =
      agent(w, "echo agent >> src/util.c && git add src/util.c && " + std::string(k_agent_git) +
                   " commit -qm 'agent: util' && git rev-parse HEAD HEAD~1");
  INFO("agent commit: " << commit.out << commit.err);
  REQUIRE(commit.status == 0);
  std::string agents = commit.out.substr(0, 40);
  CHECK(commit.out.substr(41, 40) == start); // on top of where it started, not the person's

  CHECK(real_git(repo, "rev-parse HEAD") == person);
  CHECK(sh("git cat-file -e " + agents, repo.path()).status != 0); // its objects are its own
  CHECK(real_git(repo, "log --format=%s") == "person-1\ninit");
  CHECK(sh("git status --porcelain", repo.path()).out == "");

  Run st = w.ws("status");
  INFO("ws status: " << st.out << st.err);
  CHECK(st.status == 0);
  CHECK(st.out.find("agent: 1 commit on main (from main@" + start.substr(0, 7) + ")\n") == 0);
  CHECK(st.out.find("your HEAD: 1 commit since the workspace began (" + start.substr(0, 7) +
                    " -> " + person.substr(0, 7) + ")") != npos);
  CHECK(st.out.find("M src/util.c\n") != npos);
  CHECK(st.out.find(".git/") == npos); // one line about the agent's git, not its files
  Run verbose = w.ws("status --verbose");
  CHECK(verbose.out.find("(the agent's git)") != npos);
  CHECK(verbose.out.find(".git/index") != npos);
}

// Was a hole (a CI flake of ws sync, 1 run in ~30): the agent's git made a fan-out directory
// (.git/objects/ab) before the person's git wrote an object of the same prefix; the agent's
// directory hid the real one, and the agent's git could not read the person's commit.
TEST_CASE("agent git: the person's objects show in fan-out directories the agent's git made "
          "first") {
  TestRepo repo;
  MountedWorkspace w(repo);
  // Every fan-out directory, made by the agent before the person commits (any prefix the
  // person's new objects take is then the agent's first).
  Run made = agent(w, "cd .git/objects && for a in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do "
                      "for b in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do mkdir -p $a$b; done; done");
  REQUIRE_MESSAGE(made.status == 0, made.err);
  repo.write("README.md", "the person's new readme\n");
  real_git(repo, "commit -qam person-1");
  std::string person = real_git(repo, "rev-parse HEAD");
  std::string tree = real_git(repo, "rev-parse HEAD^{tree}");
  Run seen = agent(w, "git cat-file -t " + person + " && git cat-file -t " + tree +
                          " && git show " + person + ":README.md");
  INFO("agent: " << seen.out << seen.err);
  CHECK(seen.status == 0);
  CHECK(seen.out == "commit\ntree\nthe person's new readme\n");
  // Outside ws run too (the view), and after the view is mounted again.
  CHECK(sh("git cat-file -t " + person, w.view()).out == "commit\n");
}

TEST_CASE("agent git: the person's git gc --prune=now never breaks the agent's git") {
  TestRepo repo;
  repo.write("notes.txt", "one\n");
  real_git(repo, "add notes.txt");
  real_git(repo, "commit -qm second");
  real_git(repo, "branch topic HEAD~1");
  repo.write("staged.txt", "only in the index\n");
  real_git(repo, "add staged.txt");
  std::string second = real_git(repo, "rev-parse HEAD");
  MountedWorkspace w(repo);
  // Its refs' commits, and a commit holding the index it started with (something is staged).
  CHECK(real_git(repo, "for-each-ref refs/ws/").find("/start-index") != npos);

  // The person throws away what the agent's git started from, and collects the garbage.
  real_git(repo, "reset -q --hard HEAD~1");
  real_git(repo, "branch -D topic");
  real_git(repo, "reflog expire --expire=now --all");
  real_git(repo, "gc -q --prune=now");
  CHECK(sh("git cat-file -e " + second, repo.path()).status == 0); // pinned, so kept

  Run git = agent(w, "git log --format=%s && git rev-parse topic >/dev/null && "
                     "git diff --cached --stat && git fsck --no-dangling 2>&1 && git status "
                     "--porcelain");
  INFO("agent: " << git.out << git.err);
  CHECK(git.status == 0);
  CHECK(git.out.find("second\ninit\n") == 0);
  CHECK(git.out.find("staged.txt") != npos);
}

TEST_CASE("agent git: ws rm removes the workspace's pins from the real repository") {
  TestRepo repo;
  std::string refs;
  {
    MountedWorkspace w(repo);
    refs = real_git(repo, "for-each-ref --format='%(refname)' refs/ws/");
    CHECK(refs.find("refs/ws/default-") == 0);
    CHECK(refs.find(real_git(repo, "rev-parse HEAD")) != npos); // what its HEAD names
    w.unmount();
    Run rm = w.ws("rm --force default");
    CHECK_MESSAGE(rm.status == 0, rm.err);
  }
  CHECK(real_git(repo, "for-each-ref refs/ws/") == "");
}

TEST_CASE("agent git: a linked worktree of the real repository gets a git of its own") {
  TestRepo repo;
  TempDir other;
  fs::path wt = other.path() / "wt";
  real_git(repo, "worktree add -q " + q(wt.string()) + " -b side");
  std::string env = "XDG_DATA_HOME=" + q((other.path() / "data").string()) +
                    " XDG_RUNTIME_DIR=" + q((other.path() / "run").string()) + " ";
  std::string ws = env + q(ws_binary().string()) + " -C " + q(wt.string()) + " ";
  fs::create_directories(other.path() / "run");
  REQUIRE(sh(ws + "new").status == 0);
  Run view = sh(ws + "mount");
  REQUIRE_MESSAGE(view.status == 0, view.err);
  std::string side = out_of(sh("git rev-parse HEAD", wt));

  Run commit = sh(ws + "run -- sh -c " +
                  q("test -d .git && git status --porcelain && echo agent >> README.md && " +
                    std::string(k_agent_git) +
                    " commit -qam agent-on-side && git log --format=%s -1 && git branch "
                    "--show-current"));
  INFO("agent: " << commit.out << commit.err);
  CHECK(commit.status == 0);
  CHECK(commit.out == "agent-on-side\nside\n");
  CHECK(out_of(sh("git rev-parse HEAD", wt)) == side); // the real worktree did not move
  CHECK(out_of(sh("git rev-parse side", repo.path())) == side);
  Run st = sh(ws + "status");
  CHECK(st.out.find("agent: 1 commit on side (from side@") == 0);
  sh(ws + "umount --force");
}
