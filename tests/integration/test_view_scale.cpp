// The daemon's resources stay bounded by what the kernel holds, not by what the agent did:
// 50,000 new files after a copy-up (an `npm install` after any edit) cost no fd each.
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

constexpr int k_files = 50'000;
/// What the daemon may hold above its start: directory fds, sqlite, inotify, kernel-held
/// nodes. A leak of one fd per file is 50 times this.
constexpr int k_bound = 1'000;

/// A python3 script run in the view that makes `k_files` files in `dir` with `body` (a
/// python statement using `p`, the path, and `i`) and prints how many failed and the first error.
std::string make_files(const std::string& dir, const std::string& body) {
  return "python3 - <<'EOF'\n"
         "import os\n"
         "os.makedirs(" +
         q(dir) +
         ", exist_ok=True)\n"
         "bad = 0\n"
         "first = ''\n"
         "for i in range(" +
         std::to_string(k_files) +
         "):\n"
         "    p = '" +
         dir +
         "/f%d.js' % i\n"
         "    try:\n"
         "        " +
         body +
         "\n"
         "    except OSError as e:\n"
         "        bad += 1\n"
         "        first = first or str(e)\n"
         "print(bad, first)\n"
         "EOF\n";
}

/// Edits a real-tree file (its first copy-up and the first open the kernel sends), then
/// runs `body` for `k_files` new files; every one must succeed, and the daemon's fds stay
/// bounded.
void check_bounded(const std::string& dir, const std::string& body) {
  TestRepo repo;
  MountedWorkspace w(repo);
  int pid = w.daemon_pid();
  REQUIRE(pid > 0);
  REQUIRE(w.in_view("cat README.md > /dev/null && echo edit >> src/main.c").status == 0);
  int start = open_fds(pid);
  Run r = w.in_view(make_files(dir, body));
  REQUIRE(r.status == 0);
  CHECK(r.out == "0 \n");
  int after = open_fds(pid);
  INFO("daemon fds: " << start << " at the start, " << after << " after " << k_files << " files");
  CHECK(after < start + k_bound);
  // The view still takes new files, and shows what was written.
  CHECK(w.in_view("echo last > last.txt && cat last.txt").out == "last\n");
}

} // namespace

TEST_CASE("view scale: 50000 files created after a copy-up cost no daemon fd each") {
  check_bounded("node_modules/pkg",
                "with open(p, 'w') as f: f.write('module.exports = %d\\n' % i)");
}

TEST_CASE("view scale: 50000 files written then renamed cost no daemon fd each") {
  check_bounded("build/out", "with open(p + '.tmp', 'w') as f: f.write('x' * (i % 100))\n"
                             "        os.rename(p + '.tmp', p)");
}

TEST_CASE("view scale: 50000 files unlinked while open cost no daemon fd each") {
  check_bounded("tmp/scratch", "f = open(p, 'w'); f.write('scratch'); os.unlink(p); "
                               "f.write('more'); f.close()");
}

TEST_CASE("view scale: a file created read-only stays writable through its open fd") {
  // git writes loose objects this way (mode 0444, O_WRONLY|O_CREAT|O_EXCL): the write must
  // reach the file although its mode lets nobody open it for writing later.
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("echo edit >> src/main.c").status == 0);
  Run r = w.in_view("python3 - <<'EOF'\n"
                    "import os\n"
                    "fd = os.open('ro.bin', os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)\n"
                    "os.write(fd, b'object')\n"
                    "os.close(fd)\n"
                    "print(open('ro.bin').read(), oct(os.stat('ro.bin').st_mode & 0o777))\n"
                    "EOF\n");
  CHECK(r.status == 0);
  CHECK(r.out == "object 0o444\n");
  CHECK(w.in_view("git add -A && git -c user.name=A -c user.email=a@example.com commit -q -m x && "
                  "git fsck --no-dangling 2>&1 && git log --format=%s -1")
            .out == "x\n");
}
