// ws apply through the real CLI: per-file 3-way merge, all or nothing, --index, --check,
// --expect, --include, pathspecs and odd names.
#include "tests/integration/apply_support.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

constexpr auto npos = std::string::npos;

/// The first line of `ws diff`: "# ws patch <id> (workspace ...". Returns the id.
std::string patch_id(const MountedWorkspace& w) {
  Run d = w.ws("diff --no-pager --color=never");
  REQUIRE(d.out.rfind("# ws patch ", 0) == 0);
  return d.out.substr(11, 64);
}

/// Makes directory `dir` refuse new entries while it lives: chattr +i as root (root ignores
/// permission bits), chmod 0555 otherwise. `ok` is false when neither works here.
class FrozenDir {
public:
  explicit FrozenDir(fs::path dir) : m_dir(std::move(dir)) {
    m_root = ::geteuid() == 0;
    ok = sh(m_root ? "chattr +i " + q(m_dir.string()) : "chmod 0555 " + q(m_dir.string())).status ==
         0;
  }
  ~FrozenDir() {
    sh(m_root ? "chattr -i " + q(m_dir.string()) : "chmod 0755 " + q(m_dir.string()));
  }
  FrozenDir(const FrozenDir&) = delete;
  FrozenDir& operator=(const FrozenDir&) = delete;
  bool ok = false;

private:
  fs::path m_dir;
  bool m_root = false;
};

/// A small tmpfs mounted on a fresh directory, unmounted at the end (root only).
class Tmpfs {
public:
  explicit Tmpfs(const std::string& size) {
    ok = sh("mount -t tmpfs -o size=" + size + " ws-test " + q(m_dir.path().string())).status == 0;
  }
  ~Tmpfs() {
    if (ok) {
      sh("umount -l " + q(m_dir.path().string()));
    }
  }
  Tmpfs(const Tmpfs&) = delete;
  Tmpfs& operator=(const Tmpfs&) = delete;
  const fs::path& path() const { return m_dir.path(); }
  bool ok = false;

private:
  TempDir m_dir;
};

/// Points TMPDIR (where TempDir makes directories) at `dir` while it lives.
class TmpdirOn {
public:
  explicit TmpdirOn(const fs::path& dir) {
    if (const char* old = std::getenv("TMPDIR")) {
      m_old = old;
    }
    ::setenv("TMPDIR", dir.c_str(), 1);
  }
  ~TmpdirOn() {
    if (m_old) {
      ::setenv("TMPDIR", m_old->c_str(), 1);
    } else {
      ::unsetenv("TMPDIR");
    }
  }
  TmpdirOn(const TmpdirOn&) = delete;
  TmpdirOn& operator=(const TmpdirOn&) = delete;

private:
  std::optional<std::string> m_old;
};

} // namespace

TEST_CASE("apply: 3-way - the person edited another hunk - merged") {
  TestRepo repo;
  repo.write("notes.txt", lines(20));
  repo.commit_all();
  MountedWorkspace w(repo);
  REQUIRE(w.in_view(sed_line("notes.txt", 2, "agent's line 2")).status == 0);
  repo.write("notes.txt", lines(20, 18, "person's line 18"));
  Run a = w.ws("apply");
  CHECK_MESSAGE(a.status == 0, a.err);
  CHECK(a.out.find("M  notes.txt  (merged with your edits)\n") != npos);
  std::string merged = lines(20, 18, "person's line 18");
  merged.replace(merged.find("line 2\n"), 6, "agent's line 2");
  CHECK(repo.read("notes.txt") == merged);
  CHECK(git_status(repo) == " M notes.txt\n");
  // The view now shows what the real tree holds, and the path is no longer a change.
  CHECK(w.in_view("cat notes.txt").out == merged);
  CHECK(w.ws("status").out == "");
}

TEST_CASE("apply: 3-way - the same hunk - conflict and nothing lands") {
  TestRepo repo;
  repo.write("notes.txt", lines(20));
  repo.commit_all();
  MountedWorkspace w(repo);
  REQUIRE(w.in_view(sed_line("notes.txt", 10, "agent's line 10") +
                    " && echo clean > clean.txt && echo more >> README.md")
              .status == 0);
  repo.write("notes.txt", lines(20, 10, "person's line 10"));
  check_refused(w, repo, "apply",
                {"CONFLICT you and the agent changed the same lines of notes.txt",
                 "person's line 10", "agent's line 10", "1 conflicting file: nothing was applied"});
  CHECK(!lexists(repo.path() / "clean.txt"));
  // --check says the same and changes nothing either.
  check_refused(w, repo, "apply --check", {"CONFLICT"});
  // Everything stays a change of the workspace.
  CHECK(w.ws("status").out == "M README.md\nA clean.txt\nM notes.txt\n");
}

TEST_CASE("apply: --conflicts=markers writes the markers and lands the rest") {
  TestRepo repo;
  repo.write("notes.txt", lines(5));
  repo.commit_all();
  MountedWorkspace w(repo);
  REQUIRE(w.in_view(sed_line("notes.txt", 3, "agent") + " && echo clean > clean.txt").status == 0);
  repo.write("notes.txt", lines(5, 3, "person"));
  Run a = w.ws("apply --conflicts=markers");
  CHECK(a.status == 1);
  check_has_all(a.out, {"M  notes.txt  (CONFLICT markers written)\n", "applied 1 change"});
  std::string text = repo.read("notes.txt");
  check_has_all(text, {"<<<<<<<", "person\n", "agent\n", ">>>>>>>"});
  CHECK(repo.read("clean.txt") == "clean\n");
  CHECK(w.ws("status").out == "M notes.txt\n"); // the conflict is not resolved yet
}

TEST_CASE("apply: conflict - the person deleted a file the agent changed") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("echo agent >> src/util.c && echo more >> README.md").status == 0);
  REQUIRE(sh("rm src/util.c", repo.path()).status == 0);
  check_refused(w, repo, "apply",
                {"CONFLICT you deleted src/util.c in the real tree; the agent changed it",
                 "1 conflicting file: nothing was applied"});
}

TEST_CASE("apply: conflict - the person created a file the agent also created") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("echo agent > both.txt && echo more >> README.md").status == 0);
  repo.write("both.txt", "person\n"); // after the agent's, behind the view's back
  check_refused(w, repo, "apply",
                {"CONFLICT both added: the real tree has a different both.txt",
                 "1 conflicting file: nothing was applied"});
  CHECK(repo.read("both.txt") == "person\n");
}

TEST_CASE("apply: all-or-nothing - a path that became a directory in the real tree") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(
      w.in_view("echo more >> README.md && echo agent >> src/util.h && echo n > new.txt").status ==
      0);
  REQUIRE(sh("rm src/util.h && mkdir src/util.h && echo x > src/util.h/x", repo.path()).status ==
          0);
  check_refused(w, repo, "apply", {"CONFLICT src/util.h is a directory in the real tree now"});
}

TEST_CASE("apply: all-or-nothing - a new file whose parent is a file in the real tree") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("echo more >> README.md && mkdir out && echo n > out/new.txt").status == 0);
  repo.write("out", "the person's file\n");
  std::string before = repo.snapshot();
  Run c = w.ws("apply --check"); // finds it too, without writing anything aside
  CHECK(c.status != 0);
  CHECK_MESSAGE(c.err.find("'out' is no longer a directory") != npos, c.err);
  Run a = w.ws("apply");
  CHECK(a.status != 0);
  CHECK(a.err.find("out") != npos);
  CHECK(repo.snapshot() == before);
  CHECK(repo.read("out") == "the person's file\n");
}

TEST_CASE("apply: all-or-nothing - a directory that refuses the new file") {
  TestRepo repo;
  MountedWorkspace w(repo);
  // README.md lands first (byte order); src/new.c then fails and README.md must come back.
  REQUIRE(
      w.in_view("echo more >> README.md && echo 'int x;' > src/new.c && rm src/util.h").status ==
      0);
  std::string before = repo.snapshot();
  {
    FrozenDir frozen(repo.path() / "src");
    if (!frozen.ok) {
      MESSAGE("skipped: cannot make a directory refuse writes here (chattr +i unsupported)");
      return;
    }
    Run c = w.ws("apply --check"); // finds it too, without writing anything aside
    CHECK(c.status == 1);
    CHECK_MESSAGE(c.err.find("cannot write in directory (src)") != npos, c.err);
    Run a = w.ws("apply");
    CHECK(a.status == 1);
    check_has_all(a.err, {"ws: error:", "src"});
  }
  CHECK(repo.snapshot() == before);
  // Nothing landed, so everything is still a change; with the directory writable it lands.
  CHECK(w.ws("status").out == "M README.md\nA src/new.c\nD src/util.h\n");
  Run again = w.ws("apply");
  CHECK_MESSAGE(again.status == 0, again.err);
  CHECK(git_status(repo) == " M README.md\n D src/util.h\n?? src/new.c\n");
}

TEST_CASE("apply: all-or-nothing - a full disk") {
  if (::geteuid() != 0) {
    MESSAGE("skipped: mounting a small tmpfs needs root");
    return;
  }
  Tmpfs disk("16m");
  REQUIRE(disk.ok);
  std::optional<TestRepo> on_disk;
  {
    TmpdirOn guard(disk.path());
    on_disk.emplace(); // the repository on the tmpfs; the workspace's state elsewhere
  }
  const TestRepo& repo = *on_disk;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("echo more >> README.md && yes 'generated text' | head -c 6291456 > gen.txt")
              .status == 0);
  // Fill the disk, then free 1 MiB: README.md fits, the 6 MiB file does not.
  sh("(dd if=/dev/zero of=filler bs=64k 2>/dev/null; true) && truncate -s -1M filler", disk.path());
  std::string before = repo.snapshot();
  Run c = w.ws("apply --check"); // reserves the space instead of writing each file aside
  CHECK(c.status == 1);
  CHECK_MESSAGE(c.err.find("No space left on device") != npos, c.err);
  Run a = w.ws("apply");
  CHECK(a.status == 1);
  CHECK(a.err.find("No space left on device") != npos);
  CHECK(repo.snapshot() == before);
  sh("rm -f filler", disk.path());
  CHECK(w.ws("apply --check").status == 0);
  CHECK(sh("ls -a | grep -c '^.ws-apply' || true", repo.path()).out == "0\n"); // reserve gone
  Run again = w.ws("apply");
  CHECK_MESSAGE(again.status == 0, again.err);
  CHECK(git_status(repo) == " M README.md\n?? gen.txt\n");
  CHECK(fs::file_size(repo.path() / "gen.txt") == 6291456);
}

TEST_CASE("apply: --index stages exactly the applied changes") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("echo more >> README.md && echo n > new.txt && rm docs/guide/intro.txt && "
                    "mv src/util.c src/add.c && chmod -x scripts/run.sh && "
                    "ln -s src/util.h util-link && ln -sfn src/main.c link-to-readme && "
                    "echo pyc > x.pyc")
              .status == 0);
  Run a = w.ws("apply --index");
  CHECK_MESSAGE(a.status == 0, a.err);
  CHECK(a.out.find("applied 7 changes and staged them\n") != npos);
  CHECK(sh("git diff --cached --name-status --no-renames", repo.path()).out ==
        "M\tREADME.md\n"
        "D\tdocs/guide/intro.txt\n"
        "M\tlink-to-readme\n"
        "A\tnew.txt\n"
        "M\tscripts/run.sh\n"
        "A\tsrc/add.c\n"
        "D\tsrc/util.c\n"
        "A\tutil-link\n");
  CHECK(sh("git diff --cached --name-status -M", repo.path())
            .out.find("R100\tsrc/util.c\tsrc/add.c\n") != npos);
  // The index matches the tree: nothing unstaged; only the withheld file is untracked.
  CHECK(sh("git diff --name-status", repo.path()).out == "");
  CHECK(git_status(repo) == "M  README.md\n"
                            "D  docs/guide/intro.txt\n"
                            "M  link-to-readme\n"
                            "A  new.txt\n"
                            "M  scripts/run.sh\n"
                            "R  src/util.c -> src/add.c\n"
                            "A  util-link\n");
  CHECK(!lexists(repo.path() / "x.pyc"));
  CHECK(sh("git ls-files -s scripts/run.sh", repo.path()).out.rfind("100644 ", 0) == 0);
  CHECK(sh("git ls-files -s util-link", repo.path()).out.rfind("120000 ", 0) == 0);
  CHECK(sh("git cat-file -p :link-to-readme", repo.path()).out == "src/main.c");
  CHECK(sh("git cat-file -p :util-link", repo.path()).out == "src/util.h");
  CHECK(fs::read_symlink(repo.path() / "util-link") == "src/util.h");
  CHECK(repo.read("src/add.c") ==
        "#include \"util.h\"\n\nint add(int a, int b) { return a + b; }\n");
}

TEST_CASE("apply: --index with a file replaced by a directory") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("rm src/util.h && mkdir src/util.h && echo part > src/util.h/part.h").status ==
          0);
  Run c = w.ws("apply --check");
  CHECK_MESSAGE(c.status == 0, c.err);
  Run a = w.ws("apply --index");
  CHECK_MESSAGE(a.status == 0, a.err);
  CHECK(sh("git diff --cached --name-status", repo.path()).out ==
        "D\tsrc/util.h\nA\tsrc/util.h/part.h\n");
  CHECK(git_status(repo) == "D  src/util.h\nA  src/util.h/part.h\n");
}

TEST_CASE("apply: ws runs no git hook and no fsmonitor of the real repository") {
  TestRepo repo;
  fs::path marks = repo.path().parent_path() / "marks";
  fs::create_directories(marks);
  for (const char* hook : {"pre-commit", "post-index-change", "post-checkout", "post-merge",
                           "reference-transaction", "pre-applypatch", "post-applypatch"}) {
    repo.write(std::string(".git/hooks/") + hook,
               "#!/bin/sh\ntouch " + q((marks / hook).string()) + "\n");
    fs::permissions(repo.path() / ".git/hooks" / hook, fs::perms::owner_all, fs::perm_options::add);
  }
  REQUIRE(sh("git config core.fsmonitor " + q("touch " + (marks / "fsmonitor").string() + "; :"),
             repo.path())
              .status == 0);
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("echo more >> README.md && rm src/util.h && mv src/util.c src/add.c && "
                    "echo n > new.txt")
              .status == 0);
  CHECK(w.ws("status").status == 0);
  CHECK(w.ws("diff --no-pager").status == 0);
  Run a = w.ws("apply --index");
  CHECK_MESSAGE(a.status == 0, a.err);
  CHECK(sh("ls -A " + q(marks.string())).out == "");
  CHECK(sh("git -c core.fsmonitor= diff --cached --name-only --no-renames", repo.path()).out ==
        "README.md\nnew.txt\nsrc/add.c\nsrc/util.c\nsrc/util.h\n");
  // The hooks are live: git itself runs them.
  REQUIRE(sh("git -c core.fsmonitor= -c user.name=T -c user.email=t@e commit -q -m x", repo.path())
              .status == 0);
  CHECK(fs::exists(marks / "pre-commit"));
}

TEST_CASE("apply: --check changes nothing") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("echo more >> README.md && echo n > new.txt && rm src/util.h").status == 0);
  std::string id = patch_id(w);
  std::string before = repo.snapshot();
  Run c = w.ws("apply --check");
  CHECK(c.status == 0);
  CHECK(c.out == "would apply cleanly: 3 changes (patch " + id + ")\n");
  Run ci = w.ws("apply --check --index");
  CHECK(ci.status == 0);
  CHECK(repo.snapshot() == before);
  CHECK(w.ws("status").out == "M README.md\nA new.txt\nD src/util.h\n");
}

TEST_CASE("apply: --expect lands the reviewed patch and refuses a newer one") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("echo reviewed >> README.md").status == 0);
  std::string id = patch_id(w);
  CHECK(id.find_first_not_of("0123456789abcdef") == npos);
  CHECK(w.ws("diff --json").out.find("\"id\": \"" + id + "\"") != npos);
  CHECK(w.ws("apply --check --expect " + id).status == 0);

  // The agent writes again after the review: the reviewed id no longer lands anything.
  REQUIRE(w.in_view("echo sneaked > sneaked.txt").status == 0);
  check_refused(w, repo, "apply --expect " + id,
                {"the changes are no longer the patch you reviewed",
                 "not in the patch you reviewed: sneaked.txt"});

  std::string fresh = patch_id(w);
  CHECK(fresh != id);
  Run ok = w.ws("apply --expect " + fresh);
  CHECK_MESSAGE(ok.status == 0, ok.err);
  CHECK(git_status(repo) == " M README.md\n?? sneaked.txt\n");
  CHECK(repo.read("README.md").ends_with("reviewed\n"));
}

TEST_CASE("apply: --include takes the named withheld paths and no others") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("mkdir tools && printf '#!/bin/sh\\n' > tools/a.sh && "
                    "printf '#!/bin/sh\\n' > tools/b.sh && chmod +x tools/*.sh && "
                    "echo pyc > m.pyc && echo more >> README.md")
              .status == 0);
  check_refused(w, repo, "apply --include src", {"--include 'src' names no withheld change"});

  Run one = w.ws("apply --include tools/a.sh");
  CHECK_MESSAGE(one.status == 0, one.err);
  CHECK(git_status(repo) == " M README.md\n?? tools/a.sh\n");
  CHECK(sh("test -x tools/a.sh", repo.path()).status == 0);
  Run dir = w.ws("apply --include tools");
  CHECK_MESSAGE(dir.status == 0, dir.err);
  CHECK(git_status(repo) == " M README.md\n?? tools/a.sh\n?? tools/b.sh\n");
  CHECK(!lexists(repo.path() / "m.pyc"));
  CHECK(w.ws("status").out == "A m.pyc  (WITHHELD: compiled Python (.pyc))\n");
}

TEST_CASE("apply: paths limit what lands") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("echo more >> README.md && echo x >> src/main.c && echo n > src/new.c && "
                    "mv docs/guide/intro.txt src/intro.txt")
              .status == 0);
  Run a = w.ws("apply src/main.c src/new.c");
  CHECK_MESSAGE(a.status == 0, a.err);
  CHECK(a.out.find("applied 2 changes\n") != npos);
  CHECK(git_status(repo) == " M src/main.c\n?? src/new.c\n");
  // A rename is taken by either of its names, whole.
  Run r = w.ws("apply docs");
  CHECK_MESSAGE(r.status == 0, r.err);
  CHECK(git_status(repo) ==
        " D docs/guide/intro.txt\n M src/main.c\n?? src/intro.txt\n?? src/new.c\n");
  CHECK(w.ws("status").out == "M README.md\n");
}

TEST_CASE("apply: odd names as pathspecs - through a rename and with --index") {
  TestRepo repo;
  repo.write("old name.txt", "old\n");
  repo.commit_all();
  MountedWorkspace w(repo);
  std::string renamed = "re\nnamed \xff.txt";
  std::string dash = "-dash \\ back\"quote.txt";
  REQUIRE(w.in_view("mv 'old name.txt' " + q(renamed) + " && echo d > " + q(dash) +
                    " && echo more >> README.md")
              .status == 0);
  CHECK(w.ws("status").out == "A \"-dash \\\\ back\\\"quote.txt\"\nM README.md\n"
                              "R old name.txt -> \"re\\nnamed \\377.txt\"\n");
  Run a = w.ws("apply --index -- " + q(renamed) + " " + q(dash));
  CHECK_MESSAGE(a.status == 0, a.err);
  CHECK(a.out.find("applied 2 changes and staged them\n") != npos);
  CHECK(repo.read(renamed) == "old\n");
  CHECK(repo.read(dash) == "d\n");
  CHECK(!lexists(repo.path() / "old name.txt"));
  CHECK(git_status(repo) == "A  \"-dash \\\\ back\\\"quote.txt\"\n"
                            "R  \"old name.txt\" -> \"re\\nnamed \\377.txt\"\n");
  CHECK(w.ws("status").out == "M README.md\n");
}

TEST_CASE("apply: --checkpoint lands a frozen state while the agent works on - then merges") {
  TestRepo repo;
  repo.write("notes.txt", lines(12));
  repo.commit_all();
  MountedWorkspace w(repo);
  REQUIRE(w.in_view(sed_line("notes.txt", 2, "agent early") + " && echo v1 > new.txt").status == 0);
  Run cp = w.ws("checkpoint -m early");
  REQUIRE(cp.status == 0);
  REQUIRE(w.in_view(sed_line("notes.txt", 11, "agent late") + " && echo v2 >> new.txt").status ==
          0);

  Run frozen = w.ws("apply --checkpoint 1");
  CHECK(frozen.status == 0);
  CHECK(repo.read("notes.txt") == lines(12, 2, "agent early"));
  CHECK(repo.read("new.txt") == "v1\n");
  // The live workspace keeps its newer work.
  CHECK(w.in_view("cat new.txt").out == "v1\nv2\n");

  // The person edits the landed file too; the live apply merges against what landed.
  std::string with_person = lines(12, 2, "agent early");
  with_person.replace(with_person.find("line 7"), 6, "PERSON");
  repo.write("notes.txt", with_person);
  Run live = w.ws("apply");
  CHECK(live.status == 0);
  CHECK(live.err.find("CONFLICT") == npos);
  std::string expect = with_person;
  expect.replace(expect.find("line 11"), 7, "agent late");
  CHECK(repo.read("notes.txt") == expect);
  CHECK(repo.read("new.txt") == "v1\nv2\n");
  CHECK(w.ws("status").out == "");
}

TEST_CASE("apply: a file the person added to a directory the agent deleted is never deleted") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("rm -r docs").status == 0);
  // Meanwhile the person adds a file to that directory in the real tree.
  repo.write("docs/guide/mine.txt", "the person's\n");
  // Nothing lands: not the agent's deletion either.
  check_refused(w, repo, "apply", {"docs/guide/mine.txt"});
  // Applying the agent's own deletion alone works and leaves the person's file.
  Run only = w.ws("apply docs/guide/intro.txt");
  CHECK(only.status == 0);
  CHECK_FALSE(fs::exists(repo.path() / "docs/guide/intro.txt"));
  CHECK(repo.read("docs/guide/mine.txt") == "the person's\n");
}
