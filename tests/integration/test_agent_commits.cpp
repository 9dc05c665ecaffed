// The agent's commits as commits (docs/transfer.md): `ws status`'s line about the agent's git,
// `ws log --commits`, `ws diff --commits`, `ws apply --commits` (3-way onto the person's
// branch, all or nothing, the policy per commit, no hook run), and the agent's `git checkout
// HEAD~3` shown for what it is. Real git in a view, the agent confined by `ws run`.
#include "tests/support/agent_git_fixture.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

constexpr auto npos = std::string::npos;

std::string short_head(const TestRepo& repo) {
  return git(repo, "rev-parse --short=7 HEAD").substr(0, 7);
}

/// The person's identity, and a pre-commit hook that leaves a mark if it ever runs (made after
/// `ws new`, so the agent's git has none).
void person_setup(const TestRepo& repo) {
  person_identity(repo);
  repo.write(".git/hooks/pre-commit",
             "#!/bin/sh\ntouch " + q((repo.path() / "hook-ran").string()) + "\n");
  fs::permissions(repo.path() / ".git/hooks/pre-commit", fs::perms(0755));
}

/// Two commits on a new branch `feature` and an uncommitted edit on top.
void two_commits(const MountedWorkspace& w) {
  std::string g = k_agent_git;
  agent(w, "git checkout -q -b feature && echo 'int sub(int a, int b);' >> src/util.h && " + g +
               " commit -qam 'util: sub' -m 'Declared for the calculator.' && "
               "echo 'sub' >> docs/guide/intro.txt && " +
               g + " commit -qam 'docs: sub' && echo 'more' >> README.md");
}

} // namespace

TEST_CASE("agent commits: ws status, ws log --commits and ws diff --commits show the agent's "
          "commits") {
  TestRepo repo;
  std::string start = short_head(repo);
  MountedWorkspace w(repo);
  two_commits(w);

  Run st = w.ws("status");
  INFO(st.out << st.err);
  CHECK(st.out.rfind("agent: 2 commits on feature (from main@" + start + ")\n", 0) == 0);
  CHECK(st.out.find(".git/") == npos); // one line about its git, never its files
  CHECK(st.out.find("M README.md\n") != npos);
  CHECK(w.ws("status --verbose").out.find("A .git/refs/heads/feature  (the agent's git)") != npos);

  Run log = w.ws("log --commits");
  INFO(log.out << log.err);
  CHECK(log.status == 0);
  size_t second = log.out.find("    docs: sub\n");
  size_t first = log.out.find("    util: sub\n    \n    Declared for the calculator.\n");
  CHECK(second != npos);
  CHECK(first != npos);
  CHECK(second < first); // newest first, as git log
  CHECK(log.out.find("Author: Agent <agent@example.com>\n") != npos);
  CHECK(log.out.find("Date:   2026-01-02 03:04:05 +0100\n") != npos);
  CHECK(log.out.find("  M  src/util.h\n") != npos);
  CHECK(log.out.find("  M  docs/guide/intro.txt\n") != npos);
  CHECK(log.out.find("2 commits from main@" + start) != npos);

  Run d = w.ws("diff --commits --no-pager --color=never");
  INFO(d.out << d.err);
  CHECK(d.status == 0);
  CHECK(d.out.find("From: Agent <agent@example.com>\nDate: Fri, 2 Jan 2026 03:04:05 +0100\n"
                   "Subject: [PATCH 1/2] util: sub\n\nDeclared for the calculator.\n") != npos);
  CHECK(d.out.find("Subject: [PATCH 2/2] docs: sub\n") != npos);
  CHECK(d.out.find("+int sub(int a, int b);\n") != npos);
  size_t rest = d.out.find("# uncommitted changes, on top of the commits:\n");
  CHECK(rest != npos);
  CHECK(d.out.find("+more\n", rest) != npos);
  CHECK(d.out.find("+sub\n", rest) == npos); // committed, not in the rest
}

TEST_CASE("agent commits: ws apply --commits lands each commit as a commit on the person's "
          "branch - message, author and date kept, the person's edits kept, no hook run") {
  TestRepo repo;
  MountedWorkspace w(repo);
  person_setup(repo);
  two_commits(w);
  // Meanwhile the person commits, and has an unstaged edit to a file the commits change.
  repo.write("src/main.c", repo.read("src/main.c") + "/* person */\n");
  git(repo, "commit -qam person --no-verify");
  std::string person_head = git(repo, "rev-parse HEAD");
  repo.write("src/util.h", "/* person's unstaged */\n" + repo.read("src/util.h"));

  Run a = w.ws("apply --commits");
  INFO(a.out << a.err);
  REQUIRE(a.status == 0);
  CHECK(a.out.find(" util: sub  (the agent's ") != npos);
  CHECK(a.out.find(" docs: sub  (the agent's ") != npos);
  CHECK(a.out.find("landed 2 commits on main and 1 uncommitted change") != npos);
  CHECK(a.out.find("no hook ran") != npos);
  CHECK(a.out.find("git rebase -x 'git hook run pre-commit' HEAD~2") != npos);
  CHECK(!fs::exists(repo.path() / "hook-ran"));

  CHECK(git(repo, "log --format='%an|%ae|%ad|%cn|%s' --date=iso -2") ==
        "Agent|agent@example.com|2026-01-02 03:04:05 +0100|Person|docs: sub\n"
        "Agent|agent@example.com|2026-01-02 03:04:05 +0100|Person|util: sub\n");
  CHECK(git(repo, "rev-parse HEAD~2") == person_head); // on top of the person's commit
  CHECK(git(repo, "log -1 --format=%b HEAD~1") == "Declared for the calculator.\n\n");
  CHECK(git(repo, "fsck --no-dangling 2>&1") == "");
  // The person's unstaged edit stays, unstaged, on top of the agent's commit; the uncommitted
  // rest is in the working tree, not staged.
  CHECK(git(repo, "status --porcelain") == " M README.md\n M src/util.h\n");
  CHECK(git(repo, "diff src/util.h").find("+/* person's unstaged */\n") != npos);
  CHECK(repo.read("src/util.h").find("int sub(int a, int b);\n") != npos);
  // What landed is no longer new: the agent's git has nothing left to land.
  CHECK(w.ws("log --commits").out.find("the agent made no commits since it started") == 0);
  CHECK(w.ws("status").out.find("agent: ") == npos);
}

TEST_CASE("agent commits: ws apply --commits is all or nothing - a conflict in commit 2 lands "
          "nothing and names the commit and the file") {
  TestRepo repo;
  MountedWorkspace w(repo);
  person_setup(repo);
  two_commits(w);
  repo.write("docs/guide/intro.txt", "intro, by the person\n");
  git(repo, "commit -qam 'person: intro' --no-verify");
  // What the person sees: HEAD, the index, the working tree (objects the attempt wrote are
  // unreferenced, as git's own failed merges leave them).
  auto person_view = [&] {
    return git(repo, "rev-parse HEAD") + git(repo, "status --porcelain") +
           git(repo, "ls-files -s") + tree_listing(repo.path());
  };
  std::string before = person_view();
  Run a = w.ws("apply --commits");
  INFO(a.out << a.err);
  CHECK(a.status == 1);
  CHECK(a.err.find("commit 2 of 2, ") != npos);
  CHECK(a.err.find(" docs: sub, does not apply onto your main: it conflicts in "
                   "docs/guide/intro.txt; nothing was applied") != npos);
  CHECK(person_view() == before);
  // Checked, it says the same and lands nothing either.
  CHECK(w.ws("apply --commits --check").status == 1);
  CHECK(person_view() == before);
}

TEST_CASE("agent commits: the policy applies per commit - a withheld path is left out of its "
          "commit and listed, a commit left empty says so, a merge is refused") {
  TestRepo repo;
  MountedWorkspace w(repo);
  person_setup(repo);
  std::string g = k_agent_git;
  agent(w, "printf '#!/bin/sh\\necho hi\\n' > tool.sh && chmod +x tool.sh && echo x >> README.md "
           "&& git add tool.sh && " +
               g + " commit -qam 'tool and readme' && echo y >> tool.sh && " + g +
               " commit -qam 'only the tool'");
  Run d = w.ws("diff --commits --no-pager --color=never");
  CHECK(d.err.find("# [PATCH 1/2] A  tool.sh  (WITHHELD: new executable") != npos);
  CHECK(d.err.find("# [PATCH 2/2] only the tool: left empty") != npos);

  Run a = w.ws("apply --commits");
  INFO(a.out << a.err);
  REQUIRE(a.status == 0);
  CHECK(a.out.find("     left out: tool.sh  (WITHHELD: new executable") != npos);
  CHECK(a.out.find(" only the tool: left empty (everything it changed is withheld or already "
                   "yours), not made") != npos);
  CHECK(git(repo, "log --format=%s -2") == "tool and readme\ninit\n");
  CHECK(git(repo, "show --stat --format= HEAD").find("tool.sh") == npos);
  CHECK(!fs::exists(repo.path() / "tool.sh"));
  CHECK(w.ws("status").out.find("A tool.sh  (WITHHELD: new executable") != npos);

  // A merge in the agent's history: refused, nothing lands.
  agent(w, "git checkout -q -b side && echo s >> src/util.c && " + g +
               " commit -qam side && git checkout -q main && echo m >> src/main.c && " + g +
               " commit -qam main && " + g + " merge -q --no-edit side");
  std::string before = repo.snapshot();
  Run m = w.ws("apply --commits");
  CHECK(m.status == 1);
  CHECK_MESSAGE(m.err.find("the agent's history has a merge commit") != npos, m.err);
  CHECK(m.err.find("hint: land everything as one change with 'ws apply'") != npos);
  CHECK(repo.snapshot() == before);
}

TEST_CASE("agent commits: the agent's git checkout HEAD~3 is its git's clean state, shown as "
          "undoing three of the person's commits, never landed silently") {
  TestRepo repo;
  for (int i = 1; i <= 3; ++i) {
    repo.write("c" + std::to_string(i) + ".txt", "commit " + std::to_string(i) + "\n");
    git(repo, "add -A");
    git(repo, "-c user.name=Person -c user.email=p@example.com commit -qm c" + std::to_string(i));
  }
  MountedWorkspace w(repo);
  Run co = agent(w, "git checkout -q HEAD~3 && git status --porcelain");
  CHECK(co.out == ""); // its git says clean
  Run st = w.ws("status");
  INFO(st.out);
  CHECK(st.out.find("agent: 0 commits on a detached HEAD at ") == 0);
  CHECK(st.out.find("agent: its HEAD no longer has 3 commits it started with (a reset or "
                    "rebase): ") != npos);
  CHECK(st.out.find("D c3.txt  (WITHHELD: undoes your commit ") != npos);
  CHECK(st.out.find(".git/") == npos);
  std::string before = repo.snapshot();
  Run a = w.ws("apply");
  INFO(a.out << a.err);
  CHECK(a.status == 0);
  CHECK(a.out.find("nothing to apply") != npos);
  CHECK(repo.snapshot() == before);
}

TEST_CASE("agent commits: a commit holding an npm install is a few lines in every report, and "
          "--verbose lists each path") {
  TestRepo repo;
  MountedWorkspace w(repo);
  person_setup(repo);
  std::string g = k_agent_git;
  // 30 files under node_modules/ committed with an edit (agents commit what they installed
  // when the project ignores nothing), then a withheld script left uncommitted.
  agent(w, "mkdir -p node_modules/pkg/lib && for i in $(seq 1 30); do echo \"x$i\" > "
           "node_modules/pkg/lib/f$i.js; done && echo x >> README.md && git add -A && " +
               g +
               " commit -qm 'install and readme' && printf '#!/bin/sh\\necho hi\\n' > tool.sh && "
               "chmod +x tool.sh");
  const std::string folded = "A  node_modules/  30 files  (WITHHELD: under node_modules/)";

  Run log = w.ws("log --commits");
  INFO(log.out << log.err);
  CHECK(log.status == 0);
  CHECK(log.out.find("  " + folded + "\n") != npos);
  CHECK(log.out.find("  M  README.md\n") != npos);
  CHECK(log.out.find("f17.js") == npos);
  Run every = w.ws("log --commits --verbose");
  CHECK(every.out.find("  A  node_modules/pkg/lib/f17.js  (WITHHELD: under node_modules/)\n") !=
        npos);

  Run d = w.ws("diff --commits --no-pager --color=never");
  INFO(d.out << d.err);
  CHECK(d.status == 0);
  CHECK(d.err.find("# [PATCH 1/1] " + folded + "\n") != npos);
  CHECK(d.err.find("f17.js") == npos);
  // The uncommitted section says what is left besides the commits, not the commits again.
  size_t rest = d.err.find("# uncommitted:\n");
  REQUIRE(rest != npos);
  CHECK(d.err.find("A  tool.sh", rest) != npos);
  CHECK(d.err.find("node_modules", rest) == npos);
  CHECK(w.ws("diff --commits --no-pager --color=never --verbose").err.find("f17.js") != npos);

  Run a = w.ws("apply --commits");
  INFO(a.out << a.err);
  REQUIRE(a.status == 0);
  CHECK(a.out.find("     left out: node_modules/  30 files  (WITHHELD: under node_modules/)\n") !=
        npos);
  CHECK(a.out.find("f17.js") == npos);
  CHECK(git(repo, "show --stat --format= HEAD").find("README.md") != npos);
  CHECK(!fs::exists(repo.path() / "node_modules"));
}
