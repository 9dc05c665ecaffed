// git's fsmonitor hook in a view (docs/fsmonitor.md): after any interleaving of the agent's
// writes, the person's edits in the real tree, renames, deletes, daemon restarts and
// `ws reset`, `git status` with the hook says exactly what it says without it; a token from
// before a clean remount answers exactly, with what the person did while nothing ran (and
// "everything" when the record could not be kept); the hook works inside `ws run`.
#include "tests/integration/random_steps.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace ws::test;

namespace {

std::string hook() {
  return (ws_binary().parent_path() / "ws-fsmonitor").string();
}

/// git status in the view with the hook (first: it catches the watcher up) and without it
/// (never writing the index, so the hook's token survives to the next step).
const char* const k_compare =
    "git -c core.fsmonitor=\"$HOOK\" -c core.untrackedCache=true status --porcelain >\"$OUT/with\""
    " 2>\"$OUT/with.err\" && "
    "git --no-optional-locks -c core.fsmonitor=false -c core.untrackedCache=false "
    "status --porcelain >\"$OUT/without\" 2>&1";

/// One step of the interleaving: a shell command run in the view (the agent's side) or in
/// the real tree (the person's), made from the seeded generator.
std::string random_step(std::mt19937& rng, std::string& where) {
  static const std::vector<std::string> dirs{"",         "src/",   "docs/guide/", "lib/",
                                             "lib/sub/", "build/", "new dir/"};
  static const std::vector<std::string> names{"a.c",    "b.txt",  "c.o", "README.md",
                                              "util.c", "main.c", "n"};
  StepDraw s = draw_step(rng, dirs, names, 3);
  where = s.where;
  const std::string &path = s.path, &path2 = s.path2, &dir = s.dir, &dir2 = s.dir2;
  const std::string &d = s.d, &d2 = s.d2, &text = s.text;
  switch (std::uniform_int_distribution<int>(0, 11)(rng)) {
  case 0:
  case 1:
    return "mkdir -p " + dir + " && echo " + text + " >> " + path;
  case 2:
    return "mkdir -p " + dir + " && echo " + text + " > " + path;
  case 3:
    return "rm -f " + path;
  case 4:
    return "[ -f " + path + " ] && mkdir -p " + dir2 + " && mv -f " + path + " " + path2 + " || :";
  case 5: // a directory moved (or over an empty one)
    return d.empty() || d2.empty() || d == d2
               ? ":"
               : "[ -d " + dir + " ] && [ ! -e " + dir2 + " ] && mkdir -p " + dir2 + " && rmdir " +
                     dir2 + " && mv " + dir + " " + dir2 + " || :";
  case 6:
    return d.empty() ? ":" : "rm -rf " + dir;
  case 7:
    return "mkdir -p " + dir + "/e" + text;
  case 8:
    return "[ -f " + path + " ] && chmod +x " + path + " || :";
  case 9:
    return "[ -f " + path + " ] && touch -d '2001-01-01' " + path + " || :";
  case 10: // same size, other bytes
    return "[ -f " + path + " ] && printf x | dd of=" + path +
           " bs=1 count=1 conv=notrunc "
           "status=none || :";
  default:
    where = "view";
    return "git add -A . >/dev/null 2>&1 || :";
  }
}

} // namespace

TEST_CASE("fsmonitor: git status with ws's hook equals git status without, over random steps") {
  TestRepo repo;
  repo.write(".gitignore", "*.o\nbuild/\n");
  repo.write("lib/sub/deep.c", "deep\n");
  repo.commit_all();
  MountedWorkspace w(repo);
  TempDir out;
  const unsigned seed = test_seed(14);
  std::mt19937 rng(seed);
  std::ostringstream log;
  const int steps = 300;
  for (int i = 0; i < steps; ++i) {
    std::string where, step;
    int kind = std::uniform_int_distribution<int>(0, 99)(rng);
    if (kind < 3) {
      // The record is kept across a clean remount: what the person does meanwhile must show.
      std::string offline = random_step(rng, where);
      step = "(unmount; in the real tree: " + offline + "; mount)";
      w.unmount();
      sh("(cd " + q(repo.path().string()) + " && " + offline + ") >/dev/null 2>&1");
      w.mount();
      where.clear();
    } else if (kind < 4) {
      step = "(ws reset)";
      Run r = w.ws("reset");
      REQUIRE_MESSAGE(r.status == 0, r.err);
    } else {
      step = random_step(rng, where);
    }
    log << i << " " << where << ": " << step << "\n";
    std::string cwd = where == "real" ? repo.path().string() : w.view().string();
    std::string script = "HOOK=" + q(hook()) + " OUT=" + q(out.path().string()) + "; ";
    if (!where.empty()) {
      script += "(cd " + q(cwd) + " && " + step + ") >/dev/null 2>&1; ";
    }
    script += std::string("cd ") + q(w.view().string()) + " && " + k_compare;
    Run r = sh(script);
    REQUIRE_MESSAGE(r.status == 0, r.out << r.err);
    std::string with = sh("cat " + q((out.path() / "with").string())).out;
    std::string without = sh("cat " + q((out.path() / "without").string())).out;
    std::string err = sh("cat " + q((out.path() / "with.err").string())).out;
    if (with != without || !err.empty()) {
      FAIL("seed " << seed << ", step " << i << ": with the hook:\n"
                   << with << "without:\n"
                   << without << "hook's stderr: " << err << "\nsteps:\n"
                   << log.str());
    }
  }
}

TEST_CASE("fsmonitor: the hook answers names since its token, across a clean remount too") {
  TestRepo repo;
  MountedWorkspace w(repo);
  // What git's first, full status does: the view looks at every directory, and watches it.
  REQUIRE(w.in_view("ls -R >/dev/null").status == 0);
  Run first = w.in_view(q(hook()) + " 2 1700000000000000000 | tr '\\0' '\\n'");
  REQUIRE(first.status == 0);
  std::string token = first.out.substr(0, first.out.find('\n'));
  CHECK(token.rfind("ws:", 0) == 0);
  CHECK(first.out == token + "\n/"); // git's first token is not one of ours: everything
  REQUIRE(w.in_view("echo x >> src/util.c && mkdir made && mv README.md READ.md").status == 0);
  REQUIRE(sh("echo y > docs/guide/real.txt", repo.path()).status == 0);
  Run next = w.in_view(q(hook()) + " 2 " + q(token) + " | tr '\\0' '\\n' | tail -n +2 | sort");
  CHECK(next.out == "READ.md\nREADME.md\ndocs/guide/real.txt\nmade/\nsrc/util.c\n");
  Run again = w.in_view(q(hook()) + " 2 " + q(token) + " | tr '\\0' '\\n' | head -1");
  std::string later = again.out.substr(0, again.out.find('\n'));
  // A clean remount keeps the record: the token answers what changed since, the person's
  // edits while nothing was mounted included (an edit, a new file, a removal, a new directory).
  w.unmount();
  REQUIRE(sh("echo z >> src/util.c && echo n > docs/new.txt && rm docs/guide/real.txt && "
             "mkdir -p fresh/deep && echo f > fresh/deep/f.txt",
             repo.path())
              .status == 0);
  w.mount();
  Run kept = w.in_view(q(hook()) + " 2 " + q(later) + " | tr '\\0' '\\n' | tail -n +2 | sort");
  REQUIRE(kept.status == 0);
  CHECK(kept.out == "docs/guide/real.txt\ndocs/new.txt\nfresh/\nfresh/deep/\nfresh/deep/f.txt\n"
                    "src/util.c\n");
  // The new kernel knows no directory yet (the view watches none): the real tree is watched
  // whole, so the person's edit there is on record too.
  REQUIRE(sh("echo m >> src/main.c", repo.path()).status == 0);
  Run now = w.in_view(q(hook()) + " 2 " + q(later) + " | tr '\\0' '\\n'");
  CHECK(now.out.find("\nsrc/main.c\n") != std::string::npos);
  later = now.out.substr(0, now.out.find('\n'));
  // ws's own edits while unmounted (here `ws reset`) drop the kept record: "everything".
  w.unmount();
  REQUIRE(w.ws("reset").status == 0);
  w.mount();
  Run stale = w.in_view(q(hook()) + " 2 " + q(later) + " | tr '\\0' '\\n'");
  REQUIRE(stale.status == 0);
  std::string fresh = stale.out.substr(0, stale.out.find('\n'));
  CHECK(fresh != later);
  CHECK(stale.out == fresh + "\n/");
  // A token no daemon of this view issued: everything.
  Run other = w.in_view(q(hook()) + " 2 ws:0123456789abcdef:1 | tr '\\0' '\\n'");
  CHECK(other.out.substr(other.out.find('\n')) == "\n/");
  // Not a view: git is told to look at everything (the hook fails).
  Run outside = sh(q(hook()) + " 2 " + q(fresh), repo.path());
  CHECK(outside.status != 0);
  CHECK(outside.err.find("ws-fsmonitor: ") != std::string::npos);
}

TEST_CASE("fsmonitor: the hook works inside ws run") {
  TestRepo repo;
  MountedWorkspace w(repo);
  std::string git = "git -c core.fsmonitor=" + q(hook()) + " -c core.untrackedCache=true";
  Run r = w.ws("run -- sh -c " +
               q(git + " status --porcelain && echo agent >> src/main.c && echo new > n.txt && " +
                 git + " status --porcelain && " + q(hook()) + " 2 \"$(" + git +
                 " ls-files --debug >/dev/null; " + q(hook()) +
                 " 2 x | tr '\\0' '\\n' | head -1)\" | tr '\\0' '\\n' | tail -n +2; "
                 "GIT_TRACE_FSMONITOR=1 " +
                 git + " status --porcelain 2>&1 | grep -c 'returned success'"));
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find(" M src/main.c\n?? n.txt\n") != std::string::npos);
  CHECK(r.out.substr(r.out.size() - 2) == "1\n"); // git used the hook's answer
}

TEST_CASE(
    "fsmonitor: the agent's git asks the daemon by itself, the person's config is untouched") {
  TestRepo repo;
  REQUIRE(sh("git config core.fsmonitor /person/own-hook", repo.path()).status == 0);
  MountedWorkspace w(repo);
  Run r = w.ws("run -- sh -c " +
               q("git config core.fsmonitor && git config core.untrackedCache && "
                 "echo agent >> src/main.c && git status --porcelain && "
                 "GIT_TRACE_FSMONITOR=1 git status --porcelain 2>&1 | grep -c 'returned success'"));
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.rfind(hook() + "\ntrue\n M src/main.c\n", 0) == 0);
  CHECK(r.out.substr(r.out.size() - 2) == "1\n");
  // The person's repository keeps its own setting, and the agent's choice is its own.
  CHECK(sh("git config core.fsmonitor", repo.path()).out == "/person/own-hook\n");
  REQUIRE(w.ws("run -- git config core.fsmonitor /agent/hook").status == 0);
  REQUIRE(w.ws("umount").status == 0);
  REQUIRE(w.ws("mount").status == 0);
  CHECK(w.ws("run -- git config core.fsmonitor").out == "/agent/hook\n");
  // ws's git guard: the person's git in the view reads the real config, never the agent's.
  CHECK(sh("git config core.fsmonitor", w.view()).out == "/person/own-hook\n");
}
