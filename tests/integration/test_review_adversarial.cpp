// ws review against an agent that tries to hide code from the reviewer or to exhaust the
// person's machine (issue 10): the real binary in a real terminal (tmux), the screen read
// with capture-pane. WS_TEST_REVIEW_BINARY runs the review with another ws binary (an old
// build), to see these attacks succeed against it.
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

using namespace ws::test;
namespace fs = std::filesystem;
using std::chrono::steady_clock;

namespace {

constexpr auto npos = std::string::npos;

std::string review_binary() {
  const char* other = std::getenv("WS_TEST_REVIEW_BINARY");
  return other && *other ? other : ws_binary().string();
}

/// A `ws review` in a private tmux server of `cols` x `rows`, in a UTF-8 locale; the server
/// dies with this object whatever happened.
class Terminal {
public:
  Terminal(const MountedWorkspace& w, const TestRepo& repo, int cols, int rows)
      : m_socket((m_dir.path() / "tmux.sock").string()) {
    std::string cmd = "cd " + q(repo.path().string()) +
                      " && XDG_DATA_HOME=" + q((w.state_root() / "data").string()) +
                      " XDG_RUNTIME_DIR=" + q((w.state_root() / "run").string()) +
                      " LC_ALL=C.UTF-8 " + q(review_binary()) +
                      " review; echo ws-exit=$?; sleep 600";
    Run r = sh("tmux -u -S " + q(m_socket) + " -f /dev/null new-session -d -x " +
               std::to_string(cols) + " -y " + std::to_string(rows) + " " + q(cmd));
    REQUIRE_MESSAGE(r.status == 0, r.err);
  }
  ~Terminal() { sh("tmux -S " + q(m_socket) + " kill-server"); }
  Terminal(const Terminal&) = delete;
  Terminal& operator=(const Terminal&) = delete;

  std::string screen() const { return sh("tmux -S " + q(m_socket) + " capture-pane -p").out; }

  /// Waits up to `limit` for `text` on the screen; fails the test with the screen if not.
  void wait_for(const std::string& text, std::chrono::seconds limit = std::chrono::seconds(10)) {
    auto until = steady_clock::now() + limit;
    std::string s;
    while (steady_clock::now() < until) {
      s = screen();
      if (s.find(text) != npos) {
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    FAIL("'" << text << "' never appeared; the screen:\n" << s);
  }

  void keys(const std::string& keys, const std::string& then) {
    REQUIRE(sh("tmux -S " + q(m_socket) + " send-keys " + keys).status == 0);
    wait_for(then);
  }

  /// The pid of the review process (the pane's shell's child).
  std::string review_pid() const {
    std::string shell = sh("tmux -S " + q(m_socket) + " display-message -p '#{pane_pid}'").out;
    while (!shell.empty() && shell.back() == '\n') {
      shell.pop_back();
    }
    std::string pid = sh("ps -o pid= --ppid " + shell + " | head -n 1 | tr -d ' \\n'").out;
    REQUIRE_MESSAGE(!pid.empty(), "no process under the pane's shell " << shell);
    return pid;
  }

private:
  TempDir m_dir;
  std::string m_socket;
};

bool have_tmux() {
  return sh("command -v tmux").status == 0;
}

/// A field of /proc/PID/status, in kB.
long status_kb(const std::string& pid, const std::string& field) {
  std::ifstream in("/proc/" + pid + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) {
      return std::strtol(line.c_str() + field.size() + 1, nullptr, 10);
    }
  }
  return -1;
}

const std::string k_payload = "; __import__(\"os\").system(\"id\")";

} // namespace

TEST_CASE("review adversarial: a 2 GB sparse withheld file is described - never read") {
  if (!have_tmux()) {
    MESSAGE("tmux is not installed: skipped");
    return;
  }
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("truncate -s 2G big.bin && echo hi > small.txt").status == 0);
  auto start = steady_clock::now();
  Terminal t(w, repo, 120, 30);
  // The old review read the file, diffed it and built its binary patch: minutes, 8.7 GB.
  t.wait_for("WITHHELD (1)", std::chrono::seconds(20));
  MESSAGE(
      "review opened in "
      << std::chrono::duration_cast<std::chrono::milliseconds>(steady_clock::now() - start).count()
      << " ms");
  // The review's peak memory says whether it ever held the file.
  long peak = status_kb(t.review_pid(), "VmHWM");
  MESSAGE("review's peak RSS: " << peak << " kB");
  CHECK(peak > 0);
  CHECK(peak < 200 * 1024);
  t.keys("j", ">[x] A big.bin");
  std::string s = t.screen();
  CHECK(s.find("binary content") != npos); // the policy's reason
  CHECK(s.find("binary file, 2.0 GiB: not shown") != npos);
  t.keys("q", "ws-exit=0");
}

TEST_CASE("review adversarial: a withheld over-size file taken anyway lands as it was described") {
  if (!have_tmux()) {
    MESSAGE("tmux is not installed: skipped");
    return;
  }
  TestRepo repo;
  MountedWorkspace w(repo);
  // 12 MiB of text: withheld for its size (ws.maxFileSize), described rather than diffed.
  REQUIRE(w.in_view("yes 'all work and no play' | head -c 12582912 > huge.txt").status == 0);
  std::string expected = w.in_view("sha256sum huge.txt").out;
  Terminal t(w, repo, 120, 30);
  t.wait_for("WITHHELD (1)");
  t.keys("Down", "text file, 12.0 MiB: not shown");
  t.keys("o", "Take WITHHELD");
  t.keys("y", "[+] A huge.txt");
  t.keys("F", "Finish:");
  t.keys("t", "ws-exit=0");
  CHECK(sh("sha256sum huge.txt", repo.path()).out == expected);
}

TEST_CASE("review adversarial: a withheld file rewritten after it was described lands nothing") {
  if (!have_tmux()) {
    MESSAGE("tmux is not installed: skipped");
    return;
  }
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("head -c 4096 /dev/zero > blob.bin").status == 0);
  Terminal t(w, repo, 120, 30);
  t.wait_for("WITHHELD (1)");
  t.keys("Down", "binary file, 4.0 KiB: not shown");
  t.keys("o", "Take WITHHELD");
  t.keys("y", "[+] A blob.bin");
  // Same size, other bytes: only the file's identity (mtime, ctime) tells.
  REQUIRE(w.in_view("printf 'MZ' | dd of=blob.bin bs=1 seek=100 conv=notrunc 2>/dev/null").status ==
          0);
  t.keys("F", "Finish:");
  t.keys("t", "The workspace changed");
  t.keys("n", "1/1 decided");
  CHECK_FALSE(fs::exists(repo.path() / "blob.bin"));
  t.keys("q", "Leave without landing");
  t.keys("y", "ws-exit=0");
}

TEST_CASE(
    "review adversarial: a long line wraps - w cuts it with markers - l scrolls to the rest") {
  if (!have_tmux()) {
    MESSAGE("tmux is not installed: skipped");
    return;
  }
  TestRepo repo;
  MountedWorkspace w(repo);
  std::string line = "x = compute(a, b)" + std::string(400, ' ') + k_payload;
  repo.write("setup.py", "import os\n");
  repo.commit_all();
  REQUIRE(w.in_view("printf '%s\\n' " + q(line) + " >> setup.py").status == 0);
  Terminal t(w, repo, 100, 40);
  t.wait_for("M setup.py");
  // Wrapped (the default): the payload is on screen, every continued row ends with '\'.
  t.wait_for(k_payload);
  size_t continued = 0;
  std::string s = t.screen();
  for (size_t at = 0; (at = s.find("\\\n", at)) != npos; ++at) {
    ++continued;
  }
  CHECK(continued >= 6);
  // Cut: the row ends with '>' and the payload is off screen until scrolled to.
  t.keys("w", "h/l scroll sideways");
  s = t.screen();
  CHECK(s.find("__import__") == npos);
  CHECK(s.find(">\n") != npos);
  bool seen = false;
  for (int i = 0; i < 20 && !seen; ++i) {
    REQUIRE(sh("sleep 0.1").status == 0);
    t.keys("l", "+<");
    seen = t.screen().find(k_payload) != npos;
  }
  CHECK(seen);
  t.keys("q", "ws-exit=0");
}

TEST_CASE("review adversarial: bidi - zero-width - escapes - a newline in a name are visible") {
  if (!have_tmux()) {
    MESSAGE("tmux is not installed: skipped");
    return;
  }
  TestRepo repo;
  MountedWorkspace w(repo);
  // Trojan Source: "if (isAdmin)" sits inside what looks like a comment's end.
  std::string trojan = "/*\u202e } \u2066if (isAdmin)\u2069 \u2066 begin admins only */";
  std::string zw = "acc\u200bess = True";
  std::string esc = "ok\033]52;c;Y3VybCB4IHwgc2g=\007\r# WITHHELD: nothing";
  REQUIRE(w.in_view("printf '%s\\n%s\\n%s\\n' " + q(trojan) + " " + q(zw) + " " + q(esc) +
                    " > 'read\nme.c'")
              .status == 0);
  Terminal t(w, repo, 120, 30);
  t.wait_for("read^Jme.c");
  std::string s = t.screen();
  CHECK(s.find("A  read^Jme.c") != npos); // the diff's title
  CHECK(s.find("/*<U+202E> } <U+2066>if (isAdmin)<U+2069> <U+2066> begin") != npos);
  CHECK(s.find("acc<U+200B>ess = True") != npos);
  CHECK(s.find("ok^[]52;c;Y3VybCB4IHwgc2g=^G^M# WITHHELD: nothing") != npos);
  CHECK(s.find("\u202e") == npos);
  CHECK(s.find("\u200b") == npos);
  t.keys("q", "ws-exit=0");
}
