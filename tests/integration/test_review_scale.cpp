// ws review of a large workspace (issue 13): it opens at once and keeps every key typed
// while it loads, a withheld directory is one row that expands, a decision on it covers
// every file, and finishing lands what it always did. The real binary in a real terminal.
//
// Loading is held open with WS_TEST_REVIEW_LOAD_GATE (the review waits for that file
// before it reads the workspace), so keys are typed during the load whatever the machine's
// speed: the tests assert what the keys did, never how long anything took.
#include "tests/integration/review_terminal.hpp"
#include "tests/integration/review_work.hpp"
#include "tests/support/text_checks.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

constexpr auto npos = std::string::npos;

/// A workspace with agent_work() and `packages` x 100 files under node_modules/, whose
/// review waits to load until open_gate() (WS_TEST_REVIEW_LOAD_GATE).
struct HeldLoad {
  explicit HeldLoad(int packages) : w(repo) { agent_work(repo, w, packages); }
  /// `ws review` in a terminal `cols` wide and 30 rows high, held before it loads.
  ReviewTerminal review(int cols) const {
    return ReviewTerminal(w, repo, "", cols, 30, "WS_TEST_REVIEW_LOAD_GATE=" + q(gate.string()));
  }
  void open_gate() const { std::ofstream(gate) << "go\n"; }
  void close_gate() const { fs::remove(gate); }

  TestRepo repo;
  MountedWorkspace w;
  TempDir gate_dir;
  fs::path gate = gate_dir.path() / "gate";
};

} // namespace

TEST_CASE("review scale: keys typed while it loads apply in order - a folded directory expands "
          "- finishing lands what it did before") {
  if (!tmux_or_skip()) {
    return;
  }
  HeldLoad held(10);
  const TestRepo& repo = held.repo;
  const MountedWorkspace& w = held.w;
  ReviewTerminal t = held.review(140);
  // The first screen is up while nothing is loaded yet; keys typed now are kept.
  t.wait_for("loading");
  // List order: README.md (D), new.txt, notes.txt, src/main.c. Accept README.md, reject
  // new.txt, into notes.txt's diff: accept, reject, accept its three hunks, back to the list.
  t.send("a");
  t.send("r");
  t.send("Tab");
  t.send("a r a");
  t.send("Tab");
  t.wait_for("7 keys waiting");
  CHECK(t.screen().find("decided") == npos); // still loading: nothing was applied yet
  held.open_gate();
  t.wait_for("3/4 decided");
  std::string s = t.screen();
  check_has_all(s, {"[+] D README.md", "[-] A new.txt", ">[~] M notes.txt"});
  // 1,000 withheld files: one row, with its count and reason.
  check_has_all(
      s, {"WITHHELD (1,001)", "[x] A node_modules/ +", "1,000 files", "under node_modules/"});

  t.keys("j", ">[ ] M src/main.c");
  t.keys("j", ">[x] A node_modules/ +");
  CHECK(t.screen().find("o: take them all anyway") != npos);
  // Enter lists its packages, each folded; a package lists its files (pkg0/lib/ holds them
  // all: the rows go straight there); z folds them again.
  t.keys("Enter", "node_modules/pkg9/ +");
  s = t.screen();
  check_has_all(s, {"node_modules/pkg0/ +", "100 files"});
  t.keys("j", ">[x] A node_modules/pkg0/ +");
  t.keys("Enter", "node_modules/pkg0/lib/f0.js");
  t.keys("z", ">[x] A node_modules/pkg0/ +");
  t.keys("z", ">[x] A node_modules/ +");
  CHECK(t.screen().find("node_modules/pkg0/ +") == npos);
  t.keys("j", ">[x] A tool.sh");
  t.keys("o", "Take WITHHELD 'tool.sh'");
  t.keys("y", "[+] A tool.sh");
  t.keys("F", "Finish:");
  t.keys("s", "ws-exit=0");
  s = t.screen();
  check_has_all(s, {"staged 3 files", "2 of 3 hunks"});

  // Exactly what test_review.cpp's same decisions land; the withheld directory stays out.
  CHECK(sh("git diff --cached --name-status", repo.path()).out ==
        "D\tREADME.md\nM\tnotes.txt\nA\ttool.sh\n");
  CHECK(sh("git show :notes.txt", repo.path()).out == lines(30, 2, 28));
  CHECK(repo.read("notes.txt") == lines(30, 2, 28));
  CHECK_FALSE(fs::exists(repo.path() / "node_modules"));
  CHECK_FALSE(fs::exists(repo.path() / "new.txt"));
  CHECK(sh("git diff --quiet", repo.path()).status == 0);
  std::string status = w.ws("status --verbose").out;
  check_has_all(status, {"node_modules/pkg3/lib/f7.js", "A new.txt"});
}

TEST_CASE("review scale: the list as last planned shows while the plan of now is made - moves act "
          "on it at once, other keys wait and act where the person was") {
  if (!tmux_or_skip()) {
    return;
  }
  HeldLoad held(10);
  // `ws status` keeps its plan; then the agent writes a .gitignore: that plan is out of
  // date, and since a .gitignore decides other paths' verdicts, it cannot be brought up to
  // date by name: the review plans in full (held by the gate) and shows the kept list
  // meanwhile.
  REQUIRE(held.w.ws("status").status == 0);
  REQUIRE(held.w.in_view("echo '*.log' > .gitignore").status == 0);
  ReviewTerminal t = held.review(140);
  t.wait_for("the list as last planned");
  std::string s = t.screen();
  check_has_all(s, {">[ ] D README.md", "[ ] A new.txt", "WITHHELD (1,001)", "1,000 files",
                    "deciding what may land"});
  CHECK(s.find(".gitignore") == npos); // not planned yet
  CHECK(s.find("decided") == npos);
  // Moving acts at once, on the list shown, while the plan of now is still held back.
  t.keys("j", ">[ ] A new.txt");
  t.keys("j", ">[ ] M notes.txt");
  t.keys("Tab", "(1 key waiting)"); // not a move: it waits, and so does every key after it
  t.keys("Tab", "2 keys waiting");
  t.keys("r", "3 keys waiting");
  t.keys("k", "4 keys waiting");
  CHECK(t.screen().find(">[ ] M notes.txt") != npos);
  held.open_gate();
  // The list of now: .gitignore came in above, and the cursor stayed on notes.txt, where
  // the waiting keys act: into its diff and back, reject it (on to src/main.c), up again.
  t.wait_for("1/5 decided"); // tool.sh and node_modules/ are withheld
  s = t.screen();
  check_has_all(s, {"[ ] A .gitignore", "[ ] A new.txt", ">[-] M notes.txt", "[ ] M src/main.c"});
  CHECK(s.find("as last planned") == npos);
  t.keys("q", "Leave without landing");
  t.keys("y", "ws-exit=0");
}

TEST_CASE("review scale: keys that waited for a row gone from the list of now act on no other") {
  if (!tmux_or_skip()) {
    return;
  }
  HeldLoad held(1);
  REQUIRE(held.w.ws("status").status == 0);
  // Since the kept plan: a .gitignore (a full plan, the kept list shown meanwhile).
  REQUIRE(held.w.in_view("rm new.txt && echo '*.log' > .gitignore").status == 0);
  ReviewTerminal t = held.review(120);
  t.wait_for("the list as last planned");
  t.keys("j", ">[ ] A new.txt");
  t.keys("r", "(1 key waiting)");
  held.open_gate();
  t.wait_for("1 key typed meanwhile not applied: the row you were on is not in the list of now");
  std::string s = t.screen();
  CHECK(s.find("new.txt") == npos);
  CHECK(s.find("[-]") == npos); // rejected nothing else in its place
  check_has_all(s, {"0/4 decided", "M notes.txt"});
  t.keys("q", "ws-exit=0");
}

TEST_CASE("review scale: q typed while it loads quits once loaded - Ctrl-C leaves at once") {
  if (!tmux_or_skip()) {
    return;
  }
  HeldLoad held(1);
  {
    ReviewTerminal t = held.review(100);
    t.wait_for("loading");
    t.keys("q", "1 key waiting");
    held.open_gate();
    t.wait_for("ws-exit=0");
    CHECK(t.screen().find("nothing landed") != npos);
  }
  held.close_gate();
  ReviewTerminal t = held.review(100);
  t.wait_for("loading");
  t.keys("a", "1 key waiting");
  t.keys("C-c", "ws-exit=130"); // while the load is still held
  CHECK(t.screen().find("interrupted; nothing landed") != npos);
  CHECK(sh("git status --porcelain", held.repo.path()).out.empty());
}

TEST_CASE("review scale: a withheld directory taken whole lands every file - rewritten, none") {
  if (!tmux_or_skip()) {
    return;
  }
  TestRepo repo;
  repo.write(".gitignore", "build/\n");
  repo.commit_all();
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("mkdir -p build/sub && echo a > build/a.txt && echo b > build/b.txt && "
                    "echo c > build/sub/c.txt")
              .status == 0);
  {
    ReviewTerminal t(w, repo, "", 100, 30);
    t.wait_for("ignored by the real repository"); // not the changes found: the list of now
    CHECK(t.screen().find("build/ +") != npos);
    t.keys("o", "Take WITHHELD 'build/' (3 files: ignored by the real repository)");
    t.keys("y", "[+] A build/ +");
    // The agent writes one of them after it was taken: shown now, it says so; nothing lands.
    REQUIRE(w.in_view("echo B > build/b.txt").status == 0);
    t.keys("Enter", "build/ -");
    t.keys("j", ">[+] A build/a.txt");
    t.keys("j", ">[+] A build/b.txt");
    t.wait_for("changed this file after the review opened");
    t.keys("F", "Finish:");
    t.keys("t", "The workspace changed");
    t.keys("n", "3/3 decided");
    CHECK_FALSE(fs::exists(repo.path() / "build"));
    t.keys("q", "Leave without landing");
    t.keys("y", "ws-exit=0");
  }
  ReviewTerminal t(w, repo, "", 100, 30);
  t.wait_for("build/ +");
  t.keys("o", "Take WITHHELD 'build/'");
  t.keys("y", "[+] A build/ +");
  t.keys("F", "Finish:");
  t.keys("t", "ws-exit=0");
  CHECK(t.screen().find("applied 3 files") != npos);
  CHECK(repo.read("build/a.txt") == "a\n");
  CHECK(repo.read("build/b.txt") == "B\n");
  CHECK(repo.read("build/sub/c.txt") == "c\n");
}

TEST_CASE("review scale: objects built by cc are one row src/*.o, a virtual environment one row "
          "with its symlinks leaving the project counted - each expands and folds") {
  if (!tmux_or_skip()) {
    return;
  }
  if (sh("command -v cc && python3 -m venv --help").status != 0) {
    MESSAGE("cc or python3's venv is not installed: skipped");
    return;
  }
  TestRepo repo;
  for (int i = 1; i <= 12; ++i) {
    repo.write("src/f" + std::to_string(i) + ".c",
               "int f" + std::to_string(i) + "(void) { return " + std::to_string(i) + "; }\n");
  }
  repo.write(".gitignore", "*.o\n.venv/\n");
  repo.commit_all();
  // Objects of sources removed long ago, in the person's tree: the agent cleans them up.
  repo.write("src/old1.o", "stale\n");
  repo.write("src/old2.o", "stale\n");
  MountedWorkspace w(repo);
  Run built = w.in_view("for i in $(seq 1 12); do cc -c -o src/f$i.o src/f$i.c || exit 1; done && "
                        "rm src/old1.o src/old2.o && echo 'int f1(void) { return 100; }' > "
                        "src/f1.c && python3 -m venv --without-pip .venv");
  REQUIRE_MESSAGE(built.status == 0, built.err);
  // What the environment holds, and how many of its symlinks leave the project.
  auto count = [&](const std::string& script) {
    return std::to_string(std::stoul(w.in_view(script).out));
  };
  std::string venv_files = count("find .venv ! -type d | wc -l");
  std::string leaving = count("n=0; for l in $(find .venv -type l); do "
                              "case $(readlink -m \"$l\") in \"$PWD\"/*) ;; "
                              "*) n=$((n+1)) ;; esac; done; echo $n");
  REQUIRE(leaving != "0");

  ReviewTerminal t(w, repo, "", 200, 30);
  t.wait_for("src/*.o +");
  std::string s = t.screen();
  // One row each, with the real counts and the folds' own reasons.
  check_has_all(s, {"[x] * src/*.o +", "14 files, 2 deleted", "ignored by the real repository",
                    "[x] A .venv/ +", venv_files + " files",
                    "under .venv/ (a Python virtual environment)"});
  CHECK(s.find("src/f2.o") == npos);
  CHECK(s.find(".venv/bin") == npos);
  CHECK(s.find("symlink to an absolute path") == npos);
  t.keys("j", ">[x] A .venv/ +");
  CHECK(t.screen().find("symlinks leaving the project: " + leaving) != npos);
  // Enter lists what is in it; z folds it again.
  t.keys("Enter", ".venv/bin/ +");
  t.keys("z", ">[x] A .venv/ +");
  CHECK(t.screen().find(".venv/bin/") == npos);
  t.keys("j", ">[x] * src/*.o +");
  CHECK(t.screen().find("14 files, 2 deleted") != npos);
  t.keys("Enter", "src/*.o -");
  check_has_all(t.screen(), {"A src/f12.o", "D src/old2.o"});
  t.keys("j", ">[x] A src/f1.o");
  t.keys("z", ">[x] * src/*.o +");
  CHECK(t.screen().find("src/f12.o") == npos);
  t.keys("q", "ws-exit=0");
}

TEST_CASE("review scale: with no kept plan, the changes found show at once, folded by directory - "
          "moves act on them, other keys wait and act where the person was") {
  if (!tmux_or_skip()) {
    return;
  }
  HeldLoad held(10); // no command planned this workspace yet
  ReviewTerminal t = held.review(140);
  t.wait_for("the changes found"); // held before the first verdict
  std::string s = t.screen();
  check_has_all(s, {"FOUND (1,005)", ">[ ] D README.md", "[ ] A new.txt", "[ ] A node_modules/ +",
                    "1,000 files", "[ ] M notes.txt", "[ ] A tool.sh"});
  CHECK(s.find("node_modules/pkg0") == npos);
  CHECK(s.find("decided") == npos);
  // Moving, and opening a directory, act at once; a decision waits for the verdicts.
  t.keys("j", ">[ ] A new.txt");
  t.keys("j", ">[ ] A node_modules/ +");
  t.keys("Enter", "node_modules/pkg9/ +");
  t.keys("k", ">[ ] A new.txt");
  t.keys("r", "(1 key waiting)");
  CHECK(t.screen().find("[-]") == npos);
  held.open_gate();
  // The list of now: new.txt rejected (the cursor on to the next file); node_modules/
  // withheld, still open.
  t.wait_for("1/4 decided");
  s = t.screen();
  check_has_all(s, {"[-] A new.txt", ">[ ] M notes.txt", "WITHHELD (1,001)",
                    "[x] A node_modules/ -", "node_modules/pkg0/ +"});
  CHECK(s.find("the changes found") == npos);
  CHECK(s.find("FOUND") == npos);
  t.keys("q", "Leave without landing");
  t.keys("y", "ws-exit=0");
}

TEST_CASE("review scale: one file written since the kept plan - the list of now is that plan "
          "brought up to date by name, not a plan of everything") {
  if (!tmux_or_skip()) {
    return;
  }
  HeldLoad held(10);
  REQUIRE(held.w.ws("status").status == 0);
  REQUIRE(held.w.in_view("echo late > late.txt").status == 0);
  // `ws -vv review` prints what loading did once the screen is gone.
  fs::path log = held.gate_dir.path() / "review.log";
  ReviewTerminal t(held.w, held.repo, "-vv 2>" + q(log.string()), 140, 30);
  t.wait_for("decided");
  check_has_all(t.screen(), {"[ ] A late.txt", "WITHHELD (1,001)", "[x] A node_modules/ +"});
  t.keys("q", "ws-exit=0");
  std::ifstream in(log);
  std::string said((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK_MESSAGE(said.find("plan cache: updated for 1 names") != npos, said);
  CHECK_MESSAGE(said.find("planned in full") == npos, said);
}

TEST_CASE("review scale: an expanded directory folds the files directly in its directories again "
          "(build/out/*.o), listed before the subdirectories sorting between them") {
  if (!tmux_or_skip()) {
    return;
  }
  TestRepo repo;
  repo.write(".gitignore", "build/\n");
  repo.commit_all();
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("mkdir -p build/out/sub build/logs && for i in 1 2 3 4 5 6; do "
                    "echo $i > build/out/a$i.o && echo $i > build/out/t$i.o; done && "
                    "echo x > build/out/sub/x.o && echo y > build/out/sub/y.o && "
                    "echo l > build/logs/a.txt && echo m > build/logs/b.txt")
              .status == 0);
  ReviewTerminal t(w, repo, "", 120, 30);
  t.wait_for("decided");
  t.keys("Enter", "build/out/ +");
  t.keys("j", ">[x] A build/logs/ +");
  t.keys("j", ">[x] A build/out/ +");
  t.keys("Enter", "build/out/*.o +");
  std::string s = t.screen();
  check_has_all(s, {"build/out/*.o +", "12 files", "build/out/sub/ +", "2 files"});
  CHECK(s.find("build/out/a1.o") == npos);
  CHECK(s.find("build/out/*.o +") < s.find("build/out/sub/ +"));
  t.keys("j", ">[x] A build/out/*.o +");
  t.keys("Enter", "build/out/t6.o");
  t.keys("j", ">[x] A build/out/a1.o");
  t.keys("z", ">[x] A build/out/*.o +");
  CHECK(t.screen().find("build/out/t6.o") == npos);
  t.keys("q", "ws-exit=0");
}
