// The plan cache (docs/transfer.md, "The plan cache"): a command that reuses the last plan
// must say exactly what a full walk says. After each of many seeded random steps (the
// agent's writes, renames, deletes, chmod, symlinks, ignore files, nested repositories and
// commits in the view; the person's edits, commits, excludes and ws config in the real tree;
// clean remounts with edits while unmounted; a status with no daemon; `ws reset` of a path;
// `ws apply --check`, which stages in the real tree),
// `ws status --json` and `ws diff` with the cache equal the same commands with
// WS_PLAN_CACHE=0, and the cache is used where nothing changed.
#include "tests/integration/plan_cache_support.hpp"
#include "tests/integration/random_steps.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace ws::test;

namespace {

/// One step: a shell command run in the view (the agent's side) or in the real tree (the
/// person's), made from the seeded generator.
std::string random_step(std::mt19937& rng, std::string& where) {
  static const std::vector<std::string> dirs{"", "src/", "lib/sub/", "build/", "env/", "n d/"};
  static const std::vector<std::string> names{"a.c", "b.txt", "c.o", "run.sh", "x.bin", "n"};
  StepDraw s = draw_step(rng, dirs, names, 3);
  where = s.where;
  const std::string &path = s.path, &path2 = s.path2, &dir = s.dir, &dir2 = s.dir2;
  const std::string &d = s.d, &d2 = s.d2, &n = s.n, &n2 = s.n2, &text = s.text;
  switch (std::uniform_int_distribution<int>(0, 17)(rng)) {
  case 0:
  case 1:
    return "mkdir -p " + dir + " && echo " + text + " >> " + path;
  case 2:
    return "mkdir -p " + dir + " && printf 'a\\0b" + text + "' > " + path; // binary
  case 3:
    return "rm -f " + path;
  case 4:
    return "[ -f " + path + " ] && mkdir -p " + dir2 + " && mv -f " + path + " " + path2 + " || :";
  case 5:
    return d.empty() || d2.empty() || d == d2
               ? ":"
               : "[ -d " + dir + " ] && [ ! -e " + dir2 + " ] && mkdir -p " + dir2 + " && rmdir " +
                     dir2 + " && mv " + dir + " " + dir2 + " || :";
  case 6:
    return d.empty() ? ":" : "rm -rf " + dir;
  case 7:
    return "[ -f " + path + " ] && chmod " + (rng() % 2 ? "+x " : "-x ") + path + " || :";
  case 8:
    return "[ -f " + path + " ] && printf x | dd of=" + path +
           " bs=1 count=1 conv=notrunc status=none || :";
  case 9:
    return "mkdir -p " + dir + " && ln -sfn " + (rng() % 2 ? q("../" + n2) : q("/etc/passwd")) +
           " " + q(d + "link");
  case 10:
    return "mkdir -p " + dir + " && echo " + q(rng() % 2 ? "*.o" : n2) + " >> " +
           q(d + ".gitignore");
  case 11:
    return rng() % 3 == 0
               ? "mkdir -p " + dir + " && echo home=/usr > " + q(d + "pyvenv.cfg")
               : "mkdir -p " + q(d + "nested/.git") + " && echo x > " + q(d + "nested/f");
  case 12:
    if (where == "real") {
      return "git add -A >/dev/null 2>&1 && git -c user.name=p -c user.email=p@p commit -qm p "
             ">/dev/null 2>&1 || :";
    }
    return "git add -A >/dev/null 2>&1 && git -c user.name=a -c user.email=a@a commit -qm a "
           ">/dev/null 2>&1 || :";
  case 13:
    where = "real";
    return "echo " + q(rng() % 2 ? "*.txt" : n) + " >> .git/info/exclude";
  case 14:
    where = "real";
    return rng() % 2 ? "git config ws.withhold " + q("*" + n2)
                     : "git config --unset ws.withhold || :";
  case 15:
    return "[ -f " + path + " ] && touch -d '2001-01-01' " + path + " || :";
  default:
    return "mkdir -p " + dir + " && printf '#!/bin/sh\\necho " + text + "\\n' > " + path +
           " && chmod +x " + path;
  }
}

struct Outputs {
  std::string status, diff;
  bool hit = false;       ///< status reused the plan
  bool updated = false;   ///< status brought the kept plan up to date with the changed names
  bool patch_hit = false; ///< diff reused the patch
};

Outputs look(const MountedWorkspace& w, bool cache) {
  if (!cache) {
    ::setenv("WS_PLAN_CACHE", "0", 1);
  }
  Outputs o;
  Run s = w.ws("-vv status --json");
  Run d = w.ws("-vv diff --no-pager");
  ::unsetenv("WS_PLAN_CACHE");
  o.status = std::to_string(s.status) + "\n" + s.out;
  o.diff = std::to_string(d.status) + "\n" + d.out;
  o.hit = s.err.find("plan cache: the plan of now") != std::string::npos;
  o.updated = s.err.find("plan cache: updated for") != std::string::npos;
  o.patch_hit = d.err.find("patch cache: the patch of now") != std::string::npos;
  return o;
}

} // namespace

TEST_CASE("plan cache: ws status and ws diff with it equal a full walk, over random steps") {
  TestRepo repo;
  repo.write(".gitignore", "*.o\nbuild/\n");
  repo.write("lib/sub/deep.c", "deep\n");
  repo.commit_all();
  MountedWorkspace w(repo);
  const unsigned seed = test_seed(10);
  std::mt19937 rng(seed);
  std::ostringstream log;
  const int steps = 70;
  int hits = 0, misses_after_change = 0, patch_hits = 0, updates = 0;
  for (int i = 0; i < steps; ++i) {
    std::string where, step;
    int kind = std::uniform_int_distribution<int>(0, 99)(rng);
    bool mounted = true;
    if (kind < 4) {
      // A clean remount, with the person's edit while nothing ran.
      std::string offline = random_step(rng, where);
      step = "(unmount; in the real tree: " + offline + "; mount)";
      w.unmount();
      sh("(cd " + q(repo.path().string()) + " && " + offline + ") >/dev/null 2>&1");
      w.mount();
      where.clear();
    } else if (kind < 6) {
      // No daemon: a full walk; then the person edits before the next mount.
      std::string offline = random_step(rng, where);
      step = "(unmount; status; in the real tree: " + offline + "; mount)";
      w.unmount();
      mounted = false;
      Outputs cached = look(w, true), full = look(w, false);
      CHECK_MESSAGE(!cached.hit, "a plan was reused with no daemon to vouch for it");
      CHECK(cached.status == full.status);
      sh("(cd " + q(repo.path().string()) + " && " + offline + ") >/dev/null 2>&1");
      w.mount();
      where.clear();
    } else if (kind < 10) {
      step = "(ws apply --check)"; // stages in the real tree, then removes what it staged
      // From the kept id and manifest (kept_check.hpp) when nothing changed since the last
      // diff or check: the same answer as a check that reads everything.
      Run kept = w.ws("apply --check");
      ::setenv("WS_PLAN_CACHE", "0", 1);
      Run full = w.ws("apply --check");
      ::unsetenv("WS_PLAN_CACHE");
      CHECK_MESSAGE(kept.status == full.status, "seed " << seed << ", step " << i << "\n"
                                                        << kept.err << full.err << log.str());
      CHECK_MESSAGE(kept.out == full.out, "seed " << seed << ", step " << i << "\n" << log.str());
    } else if (kind < 12) {
      step = "(ws reset src)";
      w.ws("reset src"); // fails when nothing changed there
    } else {
      step = random_step(rng, where);
    }
    (void)mounted;
    log << i << " " << where << ": " << step << "\n";
    if (!where.empty()) {
      std::string cwd = where == "real" ? repo.path().string() : w.view().string();
      sh("(cd " + q(cwd) + " && " + step + ") >/dev/null 2>&1");
    }
    // The first look after a change plans (and keeps) it; the second may reuse it; the
    // third walks in full. All three must agree.
    Outputs first = look(w, true);
    Outputs second = look(w, true);
    Outputs full = look(w, false);
    hits += second.hit ? 1 : 0;
    patch_hits += second.patch_hit ? 1 : 0;
    misses_after_change += first.hit ? 0 : 1;
    updates += first.updated ? 1 : 0;
    if (first.status != full.status || second.status != full.status || first.diff != full.diff ||
        second.diff != full.diff) {
      FAIL("seed " << seed << ", step " << i << ":\nfirst:\n"
                   << first.status << first.diff << "\nsecond:\n"
                   << second.status << second.diff << "\nfull walk:\n"
                   << full.status << full.diff << "\nsteps:\n"
                   << log.str());
    }
  }
  // The cache is in use: nearly every second look, when nothing changed in between.
  CHECK(hits > steps * 3 / 4);
  CHECK(misses_after_change > steps / 4);
  CHECK(patch_hits > steps * 3 / 4);
  MESSAGE("plans updated by name: " << updates << " of " << steps);
}

TEST_CASE("plan cache: what the record cannot see turns it off") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("echo new > new.txt").status == 0);
  auto hit = [&] {
    Run r = w.ws("-vv status");
    REQUIRE(r.status == 0);
    return r.err.find("plan cache: the plan of now") != std::string::npos;
  };
  hit();
  CHECK(hit());
  // A config file that includes others: their content is not stamped.
  REQUIRE(sh("git config include.path /nonexistent", repo.path()).status == 0);
  hit();
  CHECK(!hit());
  REQUIRE(sh("git config --unset include.path", repo.path()).status == 0);
  hit();
  CHECK(hit());
  // The person's index changed (the record leaves the real .git out): planned again.
  REQUIRE(sh("echo t > tracked.txt && git add tracked.txt", repo.path()).status == 0);
  CHECK(!hit());
  CHECK(hit());
  // The agent's HEAD moved (its .git is left out too).
  REQUIRE(w.in_view("git add -A && git -c user.name=a -c user.email=a@a commit -qm a").status == 0);
  CHECK(!hit());
  CHECK(hit());
  // `ws apply --check` stages in the real tree and removes it: the plan still holds.
  REQUIRE(w.ws("apply --check").status == 0);
  CHECK(hit());
  // ws diff twice: the second prints the patch it kept, byte for byte.
  Run d1 = w.ws("-vv diff --no-pager");
  Run d2 = w.ws("-vv diff --no-pager");
  CHECK(d2.err.find("patch cache: the patch of now") != std::string::npos);
  CHECK(d1.out == d2.out);
  // A damaged cache is none.
  REQUIRE(sh("printf garbage >> plan-cache", w.state_dir()).status == 0);
  CHECK(!hit());
  CHECK(hit());
}

TEST_CASE("plan cache: ws apply --check from the kept manifest says what reading everything says") {
  TestRepo repo;
  repo.write("edited.txt", "one\ntwo\n");
  repo.commit_all();
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("mkdir -p gen/a gen/b && for i in 1 2 3; do echo $i > gen/a/f$i; done && "
                    "echo b > gen/b/g && printf 'x\\0y' > gen/b/bin && ln -s a gen/link && "
                    "echo mine > both.txt && echo three >> edited.txt")
              .status == 0);
  REQUIRE(sh("echo yours > both.txt", repo.path()).status == 0); // both added: a conflict
  auto check = [&](bool cache, const std::string& args = "") {
    if (!cache) {
      ::setenv("WS_PLAN_CACHE", "0", 1);
    }
    Run r = w.ws("-vv apply --check" + args);
    ::unsetenv("WS_PLAN_CACHE");
    return r;
  };
  Run full = check(false);
  CHECK(full.status != 0);
  CHECK(full.err.find("both.txt") != std::string::npos);
  Run first = check(true); // reads everything, keeps the id and manifest
  CHECK(first.err.find("manifest cache: the id of now") == std::string::npos);
  Run kept = check(true);
  CHECK(kept.err.find("manifest cache: the id of now") != std::string::npos);
  CHECK(kept.status == full.status);
  CHECK(kept.out == full.out);
  // Without the conflict: the same id as a full check, and --expect takes it.
  REQUIRE(sh("rm both.txt", repo.path()).status == 0);
  Run d = w.ws("diff --no-pager");
  std::string id = d.out.substr(d.out.find("# ws patch ") + 11, 64);
  Run full2 = check(false);
  Run kept2 = check(true);
  CHECK(kept2.err.find("manifest cache: the id of now") != std::string::npos);
  CHECK(kept2.status == 0);
  CHECK(kept2.out == full2.out);
  CHECK(kept2.out.find(id) != std::string::npos);
  CHECK(check(true, " --expect " + id).status == 0);
  // Any change since: the manifest is not the id of now; the check reads again and the id
  // moves with the content, and --expect of the old one is refused.
  REQUIRE(w.in_view("echo 4 > gen/a/f1").status == 0);
  Run after = check(true, " --expect " + id);
  CHECK(after.err.find("manifest cache: the id of now") == std::string::npos);
  CHECK(after.status != 0);
  CHECK(after.err.find("gen/a/f1") != std::string::npos);
  // The person puts a file where a new one lands: the kept manifest is not used blindly.
  Run again = check(true);
  REQUIRE(again.status == 0);
  REQUIRE(sh("mkdir -p gen/b && echo theirs > gen/b/g", repo.path()).status == 0);
  Run over = check(true);
  Run over_full = check(false);
  CHECK(over.status != 0);
  CHECK(over.status == over_full.status);
  CHECK(over.out == over_full.out);
  CHECK(over.err.find("gen/b/g") != std::string::npos);
}

namespace {

/// One step of mostly plain edits (what an agent does most), now and then one of the names
/// that decide other paths' verdicts, which must turn the update by name off.
std::string plain_step(std::mt19937& rng, std::string& where) {
  static const std::vector<std::string> dirs{"", "src/", "lib/x/", "gen/", "gen/m1/", "docs/"};
  static const std::vector<std::string> names{"a.c", "b.c", "y.txt", "r.md", "tool.sh", "n.bin"};
  StepDraw s = draw_step(rng, dirs, names, 4);
  where = s.where;
  const std::string &path = s.path, &dir = s.dir, &dir2 = s.dir2;
  const std::string &d = s.d, &d2 = s.d2, &n = s.n, &text = s.text;
  switch (std::uniform_int_distribution<int>(0, 20)(rng)) {
  case 0:
  case 1:
  case 2:
    return "mkdir -p " + dir + " && echo " + text + " >> " + path;
  case 3:
    return "mkdir -p " + dir + " && printf 'a\\0b" + text + "' > " + path;
  case 4:
  case 5:
    return "rm -f " + path;
  case 6:
    return "[ -f " + path + " ] && chmod " + (rng() % 2 ? "+x " : "-x ") + path + " || :";
  case 7:
    return d.empty() ? ":" : "rm -rf " + dir;
  case 8:
    return d.empty() ? ":"
                     : "mkdir -p " + dir + " && for i in 1 2 3; do echo $i > " + dir + "/f$i; done";
  case 9: // a directory moved whole (its new files move with it)
    return d.empty() || d2.empty() || d == d2
               ? ":"
               : "[ -d " + dir + " ] && [ ! -e " + dir2 + " ] && mkdir -p " + dir2 + " && rmdir " +
                     dir2 + " && mv " + dir + " " + dir2 + " || :";
  case 10: // a file renamed (a tracked one pairs as a rename)
    return "[ -f " + path + " ] && mkdir -p " + dir2 + " && mv -f " + path + " " + q(d2 + "m.txt") +
           " || :";
  case 11:
    return "mkdir -p " + dir + " && printf '#!/bin/sh\\necho " + text + "\\n' > " + path +
           " && chmod +x " + path;
  case 12:
    where = "view";
    return "[ -f " + path + " ] && touch " + path + " || :; rm -f link */link */*/link";
  // The names that decide others' verdicts, each now and then.
  case 13:
    return "mkdir -p " + dir + " && echo " + q(rng() % 2 ? "*.bin" : n) + " >> " +
           q(d + ".gitignore") + (rng() % 3 == 0 ? " && rm -f " + q(d + ".gitignore") : "");
  case 14:
    return rng() % 2 ? "mkdir -p " + dir + " && echo home=/usr > " + q(d + "pyvenv.cfg")
                     : "rm -f " + q(d + "pyvenv.cfg");
  case 15:
    return rng() % 2 ? "mkdir -p " + q(d + "nested/.git") + " && echo x > " + q(d + "nested/f")
                     : "rm -rf " + q(d + "nested");
  case 16: // a bare repository laid out in the open
    return rng() % 2
               ? "mkdir -p " + q(d + "bare/objects") + " " + q(d + "bare/refs") +
                     " && echo ref > " + q(d + "bare/HEAD") + " && echo c > " + q(d + "bare/config")
               : "rm -rf " + q(d + "bare");
  case 17: // a symlink, and their removal (the plan is free of symlinks again)
    where = "view";
    return rng() % 4 == 0 ? "mkdir -p " + dir + " && ln -sfn " + q(rng() % 2 ? "../src" : "/etc") +
                                " " + q(d + "link")
                          : "rm -f link src/link lib/x/link gen/link gen/m1/link docs/link";
  case 18:
    where = "real";
    return "mkdir -p " + dir + " && echo theirs" + text + " > " + path;
  case 19: // the person's tracked symlink retargeted or removed
    where = "real";
    return rng() % 2 ? "ln -sfn " + q(rng() % 2 ? "src/a.c" : "tool.sh") + " alias.c"
                     : "rm -f alias.c";
  default:
    where = "real";
    return d.empty() ? ":" : "rm -rf " + dir;
  }
}

} // namespace

TEST_CASE("plan cache: a plan brought up to date by name equals a full walk, over random steps") {
  TestRepo repo;
  commit_small_project(repo);
  MountedWorkspace w(repo);
  const unsigned seed = test_seed(21);
  std::mt19937 rng(seed);
  std::ostringstream log;
  const int steps = 80;
  int updates = 0;
  auto status = [&](bool cache) {
    if (!cache) {
      ::setenv("WS_PLAN_CACHE", "0", 1);
    }
    Run r = w.ws("-vv status --json");
    ::unsetenv("WS_PLAN_CACHE");
    return r;
  };
  status(true);
  for (int i = 0; i < steps; ++i) {
    std::string where;
    std::string step = plain_step(rng, where);
    log << i << " " << where << ": " << step << "\n";
    std::string cwd = where == "real" ? repo.path().string() : w.view().string();
    sh("(cd " + q(cwd) + " && " + step + ") >/dev/null 2>&1");
    Run kept = status(true);
    Run full = status(false);
    updates += kept.err.find("plan cache: updated for") != std::string::npos ? 1 : 0;
    if (std::getenv("WS_TEST_VERBOSE")) {
      std::istringstream lines(kept.err);
      for (std::string line; std::getline(lines, line);) {
        if (line.find("plan cache:") != std::string::npos) {
          MESSAGE(i << " " << step << " -> " << line);
        }
      }
    }
    if (kept.status != full.status || kept.out != full.out) {
      FAIL("seed " << seed << ", step " << i << ":\nupdated:\n"
                   << kept.out << kept.err << "\nfull walk:\n"
                   << full.out << "\nsteps:\n"
                   << log.str());
    }
    if (i % 10 == 9) { // the patch of an updated plan too
      Run d = w.ws("diff --no-pager");
      ::setenv("WS_PLAN_CACHE", "0", 1);
      Run full_diff = w.ws("diff --no-pager");
      ::unsetenv("WS_PLAN_CACHE");
      CHECK_MESSAGE(d.out == full_diff.out, "seed " << seed << ", step " << i << "\n" << log.str());
    }
  }
  // Most plain steps update by name; the special names and symlinks plan in full.
  MESSAGE("plans updated by name: " << updates << " of " << steps);
  CHECK(updates > steps / 4);
}

// The kept id, manifest and patch text brought up to date by name (src/transfer/
// patch_update.hpp): after each of many seeded steps, `ws diff` (text and id, --json, a
// pathspec) and `ws apply --check` (its answer and id) equal the same commands reading
// everything. Reviewed must be what lands: an id or text that differs is a security bug.
TEST_CASE("plan cache: the kept patch and id brought up to date by name equal a full read") {
  TestRepo repo;
  commit_small_project(repo);
  MountedWorkspace w(repo);
  // Many files the patch has a segment each for, as an agent's generated tree.
  REQUIRE(w.in_view("for d in m1 m2 m3; do mkdir -p gen/$d && for i in 1 2 3 4 5 6 7 8; do "
                    "echo $d $i > gen/$d/f$i.txt; done; done && echo x >> src/a.c")
              .status == 0);
  const char* env_seed = std::getenv("WS_TEST_SEED"); // other interleavings, by hand
  const unsigned seed = env_seed ? static_cast<unsigned>(std::atoi(env_seed)) : 5;
  std::mt19937 rng(seed);
  std::ostringstream log;
  const int steps = 60;
  int text_updates = 0, id_updates = 0;
  auto compare = [&](const std::string& args, int i) {
    Run kept = with_cache(w, "-vv " + args, true);
    Run full = with_cache(w, args, false);
    text_updates += kept.err.find("patch cache: updated for") != std::string::npos ? 1 : 0;
    id_updates += kept.err.find("manifest cache: updated for") != std::string::npos ? 1 : 0;
    if (std::getenv("WS_TEST_VERBOSE")) {
      std::istringstream lines(kept.err);
      for (std::string line; std::getline(lines, line);) {
        if (line.find("cache:") != std::string::npos) {
          MESSAGE(i << " ws " << args << " -> " << line);
        }
      }
    }
    if (kept.status != full.status || kept.out != full.out) {
      FAIL("seed " << seed << ", step " << i << ", ws " << args << ":\nkept:\n"
                   << kept.out << kept.err << "\nfull:\n"
                   << full.out << full.err << "\nsteps:\n"
                   << log.str());
    }
    return kept;
  };
  compare("diff --no-pager", -1);
  for (int i = 0; i < steps; ++i) {
    std::string where;
    std::string step = plain_step(rng, where);
    if (rng() % 3 == 0) {
      where = "view"; // more new files, most of what an agent leaves
      step = "mkdir -p gen/m" + std::to_string(rng() % 5) + " && echo " +
             std::to_string(rng() % 100) + " > gen/m" + std::to_string(rng() % 5) + "/f" +
             std::to_string(rng() % 12) + ".txt || :";
    }
    log << i << " " << where << ": " << step << "\n";
    std::string cwd = where == "real" ? repo.path().string() : w.view().string();
    sh("(cd " + q(cwd) + " && " + step + ") >/dev/null 2>&1");
    // The kept patch and manifest are brought up to date by whichever command comes first,
    // each from its own age: diff only, check only, both in either order, a status between.
    switch (rng() % 6) {
    case 0:
      compare("diff --no-pager", i);
      break;
    case 1:
      compare("apply --check", i);
      break;
    case 2:
      compare("diff --no-pager", i);
      compare("apply --check", i);
      break;
    case 3:
      compare("apply --check", i);
      compare("diff --no-pager", i);
      break;
    case 4:
      w.ws("status");
      compare("diff --json", i);
      break;
    default: {
      // The id a person reviewed lands (its check), as a full check takes it.
      Run d = compare("diff --no-pager", i);
      size_t at = d.out.find("# ws patch ");
      if (at != std::string::npos) {
        std::string id = d.out.substr(at + 11, 64);
        compare("apply --check --expect " + id, i);
      }
      if (rng() % 3 == 0) {
        compare("diff --no-pager gen", i); // another key: the kept ones are set aside
      }
      break;
    }
    }
  }
  MESSAGE("patch texts updated by name: " << text_updates << ", ids: " << id_updates);
  CHECK(text_updates > steps / 6);
  CHECK(id_updates > steps / 20);
}
