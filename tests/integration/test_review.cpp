// ws review driven for real: the ws binary in a real terminal (tmux), keys sent with
// send-keys, the screen read with capture-pane, the real index and tree checked after.
#include "tests/support/harness.hpp"

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

/// "line 1\n" ... "line N\n", with lines `a` and `b` replaced by "CHANGED k".
std::string lines(int n, int a = 0, int b = 0, int c = 0) {
  std::string out;
  for (int i = 1; i <= n; ++i) {
    bool changed = i == a || i == b || i == c;
    out += (changed ? "CHANGED " : "line ") + std::to_string(i) + "\n";
  }
  return out;
}

/// A `ws review` running in a private tmux server of `cols` x `rows`; the server dies with
/// this object whatever happened.
class TmuxReview {
public:
  TmuxReview(const MountedWorkspace& w, const TestRepo& repo, const std::string& args,
             int cols = 80, int rows = 24, const std::string& env = "")
      : m_socket((m_dir.path() / "tmux.sock").string()) {
    std::string cmd = "cd " + q(repo.path().string()) +
                      " && XDG_DATA_HOME=" + q((w.state_root() / "data").string()) +
                      " XDG_RUNTIME_DIR=" + q((w.state_root() / "run").string()) + " " + env + " " +
                      q(ws_binary().string()) + " review " + args + "; echo ws-exit=$?; sleep 600";
    Run r = sh("tmux -S " + q(m_socket) + " -f /dev/null new-session -d -x " +
               std::to_string(cols) + " -y " + std::to_string(rows) + " " + q(cmd));
    REQUIRE_MESSAGE(r.status == 0, r.err);
  }
  ~TmuxReview() { sh("tmux -S " + q(m_socket) + " kill-server"); }
  TmuxReview(const TmuxReview&) = delete;
  TmuxReview& operator=(const TmuxReview&) = delete;

  std::string screen() const { return sh("tmux -S " + q(m_socket) + " capture-pane -p").out; }
  void resize(int cols, int rows) const {
    REQUIRE(sh("tmux -S " + q(m_socket) + " resize-window -x " + std::to_string(cols) + " -y " +
               std::to_string(rows))
                .status == 0);
  }

  /// Waits up to 10 s for `text` on the screen; fails the test with the screen if not.
  void wait_for(const std::string& text) const {
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    std::string s;
    while (std::chrono::steady_clock::now() < until) {
      s = screen();
      if (s.find(text) != npos) {
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    FAIL("'" << text << "' never appeared; the screen:\n" << s);
  }

  /// Sends keys (tmux key names) and waits for the screen to settle on `then`.
  void keys(const std::string& keys, const std::string& then) const {
    REQUIRE(sh("tmux -S " + q(m_socket) + " send-keys " + keys).status == 0);
    wait_for(then);
  }

private:
  TempDir m_dir;
  std::string m_socket;
};

bool have_tmux() {
  return sh("command -v tmux").status == 0;
}

/// The agent's work: three hunks in notes.txt, a flagged Makefile, a deletion, a new file,
/// an untouched-by-decision edit, and a withheld new executable.
void agent_work(const TestRepo& repo, const MountedWorkspace& w) {
  repo.write("notes.txt", lines(30));
  REQUIRE(sh("git add -A && git -c user.name=T -c user.email=t@e commit -qm notes", repo.path())
              .status == 0);
  Run r = w.in_view("printf '%s' " + q(lines(30, 2, 15, 28)) +
                    " > notes.txt"
                    " && rm README.md && echo new > new.txt && sed -i 's/return/  return/' "
                    "src/main.c && printf '#!/bin/sh\\necho hi\\n' > tool.sh && chmod +x tool.sh");
  REQUIRE_MESSAGE(r.status == 0, r.err);
}

} // namespace

TEST_CASE("review: accept and reject files and hunks - override a withheld file - stage") {
  if (!have_tmux()) {
    MESSAGE("tmux is not installed: skipped");
    return;
  }
  TestRepo repo;
  MountedWorkspace w(repo);
  agent_work(repo, w);
  fs::path rejected = repo.path().parent_path() / "rejected.patch";
  TmuxReview t(w, repo, "--rejected " + q(rejected.string()));
  t.wait_for("0/4 decided");
  std::string first = t.screen();
  CHECK(first.find("WITHHELD (1)") != npos);
  CHECK(first.find("new executable") != npos);

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
  CHECK(done.find("staged 3 files") != npos);
  CHECK(done.find("2 of 3 hunks") != npos);

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
  CHECK(status.find("A new.txt") != npos);
  CHECK(status.find("M notes.txt") != npos);
  CHECK(status.find("M src/main.c") != npos);
  // Of notes.txt, only the rejected hunk is still a change: the accepted ones landed.
  std::string left = w.ws("diff --no-pager --color=never notes.txt").out;
  CHECK(left.find("+CHANGED 15") != npos);
  CHECK(left.find("+CHANGED 2\n") == npos);
  CHECK(left.find("+CHANGED 28") == npos);

  // What was rejected, to give back to the agent: the rejected hunk and file, nothing else.
  std::string patch = sh("cat " + q(rejected.string())).out;
  CHECK(patch.find("+CHANGED 15") != npos);
  CHECK(patch.find("+new") != npos);
  CHECK(patch.find("CHANGED 2\n") == npos);
  CHECK(patch.find("main.c") == npos);
}

TEST_CASE("review: decisions survive Ctrl-C and come back - q asks first") {
  if (!have_tmux()) {
    MESSAGE("tmux is not installed: skipped");
    return;
  }
  TestRepo repo;
  MountedWorkspace w(repo);
  agent_work(repo, w);
  {
    TmuxReview t(w, repo, "", 120, 40, "NO_COLOR=1");
    t.wait_for("0/4 decided");
    t.keys("a", "1/4 decided");
    t.keys("C-c", "ws-exit=130");
    CHECK(t.screen().find("decisions are kept") != npos);
  }
  {
    TmuxReview t(w, repo, "");
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
  TmuxReview t(w, repo, "");
  t.wait_for("0/4 decided");
  t.keys("q", "ws-exit=0");
}

TEST_CASE("review: refuses without a terminal and points to diff and apply") {
  TestRepo repo;
  MountedWorkspace w(repo);
  Run r = w.ws("review < /dev/null | cat");
  CHECK(r.err.find("ws review needs a terminal") != npos);
  CHECK(r.err.find("ws diff") != npos);
}

TEST_CASE(
    "review: the workspace changed before finishing - nothing lands - reload keeps decisions") {
  if (!have_tmux()) {
    MESSAGE("tmux is not installed: skipped");
    return;
  }
  TestRepo repo;
  MountedWorkspace w(repo);
  agent_work(repo, w);
  TmuxReview t(w, repo, "", 100, 30);
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
  if (!have_tmux()) {
    MESSAGE("tmux is not installed: skipped");
    return;
  }
  TestRepo repo;
  MountedWorkspace w(repo);
  agent_work(repo, w);
  TmuxReview t(w, repo, "", 80, 24);
  t.wait_for("ws review");
  auto rows = [&] {
    std::string s = t.screen();
    return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
  };
  CHECK(rows() == 24);
  t.resize(132, 40);
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (rows() != 40 && std::chrono::steady_clock::now() < until) {
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
