// Who the journal names: a process by its command, not the thread that asked (runtimes name
// their workers "tokio-rt-worker", "Bun Pool 0"); and the process behind a shared mapping's
// pages, which the kernel writes back naming no one (docs/filesystem.md, "Journal").
#include "tests/integration/run_support.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace ws::test;

namespace {

constexpr auto npos = std::string::npos;

/// One line per entry of `ws log --json` for `path`: "op pid comm tid thread writeback session".
std::string entries_of(const MountedWorkspace& w, const std::string& path) {
  static const std::string k_parse =
      "import json, sys\n"
      "for e in json.load(sys.stdin):\n"
      "    if e['path'] == sys.argv[1]:\n"
      "        print(e['op'], e['pid'], e['comm'], e.get('tid', '-'), e.get('thread', '-'),\n"
      "              e.get('writeback', '-'), e.get('session', '-'), sep='|')\n";
  Run r = w.ws("log --json | " + py() + " -c " + q(k_parse) + " " + q(path));
  REQUIRE_MESSAGE(r.status == 0, r.err);
  return r.out;
}

} // namespace

TEST_CASE("journal: a write is named by its process's command, the thread stays in --json") {
  TestRepo repo;
  MountedWorkspace w(repo);
  // The main thread is "agent-main"; a worker thread named like Bun's writes the file.
  static const std::string k_threads =
      "import ctypes, os, threading\n"
      "libc = ctypes.CDLL(None)\n"
      "libc.prctl(15, b'agent-main', 0, 0, 0)\n"
      "def work():\n"
      "    libc.prctl(15, b'Bun Pool 0', 0, 0, 0)\n"
      "    open('pid', 'w').write('%d %d' % (os.getpid(), threading.get_native_id()))\n"
      "    with open('out.txt', 'w') as f:\n"
      "        f.write('from a worker')\n"
      "t = threading.Thread(target=work)\n"
      "t.start(); t.join()\n";
  REQUIRE(w.in_view(py() + " -c " + q(k_threads)).status == 0);
  std::string ids = w.in_view("cat pid").out;
  std::string pid = ids.substr(0, ids.find(' '));
  std::string tid = ids.substr(ids.find(' ') + 1);
  REQUIRE(pid != tid);
  std::string json = entries_of(w, "out.txt");
  CHECK(json == "create|" + pid + "|agent-main|" + tid + "|Bun Pool 0|-|-\n" + "write|" + pid +
                    "|agent-main|" + tid + "|Bun Pool 0|-|-\n");
  Run log = w.ws("log --path out.txt");
  CHECK(log.out.find(pid + " agent-main") != npos);
  CHECK(log.out.find("Bun Pool 0") == npos);
  Run verbose = w.ws("log --verbose --path out.txt");
  CHECK(verbose.out.find(pid + " agent-main [" + tid + " Bun Pool 0]") != npos);
}

TEST_CASE("journal: the kernel's writeback of a shared mapping names the process behind it") {
  TestRepo repo;
  MountedWorkspace w(repo);
  // msync() while mapped and open: the process holds the file open for writing.
  static const std::string k_msync = "import mmap, os\n"
                                     "fd = os.open('README.md', os.O_RDWR)\n"
                                     "m = mmap.mmap(fd, 0)\n"
                                     "m[0:2] = b'##'\n"
                                     "m.flush()\n"
                                     "m.close(); os.close(fd)\n"
                                     "print(os.getpid())\n";
  Run a = w.in_view(py() + " -c " + q(k_msync));
  REQUIRE_MESSAGE(a.status == 0, a.err);
  std::string pid_a = a.out.substr(0, a.out.find('\n'));
  CHECK(entries_of(w, "README.md") == "write|" + pid_a + "|python3|" + pid_a + "|python3|open|-\n");
  CHECK(w.ws("log --path README.md")
            .out.find("(mmap writeback of a file " + pid_a + " python3 held open for writing)") !=
        npos);

  // A mapping of its own (Python's mmap keeps a dup of the fd), the fd closed: the pages
  // written back by someone else's sync() while mapped. The process maps the file.
  static const std::string k_raw_map =
      "import ctypes, os, subprocess, sys, time\n"
      "libc = ctypes.CDLL(None, use_errno=True)\n"
      "libc.mmap.restype = ctypes.c_void_p\n"
      "libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,\n"
      "                      ctypes.c_int, ctypes.c_long]\n"
      "libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]\n"
      "path, create, sync_mapped = sys.argv[1], sys.argv[2] == 'create', sys.argv[3] == 'sync'\n"
      "fd = os.open(path, os.O_RDWR | (os.O_CREAT if create else 0), 0o644)\n"
      "if create:\n"
      "    os.ftruncate(fd, 4096)\n"
      "p = libc.mmap(None, 4096, 3, 1, fd, 0)  # PROT_READ|PROT_WRITE, MAP_SHARED\n"
      "os.close(fd)\n"
      "ctypes.memmove(p, b'//', 2)\n"
      "if sync_mapped:\n"
      "    subprocess.run(['sync'], check=True)\n"
      "    time.sleep(2)  # still mapped while the daemon looks (after its reply to sync)\n"
      "libc.munmap(p, 4096)\n"
      "print(os.getpid())\n";
  Run b = w.in_view(py() + " -c " + q(k_raw_map) + " src/main.c open sync");
  REQUIRE_MESSAGE(b.status == 0, b.err);
  std::string pid_b = b.out.substr(0, b.out.find('\n'));
  CHECK(entries_of(w, "src/main.c") ==
        "write|" + pid_b + "|python3|" + pid_b + "|python3|mapped|-\n");
  CHECK(w.ws("log --path src/main.c")
            .out.find("(mmap writeback of a file mapped by " + pid_b + " python3)") != npos);

  // Created, sized, mapped, written, unmapped, and gone before anything wrote its pages back
  // (no close came after the pages were dirtied; sync does it): named as the file's last
  // writer, and said so.
  Run c = w.in_view(py() + " -c " + q(k_raw_map) + " made.bin create later && sync");
  REQUIRE_MESSAGE(c.status == 0, c.err);
  std::string pid_c = c.out.substr(0, c.out.find('\n'));
  CHECK(entries_of(w, "made.bin") == "create|" + pid_c + "|python3|" + pid_c + "|python3|-|-\n" +
                                         "truncate|" + pid_c + "|python3|" + pid_c +
                                         "|python3|-|-\n" + "write|" + pid_c + "|python3|" + pid_c +
                                         "|python3|last-writer|-\n");
  CHECK(w.ws("log --path made.bin")
            .out.find("(mmap writeback, the kernel names no process; " + pid_c +
                      " python3 wrote the file last)") != npos);
  CHECK(w.in_view("head -c 2 made.bin").out == "//");
}

TEST_CASE("journal: a session's mmap writeback is the session's") {
  TestRepo repo;
  MountedWorkspace w(repo);
  Run r = w.ws("run -- " + py() + " -c " +
               q("import mmap, os\n"
                 "open('session.txt', 'w').write(os.environ['WS_SESSION'])\n"
                 "fd = os.open('README.md', os.O_RDWR)\n"
                 "m = mmap.mmap(fd, 0)\n"
                 "m[0:2] = b'##'\n"
                 "m.flush()\n"));
  REQUIRE_MESSAGE(r.status == 0, r.err);
  std::string id = w.in_view("cat session.txt").out;
  REQUIRE(id.find("default-") == 0);
  std::string entries = entries_of(w, "README.md");
  CHECK_MESSAGE(entries.find("|python3|open|" + id + "\n") != npos, entries);
  CHECK(w.ws("log --path README.md").out.find("(session " + id + ")") != npos);
}
