// ws review against an agent that tries to hide code from the reviewer or to exhaust the
// person's machine (issue 10): the real binary in a real terminal (tmux), the screen read
// with capture-pane. WS_TEST_REVIEW_BINARY runs the review with another ws binary (an old
// build), to see these attacks succeed against it.
#include "tests/integration/review_terminal.hpp"
#include "tests/support/harness.hpp"
#include "tests/support/text_checks.hpp"

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

/// A `ws review` (of review_binary()) in a private tmux server of `cols` x `rows`, in a
/// UTF-8 locale.
ReviewTerminal terminal(const MountedWorkspace& w, const TestRepo& repo, int cols, int rows) {
  return ReviewTerminal(w, repo, "", cols, rows, "LC_ALL=C.UTF-8", review_binary());
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
  if (!tmux_or_skip()) {
    return;
  }
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("truncate -s 2G big.bin && echo hi > small.txt").status == 0);
  auto start = steady_clock::now();
  ReviewTerminal t = terminal(w, repo, 120, 30);
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
  if (!tmux_or_skip()) {
    return;
  }
  TestRepo repo;
  MountedWorkspace w(repo);
  // 12 MiB of text: withheld for its size (ws.maxFileSize), described rather than diffed.
  REQUIRE(w.in_view("yes 'all work and no play' | head -c 12582912 > huge.txt").status == 0);
  std::string expected = w.in_view("sha256sum huge.txt").out;
  ReviewTerminal t = terminal(w, repo, 120, 30);
  t.wait_for("WITHHELD (1)");
  t.keys("Down", "text file, 12.0 MiB: not shown");
  t.keys("o", "Take WITHHELD");
  t.keys("y", "[+] A huge.txt");
  t.keys("F", "Finish:");
  t.keys("t", "ws-exit=0");
  CHECK(sh("sha256sum huge.txt", repo.path()).out == expected);
}

TEST_CASE("review adversarial: a withheld file rewritten after it was described lands nothing") {
  if (!tmux_or_skip()) {
    return;
  }
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("head -c 4096 /dev/zero > blob.bin").status == 0);
  ReviewTerminal t = terminal(w, repo, 120, 30);
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
  if (!tmux_or_skip()) {
    return;
  }
  TestRepo repo;
  MountedWorkspace w(repo);
  std::string line = "x = compute(a, b)" + std::string(400, ' ') + k_payload;
  repo.write("setup.py", "import os\n");
  repo.commit_all();
  REQUIRE(w.in_view("printf '%s\\n' " + q(line) + " >> setup.py").status == 0);
  ReviewTerminal t = terminal(w, repo, 100, 40);
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
  if (!tmux_or_skip()) {
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
  ReviewTerminal t = terminal(w, repo, 120, 30);
  t.wait_for("acc<U+200B>ess = True"); // the diff: the list of now, not the changes found
  std::string s = t.screen();
  CHECK(s.find("A  read^Jme.c") != npos); // the diff's title
  check_has_all(s, {"/*<U+202E> } <U+2066>if (isAdmin)<U+2069> <U+2066> begin",
                    "acc<U+200B>ess = True", "ok^[]52;c;Y3VybCB4IHwgc2g=^G^M# WITHHELD: nothing"});
  CHECK(s.find("\u202e") == npos);
  CHECK(s.find("\u200b") == npos);
  t.keys("q", "ws-exit=0");
}
