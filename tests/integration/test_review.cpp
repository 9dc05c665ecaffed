// ws review driven for real: the ws binary in a real terminal (tmux), keys sent with
// send-keys, the screen read with capture-pane, the real index and tree checked after.
#include "tests/integration/review_terminal.hpp"
#include "tests/integration/review_work.hpp"
#include "tests/support/harness.hpp"
#include "tests/support/text_checks.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

constexpr auto npos = std::string::npos;

} // namespace

TEST_CASE("review: accept and reject files and hunks - override a withheld file - stage") {
  if (!tmux_or_skip()) {
    return;
  }
  TestRepo repo;
  MountedWorkspace w(repo);
  agent_work(repo, w);
  fs::path rejected = repo.path().parent_path() / "rejected.patch";
  ReviewTerminal t(w, repo, "--rejected " + q(rejected.string()));
  t.wait_for("0/4 decided");
  std::string first = t.screen();
  check_has_all(first, {"WITHHELD (1)", "new executable"});

  // List order: README.md (D), new.txt, notes.txt, src/main.c; WITHHELD: tool.sh.
  t.keys("a", "[+] D README.md");
  t.keys("r", "[-] A new.txt");
  t.keys("Tab", "@@ -1,5 +1,5 @@");
  t.keys("a", "@@ -1,5 +1,5 @@  accepted");
  t.keys("r", "rejected");
  t.keys("a", "3/4 decided"); // every hunk of notes.txt decided
  t.keys("Tab", "[~] M notes.txt");
  t.keys("j", ">[ ] M src/main.c");
  t.keys("j", ">[x] A tool.sh");
  t.keys("a", "press o");
  t.keys("o", "Take WITHHELD 'tool.sh'");
  t.keys("y", "[+] A tool.sh");
  t.keys("F", "Finish:");
  t.keys("s", "ws-exit=0");
  std::string done = t.screen();
  check_has_all(done, {"staged 3 files", "2 of 3 hunks"});

  // The index and the tree hold exactly what was accepted.
  Run cached = sh("git diff --cached --name-status", repo.path());
  CHECK(cached.out == "D\tREADME.md\nM\tnotes.txt\nA\ttool.sh\n");
  CHECK(sh("git show :notes.txt", repo.path()).out == lines(30, 2, 28));
  CHECK(repo.read("notes.txt") == lines(30, 2, 28));
  CHECK(sh("test -x tool.sh", repo.path()).status == 0);
  CHECK_FALSE(fs::exists(repo.path() / "new.txt"));
  CHECK_FALSE(fs::exists(repo.path() / "README.md"));
  CHECK(sh("git diff --quiet -- src/main.c", repo.path()).status == 0); // undecided: left
  CHECK(sh("git diff --quiet", repo.path()).status == 0); // the tree is what was staged

  // Taken whole: gone from the workspace. Rejected, undecided, partly taken: still there.
  std::string status = w.ws("status").out;
  CHECK(status.find("README.md") == npos);
  CHECK(status.find("tool.sh") == npos);
  check_has_all(status, {"A new.txt", "M notes.txt", "M src/main.c"});
  // Of notes.txt, only the rejected hunk is still a change: the accepted ones landed.
  std::string left = w.ws("diff --no-pager --color=never notes.txt").out;
  CHECK(left.find("+CHANGED 15") != npos);
  CHECK(left.find("+CHANGED 2\n") == npos);
  CHECK(left.find("+CHANGED 28") == npos);

  // What was rejected, to give back to the agent: the rejected hunk and file, nothing else.
  std::string patch = sh("cat " + q(rejected.string())).out;
  check_has_all(patch, {"+CHANGED 15", "+new"});
  CHECK(patch.find("CHANGED 2\n") == npos);
  CHECK(patch.find("main.c") == npos);
}

TEST_CASE("review: decisions survive Ctrl-C and come back - q asks first") {
  if (!tmux_or_skip()) {
    return;
  }
  TestRepo repo;
  MountedWorkspace w(repo);
  agent_work(repo, w);
  {
    ReviewTerminal t(w, repo, "", 120, 40, "NO_COLOR=1");
    t.wait_for("0/4 decided");
    t.keys("a", "1/4 decided");
    t.keys("C-c", "ws-exit=130");
    CHECK(t.screen().find("decisions are kept") != npos);
  }
  {
    ReviewTerminal t(w, repo, "");
    t.wait_for("1 decision restored");
    CHECK(t.screen().find("[+] D README.md") != npos);
    t.keys("q", "Leave without landing anything?");
    t.keys("n", "1/4 decided");
    t.keys("q", "Leave without landing anything?");
    t.keys("y", "ws-exit=0");
  }
  CHECK(sh("git status --porcelain", repo.path()).out.empty()); // nothing landed
  // The agent writes again: the old decisions are for another review and are not applied.
  REQUIRE(w.in_view("echo more >> new.txt").status == 0);
  ReviewTerminal t(w, repo, "");
  t.wait_for("0/4 decided");
  t.keys("q", "ws-exit=0");
}

TEST_CASE("review: refuses without a terminal and points to diff and apply") {
  TestRepo repo;
  MountedWorkspace w(repo);
  Run r = w.ws("review < /dev/null | cat");
  check_has_all(r.err, {"ws review needs a terminal", "ws diff"});
}

TEST_CASE(
    "review: the workspace changed before finishing - nothing lands - reload keeps decisions") {
  if (!tmux_or_skip()) {
    return;
  }
  TestRepo repo;
  MountedWorkspace w(repo);
  agent_work(repo, w);
  ReviewTerminal t(w, repo, "", 100, 30);
  t.wait_for("0/4 decided");
  t.keys("a", "1/4 decided");
  REQUIRE(w.in_view("echo more >> new.txt").status == 0);
  t.keys("F", "Finish:");
  t.keys("s", "The workspace changed");
  CHECK(sh("git status --porcelain", repo.path()).out.empty());
  t.keys("y", "1 decision restored");
  t.keys("F", "Finish:");
  t.keys("s", "ws-exit=0");
  CHECK(sh("git diff --cached --name-status", repo.path()).out == "D\tREADME.md\n");
}

TEST_CASE("review: follows a terminal resized while it runs") {
  if (!tmux_or_skip()) {
    return;
  }
  TestRepo repo;
  MountedWorkspace w(repo);
  agent_work(repo, w);
  ReviewTerminal t(w, repo, "", 80, 24);
  t.wait_for("ws review");
  auto rows = [&] {
    std::string s = t.screen();
    return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
  };
  CHECK(rows() == 24);
  t.resize(132, 40);
  // tmux has the new size at once; the review's redraw follows a moment later: wait for the
  // key line at the bottom of the 40, not only for 40 rows.
  auto redrawn = [&] {
    std::string s = t.screen();
    size_t last = s.rfind('\n', s.size() >= 2 ? s.size() - 2 : 0);
    return rows() == 40 && s.find("accept", last == npos ? 0 : last) != npos &&
           s.find("notes.txt") != npos;
  };
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!redrawn() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::string big = t.screen();
  CHECK(rows() == 40);
  // Redrawn for the new size: the key line is now the last of 40, and wider lines show more.
  std::vector<std::string> lines_of;
  for (size_t start = 0; start < big.size();) {
    size_t end = big.find('\n', start);
    lines_of.push_back(big.substr(start, end - start));
    start = end == std::string::npos ? big.size() : end + 1;
  }
  REQUIRE(lines_of.size() == 40);
  CHECK(lines_of.back().find("accept") != npos);
  CHECK(big.find("notes.txt") != npos);
  t.resize(80, 24);
  t.wait_for("ws review");
  t.keys("q", "ws-exit=0");
}
