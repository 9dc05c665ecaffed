// ws reset, ws checkpoint, ws restore on real mounts: the view shows the real tree again at
// once, processes inside the view keep working, and nothing is ever lost for good.
#include "tests/support/checkpoint_steps.hpp"
#include "tests/support/harness.hpp"
#include "tests/support/text_checks.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <thread>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

/// A process in the view while the view changes under it: runs `before` (in `cwd`), waits
/// until finish() is called, then runs `after`. The script may itself wait at "$SYNC"
/// (a shell function) instead, e.g. in the middle of a python program holding files open.
class Waiting {
public:
  Waiting(const fs::path& cwd, const std::string& before, const std::string& after) {
    m_ready = m_dir.path() / "ready";
    m_go = m_dir.path() / "go";
    REQUIRE(::mkfifo(m_go.c_str(), 0600) == 0);
    std::string sync = "echo ready > " + q(m_ready.string()) + " && read x < " + q(m_go.string());
    std::string script = "export READY=" + q(m_ready.string()) + " GO=" + q(m_go.string()) + "; " +
                         before + " && " + sync + " && " + after;
    m_thread = std::thread([this, script, cwd] { m_run = sh(script, cwd); });
    wait_ready();
  }
  /// For scripts that signal readiness themselves ("echo > $READY", then read "$GO").
  Waiting(const fs::path& cwd, const std::string& script) {
    m_ready = m_dir.path() / "ready";
    m_go = m_dir.path() / "go";
    REQUIRE(::mkfifo(m_go.c_str(), 0600) == 0);
    std::string full =
        "export READY=" + q(m_ready.string()) + " GO=" + q(m_go.string()) + "; " + script;
    m_thread = std::thread([this, full, cwd] { m_run = sh(full, cwd); });
    wait_ready();
  }
  ~Waiting() {
    if (m_thread.joinable()) {
      finish();
    }
  }
  Waiting(const Waiting&) = delete;
  Waiting& operator=(const Waiting&) = delete;

  Run finish() {
    sh("echo go > " + q(m_go.string()));
    m_thread.join();
    return m_run;
  }

private:
  void wait_ready() {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!fs::exists(m_ready) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    REQUIRE(fs::exists(m_ready));
  }

  TempDir m_dir;
  fs::path m_ready, m_go;
  std::thread m_thread;
  Run m_run;
};

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("reset: all while mounted - the real tree shows again + a shell inside keeps working") {
  TestRepo repo;
  std::string before = repo.snapshot();
  MountedWorkspace w(repo);
  // The test ! -e leave negative entries in the kernel for names the reset brings back.
  REQUIRE(w.in_view("echo agent >> src/util.c && echo new > new.txt && rm README.md && "
                    "mv docs/guide docs/manual && rm -rf scripts && mkdir scripts && "
                    "echo other > scripts/other.sh && test ! -e README.md && "
                    "test ! -e docs/guide && test ! -e scripts/run.sh")
              .status == 0);
  CHECK(w.ws("status").out == "D README.md\n"
                              "R docs/guide/intro.txt -> docs/manual/intro.txt\n"
                              "A new.txt\n"
                              "A scripts/other.sh\n"
                              "D scripts/run.sh\n"
                              "M src/util.c\n");
  // A shell standing in a real-tree directory of the view, which the agent copied up.
  Waiting shell(w.view() / "src", "cat util.c > /dev/null",
                "python3 -c 'import os; print(os.getcwd())' && cat util.c && ls && "
                "echo again >> main.c && cat main.c");

  Run reset = w.ws("reset");
  CHECK(reset.status == 0);
  check_has_all(reset.out, {"M src/util.c\n", "dropped 6 changes; undo with: ws restore 1\n"});

  CHECK(w.in_view("cat src/util.c").out == repo.read("src/util.c"));
  CHECK(w.in_view("cat README.md").out == repo.read("README.md"));
  CHECK(w.in_view("test ! -e new.txt").status == 0);
  CHECK(w.in_view("ls docs && cat docs/guide/intro.txt").out == "guide\nintro\n");
  CHECK(w.in_view("ls scripts && ./scripts/run.sh").out == "run.sh\nrun\n");
  CHECK(w.in_view("ls").out == "Makefile\nREADME.md\ndocs\nlink-to-readme\nscripts\nsrc\n");
  CHECK(w.ws("status").out == "");

  Run in_src = shell.finish();
  CHECK(in_src.status == 0);
  CHECK(in_src.out == (w.view() / "src").string() + "\n" + repo.read("src/util.c") +
                          "main.c\nutil.c\nutil.h\n" + repo.read("src/main.c") + "again\n");
  CHECK(w.ws("status").out == "M src/main.c\n"); // the shell's write after the reset counts
  CHECK(w.in_view("git status --porcelain").out == " M src/main.c\n");
  CHECK(repo.snapshot() == before);
}

TEST_CASE("reset: named paths leave the other changes alone") {
  TestRepo repo;
  std::string before = repo.snapshot();
  MountedWorkspace w(repo);
  std::string readme = repo.read("README.md");
  REQUIRE(w.in_view("echo agent >> README.md && echo agent >> src/util.c && "
                    "mv docs/guide/intro.txt docs/intro.txt && echo n > src/new.c")
              .status == 0);

  // A rename is selected by either side, and both sides go.
  Run reset = w.ws("reset src/util.c docs/intro.txt");
  CHECK(reset.status == 0);
  CHECK(reset.out == "R docs/guide/intro.txt -> docs/intro.txt\n"
                     "M src/util.c\n"
                     "dropped 2 changes; undo with: ws restore 1\n");
  CHECK(w.ws("status").out == "M README.md\nA src/new.c\n");
  CHECK(w.in_view("cat src/util.c").out == repo.read("src/util.c"));
  CHECK(w.in_view("cat docs/guide/intro.txt && test ! -e docs/intro.txt").out == "intro\n");
  CHECK(w.in_view("cat README.md").out == readme + "agent\n");

  // Pathspecs are relative to where ws runs, in the view as in the real tree.
  Run here = sh(q(ws_binary().string()) + " reset new.c", w.view() / "src");
  CHECK(here.status == 0);
  CHECK(here.out == "A src/new.c\ndropped 1 change; undo with: ws restore 2\n");
  CHECK(w.in_view("ls src").out == "main.c\nutil.c\nutil.h\n");
  CHECK(w.ws("status").out == "M README.md\n");

  Run none = w.ws("reset nothing/here");
  CHECK(none.status == 1);
  check_has_all(none.err, {"ws: error: no changes at or below nothing/here",
                           "hint: see what changed with 'ws status'"});
  CHECK(w.ws("status").out == "M README.md\n");
  CHECK(repo.snapshot() == before);
}

TEST_CASE("reset: a file below a directory the agent replaced comes back alone") {
  TestRepo repo;
  std::string before = repo.snapshot();
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("mkdir docs/guide/more && echo x > docs/guide/more/x.txt && "
                    "rm -rf docs && mkdir docs && echo mine > docs/mine.txt && "
                    "rm -rf src && echo 'not a directory' > src && test ! -e docs/guide")
              .status == 0);
  Run reset = w.ws("reset docs/guide/intro.txt src/util.h");
  CHECK(reset.status == 0);
  CHECK(reset.out == "D docs/guide/intro.txt\nD src/util.h\n"
                     "dropped 2 changes; undo with: ws restore 1\n");
  // The agent's directory stays the agent's, with the real file back in it.
  CHECK(w.in_view("ls docs docs/guide").out ==
        "docs:\nguide\nmine.txt\n\ndocs/guide:\nintro.txt\n");
  CHECK(w.in_view("cat docs/guide/intro.txt").out == "intro\n");
  // A file stood where the real tree has a directory: the directory is back, with the
  // named file only.
  CHECK(w.in_view("ls src && cat src/util.h").out == "util.h\n" + repo.read("src/util.h"));
  CHECK(w.ws("status").out == "A docs/mine.txt\nD src/main.c\nD src/util.c\n");
  // The same, seen by a fresh daemon: it was all written to the state, not only to memory.
  w.unmount();
  w.mount();
  CHECK(w.in_view("ls src docs/guide").out == "docs/guide:\nintro.txt\n\nsrc:\nutil.h\n");
  CHECK(repo.snapshot() == before);
}

TEST_CASE("reset: without a mounted view the state files are edited directly") {
  TestRepo repo;
  std::string before = repo.snapshot();
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("echo agent >> README.md && echo n > n.txt && rm src/util.h && "
                    "mkdir -p deep/er && echo d > deep/er/f")
              .status == 0);
  w.unmount();
  Run one = w.ws("reset src/util.h");
  CHECK(one.status == 0);
  CHECK(one.out == "D src/util.h\ndropped 1 change; undo with: ws restore 1\n");
  CHECK(w.ws("status").out == "M README.md\nA deep/er/f\nA n.txt\n");
  Run all = w.ws("reset");
  CHECK(all.status == 0);
  CHECK(contains(all.out, "dropped 3 changes; undo with: ws restore 2\n"));
  CHECK(w.ws("status").out == "");
  w.mount();
  CHECK(w.in_view("cat README.md src/util.h").out ==
        repo.read("README.md") + repo.read("src/util.h"));
  CHECK(w.in_view("test ! -e n.txt && test ! -e deep").status == 0);
  // Offline resets are journaled too.
  CHECK(contains(w.ws("log").out, "reset     src/util.h"));
  CHECK(repo.snapshot() == before);
}

TEST_CASE("reset: undone by ws restore") {
  TestRepo repo;
  std::string before = repo.snapshot();
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("echo agent >> README.md && echo n > n.txt && rm -rf docs && "
                    "mv src/util.c src/helpers.c")
              .status == 0);
  std::string status = w.ws("status").out;
  REQUIRE(w.ws("reset").status == 0);
  CHECK(w.ws("status").out == "");
  Run restore = w.ws("restore 1");
  CHECK(restore.status == 0);
  CHECK(restore.out == "restored checkpoint 1 (4 changes); the state before is checkpoint 2: "
                       "undo with: ws restore 2\n");
  CHECK(w.ws("status").out == status);
  CHECK(w.in_view("tail -1 README.md && cat n.txt && test ! -e docs && ls src").out ==
        "agent\nn\nhelpers.c\nmain.c\nutil.h\n");
  Run list = w.ws("checkpoints");
  check_has_all(list.out, {"   1  ", "4 changes    ", " KiB  before reset\n", "   2  ",
                           "0 changes    ", "  before restore of 1\n", "2 checkpoints, "});
  CHECK(repo.snapshot() == before);
}

TEST_CASE("checkpoint: more edits then ws restore give the checkpoint's content in the view") {
  TestRepo repo;
  std::string before = repo.snapshot();
  MountedWorkspace w(repo);
  std::string readme = repo.read("README.md");
  REQUIRE(w.in_view("echo v1 > notes.txt && echo one >> README.md && echo '// v1' >> src/util.c")
              .status == 0);
  Run cp = w.ws("checkpoint -m 'first try'");
  CHECK(cp.status == 0);
  CHECK(cp.out == "checkpoint 1: 3 changes\n");
  // A checkpoint names its trees in the workspace's content store.
  fs::path dir = w.state_dir() / "checkpoints" / "1";
  CHECK(fs::exists(dir / "snapshot"));
  CHECK(fs::exists(dir / "info"));
  CHECK(!fs::exists(dir / "upper"));
  CHECK(fs::is_directory(w.state_dir() / "store" / "objects"));

  REQUIRE(w.in_view("echo v2 > notes.txt && rm README.md && echo x > extra.txt && "
                    "mkdir d && echo y > d/f && echo '// v2' >> src/util.c && cat notes.txt")
              .out == "v2\n");
  // A shell in src/, whose upper copy the restore replaces by the checkpoint's.
  Waiting shell(w.view() / "src", "true",
                "python3 -c 'import os; print(os.getcwd())' && tail -1 util.c && ls");
  Run restore = w.ws("restore 1");
  CHECK(restore.status == 0);
  CHECK(w.in_view("cat notes.txt README.md").out == "v1\n" + readme + "one\n");
  CHECK(w.in_view("test ! -e extra.txt && test ! -e d && tail -1 src/util.c").out == "// v1\n");
  CHECK(w.ws("status").out == "M README.md\nA notes.txt\nM src/util.c\n");
  Run in_src = shell.finish();
  CHECK(in_src.status == 0);
  CHECK(in_src.out == (w.view() / "src").string() + "\n// v1\nmain.c\nutil.c\nutil.h\n");

  Run json = w.ws("checkpoints --json");
  CHECK(json.status == 0);
  check_has_all(json.out, {"\"id\": 1, ", "\"changes\": 3, \"message\": \"first try\"}",
                           "\"changes\": 5, \"message\": \"before restore of 1\"}"});

  Run missing = w.ws("restore 9");
  CHECK(missing.status == 1);
  check_has_all(missing.err, {"ws: error: no checkpoint 9 in workspace 'default'",
                              "hint: its checkpoints are 1, 2"});
  CHECK(repo.snapshot() == before);
}

TEST_CASE("reset: a file the agent holds open keeps a working descriptor") {
  TestRepo repo;
  std::string before = repo.snapshot();
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("echo agent >> src/util.c && echo mine > mine.txt").status == 0);
  std::string util = repo.read("src/util.c");
  // Opened before the reset, used after it: reads see what was open, writes succeed and
  // land nowhere the view or the real tree shows (as with an unlinked file on ext4).
  Waiting agent(w.view(), "python3 -c 'import os\n"
                          "a = open(\"src/util.c\", \"r+\")\n"
                          "m = open(\"mine.txt\", \"r+\")\n"
                          "r = open(\"src/main.c\")\n"
                          "open(os.environ[\"READY\"], \"w\").close()\n"
                          "open(os.environ[\"GO\"]).read()\n"
                          "print(a.read().splitlines()[-1], m.read().strip(), len(r.read()))\n"
                          "a.write(\"more\\n\"); a.flush(); m.write(\"x\"); m.flush()\n"
                          "a.seek(0); print(a.read().splitlines()[-1])\n"
                          "print(open(\"src/util.c\").read().splitlines()[-1])'");
  Run reset = w.ws("reset");
  CHECK(reset.status == 0);
  Run r = agent.finish();
  CHECK(r.status == 0);
  CHECK(r.out == "agent mine " + std::to_string(repo.read("src/main.c").size()) +
                     "\nmore\nint add(int a, int b) { return a + b; }\n");
  CHECK(w.in_view("cat src/util.c").out == util);
  CHECK(w.in_view("test ! -e mine.txt").status == 0);
  CHECK(w.ws("status").out == "");
  CHECK(repo.snapshot() == before);
}

TEST_CASE("reset: no workspace - a clear error naming ws new") {
  TestRepo repo;
  MountedWorkspace w(repo);
  for (const char* args : {"reset", "checkpoint", "checkpoints", "restore 1"}) {
    Run r = sh(q(ws_binary().string()) + " -w nope " + args, repo.path());
    CHECK(r.status == 1);
    check_has_all(r.err, {"ws: error: no workspace 'nope'", "ws new"});
  }
  Run none = w.ws("checkpoints");
  CHECK(none.status == 0);
  CHECK(none.out == "");
  CHECK(contains(none.err, "no checkpoints yet"));
}

TEST_CASE("checkpoint: --keep N deletes all but the newest N - read-only directories too") {
  TestRepo repo;
  MountedWorkspace w(repo);
  // A directory the agent made read-only must not stop the pruning.
  checkpoint_each(w, {{"mkdir ro && echo 1 > ro/f && chmod 555 ro && echo 1 > a.txt", "one"},
                      {"echo 2 > a.txt", "two"},
                      {"echo 3 > a.txt", "three"}});

  Run pruned = w.ws("checkpoints --keep 1");
  CHECK(pruned.status == 0);
  check_has_all(pruned.err, {"deleted checkpoint 1 (one)", "deleted checkpoint 2 (two)"});
  CHECK(pruned.out.find("three") != std::string::npos);
  CHECK(pruned.out.find("one") == std::string::npos);
  CHECK(!std::filesystem::exists(w.state_dir() / "checkpoints" / "1"));
  CHECK(!std::filesystem::exists(w.state_dir() / "checkpoints" / "2"));
  // The one kept still restores, and numbering goes on after it.
  CHECK(w.ws("restore 3").status == 0);
  CHECK(w.in_view("cat a.txt").out == "3\n");
  CHECK(w.ws("checkpoints --keep 5").err == "");
}
