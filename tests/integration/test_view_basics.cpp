// The view shows the real tree, and every write lands in the workspace, never in the tree.
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

using namespace ws::test;

TEST_CASE("view: reads show the real tree - writes + deletes and renames stay in the workspace") {
  TestRepo repo;
  std::string before = repo.snapshot();
  MountedWorkspace w(repo);

  CHECK(w.in_view("cat README.md").out == repo.read("README.md"));
  CHECK(w.in_view("readlink link-to-readme").out == "README.md\n");
  CHECK(w.in_view("test -x scripts/run.sh && ./scripts/run.sh").out == "run\n");

  REQUIRE(
      w.in_view(
           "echo more >> README.md && rm src/util.h && mv docs/guide/intro.txt docs/intro.txt && "
           "echo new > new.txt && mkdir -p a/b && echo deep > a/b/c.txt")
          .status == 0);
  CHECK(w.in_view("cat README.md").out == repo.read("README.md") + "more\n");
  CHECK(w.in_view("test ! -e src/util.h").status == 0);
  CHECK(w.in_view("ls docs/guide").out == "");
  CHECK(w.in_view("cat docs/intro.txt a/b/c.txt").out == "intro\ndeep\n");

  CHECK(repo.snapshot() == before);

  Run st = w.ws("status");
  REQUIRE(st.status == 0);
  CHECK(st.out == "M README.md\n" // byte order, as git sorts
                  "A a/b/c.txt\n"
                  "R docs/guide/intro.txt -> docs/intro.txt\n"
                  "A new.txt\n"
                  "D src/util.h\n");
}

TEST_CASE("view: git status + add and commit inside the view") {
  TestRepo repo;
  std::string before = repo.snapshot();
  MountedWorkspace w(repo);
  CHECK(w.in_view("git status --porcelain").out == "");
  REQUIRE(w.in_view(
               "echo 'int sub(int a, int b) { return a - b; }' >> src/util.c && echo x > added.txt")
              .status == 0);
  Run st = w.in_view("git status --porcelain");
  CHECK(st.out == " M src/util.c\n?? added.txt\n");
  Run commit = w.in_view(
      "git add -A && git -c user.name=Agent -c user.email=agent@example.com commit -q -m work && "
      "git log --format=%s");
  CHECK(commit.status == 0);
  CHECK(commit.out == "work\ninit\n");
  CHECK(w.in_view("git status --porcelain").out == "");
  CHECK(repo.snapshot() == before);
  CHECK(sh("git log --format=%s", repo.path()).out == "init\n");
}

TEST_CASE("view: build a C program with make and cc") {
  TestRepo repo;
  std::string before = repo.snapshot();
  MountedWorkspace w(repo);
  Run build = w.in_view("make -s && ./prog");
  CHECK(build.status == 0);
  CHECK(build.out == "5\n");
  // An incremental rebuild after an edit sees the edit.
  REQUIRE(w.in_view("sleep 0.01; sed -i 's/a + b/a + b + 1/' src/util.c").status == 0);
  CHECK(w.in_view("make -s && ./prog").out == "6\n");
  CHECK(repo.snapshot() == before);
}

TEST_CASE("view: python3 -m compileall writes __pycache__ in the view only") {
  TestRepo repo;
  repo.write("pkg/mod.py", "def f():\n    return 42\n");
  sh("git add -A && git -c user.name=T -c user.email=t@e commit -qm py", repo.path());
  std::string before = repo.snapshot();
  MountedWorkspace w(repo);
  Run r =
      w.in_view("python3 -m compileall -q pkg && ls pkg/__pycache__ | grep -c 'mod.*pyc' && "
                "python3 -c 'import sys; sys.path.insert(0, \"pkg\"); import mod; print(mod.f())'");
  CHECK(r.status == 0);
  CHECK(r.out == "1\n42\n");
  CHECK(repo.snapshot() == before);
}

TEST_CASE("view: untar 5000 small files then rm -rf them") {
  TestRepo repo;
  TempDir tmp;
  // An npm-like tree: 50 packages x 100 files.
  REQUIRE(sh("mkdir -p src && cd src && for p in $(seq 50); do mkdir -p pkg$p/lib; "
             "for f in $(seq 100); do echo \"module $p $f\" > pkg$p/lib/f$f.js; done; done && "
             "tar cf ../t.tar . ",
             tmp.path())
              .status == 0);
  std::string before = repo.snapshot();
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("mkdir node_modules && tar xf " + q((tmp.path() / "t.tar").string()) +
                    " -C node_modules")
              .status == 0);
  CHECK(w.in_view("find node_modules -type f | wc -l").out == "5000\n");
  CHECK(w.in_view("cat node_modules/pkg7/lib/f42.js").out == "module 7 42\n");
  REQUIRE(w.in_view("rm -rf node_modules").status == 0);
  CHECK(w.in_view("test ! -e node_modules").status == 0);
  CHECK(w.ws("status").out == "");
  CHECK(repo.snapshot() == before);
}

TEST_CASE("view: editor-style save (write a temp file + rename it over the original)") {
  TestRepo repo;
  std::string before = repo.snapshot();
  MountedWorkspace w(repo);
  REQUIRE(
      w.in_view("printf 'new body\\n' > src/.util.c.swp && mv src/.util.c.swp src/util.c").status ==
      0);
  CHECK(w.in_view("cat src/util.c").out == "new body\n");
  CHECK(w.in_view("ls -a src").out == ".\n..\nmain.c\nutil.c\nutil.h\n");
  CHECK(w.ws("status").out == "M src/util.c\n");
  CHECK(repo.snapshot() == before);
}

TEST_CASE("view: rename a whole lower directory + then use it") {
  TestRepo repo;
  std::string before = repo.snapshot();
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("mv src source && mv docs/guide docs/manual").status == 0);
  CHECK(w.in_view("ls source").out == "main.c\nutil.c\nutil.h\n");
  CHECK(w.in_view("test ! -e src && cat docs/manual/intro.txt").out == "intro\n");
  CHECK(w.in_view("echo more >> source/util.h && cat source/util.h").out ==
        "int add(int a, int b);\nmore\n");
  // A new directory where the old one stood shows nothing of it.
  REQUIRE(w.in_view("mkdir src && touch src/only").status == 0);
  CHECK(w.in_view("ls src").out == "only\n");
  Run st = w.ws("status");
  CHECK(st.out == "R docs/guide/intro.txt -> docs/manual/intro.txt\n"
                  "R src/main.c -> source/main.c\n"
                  "R src/util.c -> source/util.c\n"
                  "R src/util.h -> source/util.h\n"
                  "A src/only\n");
  CHECK(repo.snapshot() == before);
}

TEST_CASE("view: rename a lower directory whose subdirectories the kernel already knows") {
  TestRepo repo;
  MountedWorkspace w(repo);
  // Look everything up first, so the renamed tree has live nodes at every level.
  REQUIRE(w.in_view("find docs src -exec stat {} + > /dev/null").status == 0);
  Run r = w.in_view(
      "timeout -s KILL 10 mv docs manual && find manual -type f && cat manual/guide/intro.txt");
  CHECK(r.status == 0);
  CHECK(r.out == "manual/guide/intro.txt\nintro\n");
  CHECK(w.in_view("echo x >> manual/guide/intro.txt && cat manual/guide/intro.txt").out ==
        "intro\nx\n");
  CHECK(repo.read("docs/guide/intro.txt") == "intro\n");
}

TEST_CASE(
    "view: a deleted lower directory stays deleted - recreated + it shows nothing of the old one") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("rm -rf docs").status == 0);
  CHECK(w.in_view("ls").out == "Makefile\nREADME.md\nlink-to-readme\nscripts\nsrc\n");
  REQUIRE(w.in_view("mkdir docs").status == 0);
  CHECK(w.in_view("ls -A docs").out == "");
  CHECK(w.ws("status").out == "D docs/guide/intro.txt\n");
  // It survives a remount (the daemon's memory is not the truth).
  w.unmount();
  w.mount();
  CHECK(w.in_view("ls -A docs").out == "");
  CHECK(w.in_view("test -e docs/guide").status != 0);
}

TEST_CASE("view: ws status survives directories nested deeper than its stack") {
  TestRepo repo;
  MountedWorkspace w(repo);
  Run made = w.in_view("python3 -c 'import os\n"
                       "for _ in range(5000):\n"
                       "    os.mkdir(\"d\"); os.chdir(\"d\")\n"
                       "open(\"bottom.txt\", \"w\").write(\"x\")'");
  REQUIRE(made.status == 0);
  // A 512 KiB stack: a recursive walk of 5,000 levels would overflow it.
  Run st = sh("ulimit -s 512 && XDG_DATA_HOME=" + q((w.state_root() / "data").string()) +
                  " XDG_RUNTIME_DIR=" + q((w.state_root() / "run").string()) + " " +
                  q(ws_binary().string()) + " status",
              repo.path());
  CHECK(st.status == 0);
  CHECK(st.out.size() > 10000);
  CHECK(st.out.rfind("/d/bottom.txt\n") == st.out.size() - 14);
}

TEST_CASE("view: copy-up remembers the base - its hash and its content - for the 3-way apply") {
  TestRepo repo;
  MountedWorkspace w(repo);
  std::string original = repo.read("src/util.c");
  REQUIRE(w.in_view("echo '// agent' >> src/util.c && rm README.md").status == 0);
  // meta.db names the base by its XXH3-128; bases/<hash> holds the content as it was.
  Run base =
      sh("python3 -c 'import sqlite3, sys\n"
         "db = sqlite3.connect(sys.argv[1])\n"
         "h = db.execute(\"select base_hash from paths where path = ?\", "
         "(b\"src/util.c\",)).fetchone()[0]\n"
         "sys.stdout.write(open(sys.argv[2] + \"/\" + h, \"rb\").read().decode())' " +
         q((w.state_dir() / "meta.db").string()) + " " + q((w.state_dir() / "bases").string()));
  CHECK(base.err == "");
  CHECK(base.out == original);
  CHECK(w.in_view("tail -n1 src/util.c").out == "// agent\n");
  // A deletion keeps the identity of what was deleted, to notice the person's later edits.
  Run deleted = sh("python3 -c 'import sqlite3, sys\n"
                   "print(sqlite3.connect(sys.argv[1]).execute(\"select whiteout, base_size from "
                   "paths where path = ?\", (b\"README.md\",)).fetchone())' " +
                   q((w.state_dir() / "meta.db").string()));
  CHECK(deleted.out == "(1, " + std::to_string(repo.read("README.md").size()) + ")\n");
}

TEST_CASE("view: unchanged content is not a change") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(
      w.in_view(
           "cp README.md /tmp/ws-readme-$$ && rm README.md && cp /tmp/ws-readme-$$ README.md && "
           "rm /tmp/ws-readme-$$ && cat src/util.h > u && cat u > src/util.h && rm u && "
           "touch src/main.c")
          .status == 0);
  CHECK(w.ws("status").out == "");
}

TEST_CASE("view: hard link to a lower file - inode numbers stable across copy-up") {
  TestRepo repo;
  MountedWorkspace w(repo);
  std::string ino_before = w.in_view("stat -c %i src/util.c").out;
  CHECK(ino_before == sh("stat -c %i src/util.c", repo.path()).out);
  REQUIRE(w.in_view("ln src/util.c util-link.c").status == 0);
  CHECK(w.in_view("stat -c %h src/util.c").out == "2\n");
  REQUIRE(w.in_view("echo '// x' >> util-link.c").status == 0);
  CHECK(w.in_view("tail -n1 src/util.c").out == "// x\n");
  CHECK(w.in_view("stat -c %i src/util.c").out == ino_before);
  CHECK(w.in_view("stat -c %i util-link.c").out == ino_before);
  CHECK(repo.read("src/util.c").find("// x") == std::string::npos);
}

TEST_CASE("view: symlinks + FIFOs and sockets - device nodes never land") {
  TestRepo repo;
  MountedWorkspace w(repo);
  CHECK(w.in_view("ln -s src/main.c lnk && readlink lnk && cat lnk | head -1").out ==
        "src/main.c\n#include \"util.h\"\n");
  CHECK(w.in_view("mkfifo fifo && test -p fifo").status == 0);
  CHECK(w.in_view("python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.bind(\"sock\")' "
                  "&& test -S sock")
            .status == 0);
  // Root may make a device node in the view (test_posix_gaps.cpp has the rules); none lands.
  w.in_view("mknod dev c 1 3");
  w.ws("apply");
  CHECK(repo.snapshot().find("fifo") == std::string::npos);
  CHECK(!lexists(repo.path() / "dev"));
}

TEST_CASE("view: chmod + utimens with nanoseconds + user xattrs + statfs + fsync") {
  TestRepo repo;
  MountedWorkspace w(repo);
  CHECK(w.in_view("chmod 600 README.md && stat -c %a README.md").out == "600\n");
  CHECK(sh("stat -c %a README.md", repo.path()).out == "644\n");
  CHECK(w.in_view("touch -d '2020-01-02 03:04:05.123456789' src/util.h && stat -c %y src/util.h")
            .out.find("2020-01-02 03:04:05.123456789") != std::string::npos);
  CHECK(w.in_view("setfattr -n user.note -v hello src/main.c && getfattr --only-values -n "
                  "user.note src/main.c")
            .out == "hello");
  CHECK(w.in_view("getfattr -d src/main.c | grep -c user.note").out == "1\n");
  // user.* on a symlink is refused as on ext4, and never lands on its target.
  Run on_link = w.in_view("setfattr -h -n user.x -v 1 link-to-readme");
  CHECK(on_link.status != 0);
  CHECK(on_link.err.find("Operation not permitted") != std::string::npos);
  CHECK(w.in_view("getfattr -n user.x README.md 2>&1").out.find("No such attribute") !=
        std::string::npos);
  CHECK(w.in_view("df . | tail -1 | wc -l").out == "1\n");
  CHECK(w.in_view("python3 -c 'import os; f = os.open(\"synced\", os.O_CREAT | os.O_WRONLY); "
                  "os.write(f, b\"x\"); "
                  "os.fsync(f); os.fdatasync(f); os.close(f)'")
            .status == 0);
  // Like git, status is about content, type and permissions; times and xattrs are journaled.
  // os.open's default mode is 0777: a new executable, which does not transfer by default.
  CHECK(w.ws("status").out == "M README.md\nA synced  (WITHHELD: new executable)\n");
  CHECK(w.ws("log").out.find("setxattr  src/main.c") != std::string::npos);
}

TEST_CASE(
    "view: O_EXCL lock files + O_APPEND + O_TRUNC + truncate + fallocate + 5 GiB sparse file") {
  TestRepo repo;
  MountedWorkspace w(repo);
  Run excl = w.in_view(
      "python3 -c 'import os\n"
      "fd = os.open(\"index.lock\", os.O_CREAT | os.O_EXCL | os.O_WRONLY)\n"
      "try:\n  os.open(\"index.lock\", os.O_CREAT | os.O_EXCL | os.O_WRONLY); print(\"no\")\n"
      "except FileExistsError: print(\"exists\")\n"
      "try:\n  os.open(\"README.md\", os.O_CREAT | os.O_EXCL | os.O_WRONLY); print(\"no\")\n"
      "except FileExistsError: print(\"exists\")'");
  CHECK(excl.out == "exists\nexists\n");
  CHECK(w.in_view("echo a > f && echo b >> f && cat f").out == "a\nb\n");
  CHECK(w.in_view("echo c > f && cat f").out == "c\n");
  CHECK(w.in_view("truncate -s 1 src/util.h && wc -c < src/util.h").out == "1\n");
  CHECK(w.in_view("fallocate -l 1M falloc && stat -c %s falloc").out == "1048576\n");
  Run sparse = w.in_view(
      "truncate -s 5G big && printf end | dd of=big bs=1 seek=5368709120 conv=notrunc 2>/dev/null "
      "&& stat -c %s big && tail -c 3 big && echo && du -k big | cut -f1");
  REQUIRE(sparse.status == 0);
  CHECK(sparse.out.rfind("5368709123\nend\n", 0) == 0);
  CHECK(std::stoll(sparse.out.substr(sparse.out.rfind('\n', sparse.out.size() - 2) + 1)) <
        1024); // still sparse
  CHECK(w.in_view("python3 -c 'import os; f=open(\"big\",\"rb\"); print(os.lseek(f.fileno(), 0, "
                  "os.SEEK_DATA))'")
            .out == "5368709120\n");
}

TEST_CASE("view: mmap writes + shared and private") {
  TestRepo repo;
  MountedWorkspace w(repo);
  Run r =
      w.in_view("python3 -c 'import mmap\n"
                "with open(\"README.md\", \"r+b\") as f:\n"
                "  m = mmap.mmap(f.fileno(), 0)\n  m[0:1] = b\"!\"\n  m.flush()\n  m.close()\n"
                "with open(\"src/util.h\", \"rb\") as f:\n"
                "  m = mmap.mmap(f.fileno(), 0, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | "
                "mmap.PROT_WRITE)\n"
                "  m[0:1] = b\"?\"\n  m.close()' && head -c 3 README.md && head -c 3 src/util.h");
  CHECK(r.status == 0);
  CHECK(r.out == "! P" + std::string("int"));
  CHECK(repo.read("README.md")[0] == '#');
  CHECK(w.ws("status").out == "M README.md\n");
}

TEST_CASE("view: rename flags RENAME_NOREPLACE and RENAME_EXCHANGE") {
  TestRepo repo;
  MountedWorkspace w(repo);
  const char* py = "python3 -c 'import ctypes, os, sys\n"
                   "libc = ctypes.CDLL(None, use_errno=True)\n"
                   "def r(a, b, flags):\n"
                   "  rc = libc.renameat2(-100, a.encode(), -100, b.encode(), flags)\n"
                   "  return 0 if rc == 0 else ctypes.get_errno()\n"
                   "print(r(\"README.md\", \"Makefile\", 1) == 17)\n"
                   "print(r(\"README.md\", \"Makefile\", 2))\n"
                   "print(r(\"src\", \"docs\", 2))'";
  Run r = w.in_view(py);
  CHECK(r.out == "True\n0\n0\n");
  CHECK(w.in_view("head -c 7 Makefile && ls src && ls docs").out ==
        "# Proje"
        "guide\nmain.c\nutil.c\nutil.h\n");
  CHECK(sh("head -c 7 Makefile", repo.path()).out == "prog: s");
}

TEST_CASE("view: odd names: spaces + newline + non-UTF-8 bytes + 255-byte names") {
  TestRepo repo;
  MountedWorkspace w(repo);
  std::string long_name(255, 'n');
  Run r = w.in_view("echo a > 'with space.txt' && echo b > \"$(printf 'new\\nline')\" && "
                    "echo c > \"$(printf 'bad\\377\\376')\" && echo d > " +
                    long_name + " && ls | wc -l");
  REQUIRE(r.status == 0);
  CHECK(w.in_view("echo e > " + long_name + "x").status != 0); // 256 bytes: ENAMETOOLONG
  CHECK(w.in_view("cat 'with space.txt' \"$(printf 'new\\nline')\" \"$(printf 'bad\\377\\376')\" " +
                  long_name)
            .out == "a\nb\nc\nd\n");
  Run st = w.ws("status");
  CHECK(st.out.find("A \"bad\\377\\376\"\n") != std::string::npos);
  CHECK(st.out.find("A \"new\\nline\"\n") != std::string::npos);
  CHECK(st.out.find("A with space.txt\n") != std::string::npos);
  CHECK(st.out.find("A " + long_name + "\n") != std::string::npos);
  Run js = w.ws("status --json");
  CHECK(js.out.find("\"bad\\udcff\\udcfe\"") != std::string::npos);
  Run parsed =
      sh(q(ws_binary().string()) +
             " status --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'",
         repo.path());
  CHECK(parsed.out == "4\n");
}

TEST_CASE("view: a shell's cwd stays valid after the agent writes in that directory") {
  TestRepo repo;
  MountedWorkspace w(repo);
  // The first write copies src/ up; the lookup of src by `ls ..` must find the same node, or
  // the kernel unhashes the dentry the shell stands in and getcwd() fails.
  Run r = w.in_view("cd src && echo new > added.c && ls .. >/dev/null && "
                    "python3 -c 'import os; print(os.getcwd())'");
  CHECK(r.status == 0);
  CHECK(r.out == (w.view() / "src").string() + "\n");
}
