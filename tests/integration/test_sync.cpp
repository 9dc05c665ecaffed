// ws sync (docs/transfer.md): the workspace brought onto the person's new commits - the agent's
// commits rebased on top of them, files both sides changed merged 3-way, conflicts listed and
// left as the agent had them, a checkpoint first (undone with ws restore), refusals that
// change nothing. Real git in a view, the agent confined by `ws run`.
#include "tests/support/agent_git_fixture.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

constexpr auto npos = std::string::npos;

/// git in the view, as the person looking at the agent's git.
std::string view_git(const MountedWorkspace& w, const std::string& args) {
  Run r = w.in_view("git " + args);
  INFO("view: git " << args << ": " << r.err);
  CHECK(r.status == 0);
  return r.out;
}

/// Two commits on a new branch `feature`, and an uncommitted edit of README.md's last line.
void two_commits(const MountedWorkspace& w) {
  std::string g = k_agent_git;
  agent(w, "git checkout -q -b feature && echo 'int sub(int a, int b);' >> src/util.h && " + g +
               " commit -qam 'util: sub' && echo 'sub' >> docs/guide/intro.txt && " + g +
               " commit -qam 'docs: sub' && echo 'more' >> README.md");
}

int checkpoint_in(const std::string& out) {
  size_t at = out.find("undo with: ws restore ");
  REQUIRE(at != npos);
  return std::stoi(out.substr(at + 22));
}

} // namespace

TEST_CASE("sync: the agent's commits rebase onto the person's new commit, its uncommitted edit "
          "merges with the person's, ws status stops saying HEAD moved, apply --commits lands "
          "them, ws restore undoes it") {
  TestRepo repo;
  MountedWorkspace w(repo);
  person_identity(repo);
  Run none = w.ws("sync");
  CHECK(none.status == 0); // as git rebase when up to date
  CHECK(none.out.find("nothing to sync: your HEAD has not moved since the workspace began") !=
        npos);

  two_commits(w);
  std::string agent_head = view_git(w, "rev-parse HEAD");
  // The person commits: README.md's first line (the agent changed its last), and main.c.
  repo.write("README.md", "# Project, by the person\n\nA small project for tests.\n");
  repo.write("src/main.c", repo.read("src/main.c") + "/* person */\n");
  git(repo, "commit -qam person");
  std::string person_head = git(repo, "rev-parse HEAD");
  CHECK(w.ws("status").out.find("your HEAD: 1 commit since the workspace began") != npos);

  Run check = w.ws("sync --check");
  INFO(check.out << check.err);
  CHECK(check.status == 0);
  CHECK(check.out.find("would sync onto main@") != npos);
  CHECK(view_git(w, "rev-parse HEAD") == agent_head); // a dry run changes nothing

  Run s = w.ws("sync");
  INFO(s.out << s.err);
  REQUIRE(s.status == 0);
  CHECK(s.out.find("M  README.md  (merged with yours)\n") != npos);
  CHECK(s.out.find("2 commits of the agent's rebased (feature: ") != npos);
  int undo = checkpoint_in(s.out);

  // The agent's git: its commits on top of the person's, message and author kept, its index
  // and tree in line (only the uncommitted edit shows), its branch's reflog says so.
  CHECK(view_git(w, "log --format='%s|%an' -3") ==
        "docs: sub|Agent\nutil: sub|Agent\nperson|Person\n");
  CHECK(view_git(w, "rev-parse HEAD~2") == person_head);
  CHECK(view_git(w, "status --porcelain") == " M README.md\n");
  CHECK(view_git(w, "reflog -1 --format=%gs feature").find("ws sync") != npos);
  CHECK(view_git(w, "fsck --no-dangling 2>&1") == "");
  CHECK(fs::exists(w.view() / "src/main.c"));
  std::string readme = (w.view() / "README.md").string();
  CHECK(sh("cat " + q(readme)).out ==
        "# Project, by the person\n\nA small project for tests.\nmore\n");
  // ws status: no HEAD moved; the agent's commits start from the person's HEAD; what is left
  // is the agent's own work.
  Run st = w.ws("status");
  INFO(st.out);
  CHECK(st.out.find("your HEAD:") == npos);
  CHECK(st.out.find("agent: 2 commits on feature (from main@" + person_head.substr(0, 7) + ")") !=
        npos);
  Run d = w.ws("diff --no-pager --color=never");
  CHECK(d.out.find("-# Project\n") == npos); // the person's edit is no change of the agent's
  CHECK(d.out.find("+more\n") != npos);

  // Undo: the workspace as it was, the agent's git too.
  Run r = w.ws("restore " + std::to_string(undo));
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  CHECK(view_git(w, "rev-parse HEAD") == agent_head);
  CHECK(w.ws("status").out.find("your HEAD: 1 commit since the workspace began") != npos);

  // Again, then landed: the commits apply cleanly on the person's branch.
  REQUIRE(w.ws("sync").status == 0);
  Run a = w.ws("apply --commits");
  INFO(a.out << a.err);
  REQUIRE(a.status == 0);
  CHECK(a.out.find("landed 2 commits on main and 1 uncommitted change") != npos);
  CHECK(git(repo, "log --format=%s -3") == "docs: sub\nutil: sub\nperson\n");
  CHECK(repo.read("README.md") == "# Project, by the person\n\nA small project for tests.\nmore\n");
}

TEST_CASE("sync: a file conflict is listed and left as the agent had it (or markers with "
          "--conflicts=markers), a commit that does not rebase refuses it all, a detached HEAD "
          "is refused") {
  TestRepo repo;
  MountedWorkspace w(repo);
  person_identity(repo);
  // The agent: an uncommitted edit of util.c's line and of the Makefile's end.
  agent(w, "sed -i 's/a + b/b + a/' src/util.c && echo '# agent' >> Makefile");
  repo.write("src/util.c", "#include \"util.h\"\n\nint add(int a, int b) { return a+b; }\n");
  repo.write("Makefile", "# person\n" + repo.read("Makefile"));
  git(repo, "commit -qam 'person: util'");
  std::string agents_util = sh("cat " + q((w.view() / "src/util.c").string())).out;

  Run s = w.ws("sync");
  INFO(s.out << s.err);
  CHECK(s.status == 1);
  CHECK(s.out.find("C  src/util.c  (left as the agent had it: ") != npos);
  CHECK(s.out.find("M  Makefile  (merged with yours)\n") != npos);
  CHECK(sh("cat " + q((w.view() / "src/util.c").string())).out == agents_util);
  CHECK(w.ws("status").out.find("your HEAD:") == npos);
  // The conflict still is one: apply says so.
  CHECK(w.ws("apply --check").status != 0);

  // Undone, then with markers: the agent's file holds both sides to resolve.
  REQUIRE(w.ws("restore " + std::to_string(checkpoint_in(s.out))).status == 0);
  Run m = w.ws("sync --conflicts=markers");
  INFO(m.out << m.err);
  CHECK(m.status == 1);
  CHECK(m.out.find("C  src/util.c  (conflict markers written") != npos);
  std::string marked = sh("cat " + q((w.view() / "src/util.c").string())).out;
  CHECK(marked.find("<<<<<<<") != npos);
  CHECK(marked.find("b + a") != npos);
  CHECK(marked.find("a+b") != npos);

  // A commit of the agent's that does not rebase: nothing changes.
  std::string g = k_agent_git;
  agent(w, "echo agent > docs/guide/intro.txt && " + g + " commit -qm intro docs/guide/intro.txt");
  repo.write("docs/guide/intro.txt", "person\n");
  git(repo, "commit -qam 'person: intro'");
  std::string before =
      view_git(w, "rev-parse HEAD") + view_git(w, "status --porcelain") + tree_listing(w.view());
  Run c = w.ws("sync");
  INFO(c.out << c.err);
  CHECK(c.status == 1);
  CHECK(c.err.find("the agent's commit 1 of 1, ") != npos);
  CHECK(c.err.find(" intro, does not rebase onto your main: it conflicts in "
                   "docs/guide/intro.txt; nothing was changed") != npos);
  CHECK(view_git(w, "rev-parse HEAD") + view_git(w, "status --porcelain") +
            tree_listing(w.view()) ==
        before);

  // The person's HEAD detached: refused.
  git(repo, "checkout -q --detach");
  Run dt = w.ws("sync");
  CHECK(dt.status == 1);
  CHECK(dt.err.find("your HEAD is detached") != npos);
}

TEST_CASE("sync: refused while a ws run session runs in the workspace - nothing changed - and "
          "works once it ended") {
  TestRepo repo;
  MountedWorkspace w(repo);
  person_identity(repo);
  two_commits(w);
  // So there is something to sync: README.md's first line (the agent changed its last).
  repo.write("README.md", "# Project, by the person\n\nA small project for tests.\n");
  git(repo, "commit -qam person");
  std::string person_head = git(repo, "rev-parse HEAD").substr(0, 40);

  // The agent at work: a session that lasts until the test lets it end (a file in the view;
  // a minute at most, should the test fail first), leaving nothing of its own behind.
  Run bg = w.ws("run -- sh -c " +
                q("touch .session-started; i=0; while [ ! -e .session-stop ] && [ $i -lt 600 ]; "
                  "do sleep 0.1; i=$((i + 1)); done; rm -f .session-started .session-stop") +
                " >/dev/null 2>&1 </dev/null & echo $!");
  REQUIRE(bg.status == 0);
  const int pid = std::stoi(bg.out);
  auto running = [&] { return fs::exists("/proc/" + std::to_string(pid)); };
  for (int i = 0; i < 300 && !fs::exists(w.view() / ".session-started"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  REQUIRE(fs::exists(w.view() / ".session-started"));

  auto state = [&] {
    return view_git(w, "rev-parse HEAD") + view_git(w, "status --porcelain") +
           tree_listing(w.view()) + w.ws("status").out;
  };
  std::string before = state();
  for (const char* args : {"sync", "sync --check"}) {
    Run s = w.ws(args);
    INFO(args << ": " << s.out << s.err);
    CHECK(s.status == 1);
    CHECK(s.err.find("ws: error: a 'ws run' session runs in workspace 'default' (sh -c ") != npos);
    CHECK(s.err.find("ws sync rewrites the agent's files and its git under it") != npos);
    CHECK(s.err.find("hint: let the session end (or end it), then ws sync") != npos);
    CHECK(s.out.empty());
  }
  CHECK(state() == before);
  CHECK(w.ws("status").out.find("your HEAD: 1 commit since the workspace began") != npos);

  // The session ends: the same sync now works.
  w.in_view("touch .session-stop");
  for (int i = 0; i < 300 && running(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  REQUIRE_FALSE(running());
  Run j = w.ws("sync --check --json");
  INFO(j.out << j.err);
  CHECK(j.status == 0);
  CHECK(j.out == "{\"check\":true,\"onto\":\"" + person_head +
                     "\",\"commits\":2,\"files\":[{\"path\":\"README.md\",\"result\":\"merged\","
                     "\"why\":\"\"}]}\n");
  Run s = w.ws("sync");
  INFO(s.out << s.err);
  CHECK(s.status == 0);
  CHECK(s.out.find("M  README.md  (merged with yours)\n") != npos);
  CHECK(s.out.find("2 commits of the agent's rebased (feature: ") != npos);
  CHECK(w.ws("status").out.find("your HEAD:") == npos);
}
