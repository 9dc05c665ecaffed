// Apply never undoes the person's work without saying so (docs/transfer.md): bases for every
// first touch, the agent's git putting back its own versions, resets that drop the person's
// commits, --conflicts=markers, --index, and ignore files the agent wrote. Real git, real
// tar and cp, in a view; the agent confined by `ws run`.
#include "tests/integration/apply_support.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

constexpr auto npos = std::string::npos;
Run agent(const MountedWorkspace& w, const std::string& script) {
  Run r = run_as_agent(w, script);
  INFO("agent: " << script << "\n" << r.out << r.err);
  CHECK(r.status == 0);
  return r;
}

void person(const TestRepo& repo, const std::string& script) {
  Run r = sh(script, repo.path());
  INFO("person: " << script << "\n" << r.out << r.err);
  REQUIRE(r.status == 0);
}

/// A repository whose notes.txt has 20 lines, committed.
void add_notes(const TestRepo& repo) {
  repo.write("notes.txt", lines(20));
  person(repo,
         std::string(k_person_git) + " add notes.txt && " + k_person_git + " commit -qm notes");
}

} // namespace

TEST_CASE("apply safety: tar -x and cp --remove-destination over a file keep its base - the "
          "person's later edit merges") {
  TestRepo repo;
  add_notes(repo);
  repo.write("other.txt", lines(20));
  person(repo, "git add other.txt && " + std::string(k_person_git) + " commit -qm other");
  MountedWorkspace w(repo);
  // The agent's first touch of each file unlinks it: tar -x, cp --remove-destination.
  agent(w, "mkdir -p /tmp/t && sed '2s/.*/agent 2/' notes.txt > /tmp/t/notes.txt && "
           "tar -C /tmp/t -cf /tmp/t.tar notes.txt && tar -xf /tmp/t.tar && "
           "sed '3s/.*/agent 3/' other.txt > /tmp/other && cp --remove-destination /tmp/other "
           "other.txt");
  repo.write("notes.txt", lines(20, 18, "person 18"));
  repo.write("other.txt", lines(20, 19, "person 19"));
  Run a = w.ws("apply");
  INFO(a.out << a.err);
  CHECK(a.status == 0);
  CHECK(a.out.find("M  notes.txt  (merged with your edits)") != npos);
  CHECK(a.out.find("M  other.txt  (merged with your edits)") != npos);
  std::string notes = lines(20, 18, "person 18");
  notes.replace(notes.find("line 2\n"), 6, "agent 2");
  CHECK(repo.read("notes.txt") == notes);
  std::string other = lines(20, 19, "person 19");
  other.replace(other.find("line 3\n"), 6, "agent 3");
  CHECK(repo.read("other.txt") == other);
}

TEST_CASE("apply safety: a base over 100 MiB is not kept, and apply says exactly that") {
  TestRepo repo;
  person(repo, "truncate -s 101M big.txt");
  MountedWorkspace w(repo);
  agent(w, "rm big.txt && echo agent > big.txt");
  person(repo, "echo person >> big.txt");
  Run a = w.ws("apply");
  CHECK(a.status == 1);
  CHECK_MESSAGE(a.err.find("you changed big.txt and the version the agent started from was not "
                           "kept: it is over the 100 MiB ws keeps") != npos,
                a.err);
}

TEST_CASE("apply safety: --conflicts=markers writes the markers it says it writes") {
  TestRepo repo;
  add_notes(repo);
  repo.write("data.bin", std::string("\0\1\2binary", 9));
  person(repo, "git add data.bin && " + std::string(k_person_git) + " commit -qm bin");
  MountedWorkspace w(repo);
  agent(w, sed_line("notes.txt", 5, "agent 5") + " && printf 'agent\\0' > data.bin");
  repo.write("notes.txt", lines(20, 5, "person 5"));
  repo.write("data.bin", std::string("person\0", 7));
  Run a = w.ws("apply --conflicts=markers --include data.bin");
  INFO(a.out << a.err);
  CHECK(a.status == 1);
  CHECK(a.out.find("M  notes.txt  (CONFLICT markers written)") != npos);
  std::string notes = repo.read("notes.txt");
  CHECK(notes.find("<<<<<<<") != npos);
  CHECK(notes.find("person 5\n=======\nagent 5\n") != npos);
  CHECK(notes.find(">>>>>>>") != npos);
  // A binary file has no markers to write: said so, and left as it is.
  CHECK(a.out.find("M  data.bin  (CONFLICT, left as it is: ") != npos);
  CHECK(repo.read("data.bin") == std::string("person\0", 7));
}

TEST_CASE("apply safety: --index stages exactly the agent's change - the person's unstaged edit "
          "stays unstaged") {
  TestRepo repo;
  add_notes(repo);
  MountedWorkspace w(repo);
  agent(w, sed_line("notes.txt", 2, "agent 2"));
  repo.write("notes.txt", lines(20, 18, "person 18"));
  Run a = w.ws("apply --index");
  INFO(a.out << a.err);
  REQUIRE(a.status == 0);
  Run cached = sh("git diff --cached -U0 notes.txt | grep '^[-+][^-+]'", repo.path());
  CHECK(cached.out == "-line 2\n+agent 2\n");
  Run unstaged = sh("git diff -U0 notes.txt | grep '^[-+][^-+]'", repo.path());
  CHECK(unstaged.out == "-line 18\n+person 18\n");
}

TEST_CASE("apply safety: the agent's git add, the person's commit, the agent's commit - the "
          "person's commit stays") {
  TestRepo repo;
  add_notes(repo);
  MountedWorkspace w(repo);
  agent(w, "echo agent >> src/util.c && git add src/util.c");
  repo.write("notes.txt", lines(20, 7, "person 7"));
  person(repo, std::string(k_person_git) + " commit -qam person-7");
  Run c = agent(w, std::string(k_agent_git) +
                       " commit -qm agent-util && git show --stat --format= HEAD | head -1");
  CHECK(c.out.find("src/util.c") != npos);
  CHECK(c.out.find("notes.txt") == npos);
  // Its checkout of the file the person changed puts back its own start: withheld, not landed.
  agent(w, "git checkout -- notes.txt");
  CHECK(verdict_of(w, "notes.txt")
            .find("withheld: the agent's git put back the version it "
                  "started from over your edit") == 0);
  Run check = w.ws("apply --check");
  CHECK(check.err.find("notes.txt") != npos);
  Run a = w.ws("apply");
  INFO(a.out << a.err);
  CHECK(a.status == 0);
  CHECK(repo.read("notes.txt") == lines(20, 7, "person 7"));
  CHECK(repo.read("src/util.c").find("agent\n") != npos);
}

TEST_CASE("apply safety: git stash and stash pop, rebase -i squash, cherry-pick, a branch switch "
          "and back leave the person's work alone") {
  TestRepo repo;
  add_notes(repo);
  MountedWorkspace w(repo);
  // The person's commit arrives while the agent works; the agent's git sees its file changed.
  repo.write("notes.txt", lines(20, 9, "person 9"));
  person(repo, std::string(k_person_git) + " commit -qam person-9");
  std::string g = k_agent_git;
  agent(w, "echo one >> src/util.c && git stash -q && git stash pop -q && " + g +
               " commit -qam one && echo two >> src/util.c && " + g + " commit -qam two && " +
               "GIT_EDITOR=true GIT_SEQUENCE_EDITOR='sed -i 2s/^pick/squash/' " + g +
               " rebase -q --autostash -i HEAD~2 && git checkout -q -b side && echo side >> "
               "src/main.c && " +
               g +
               " commit -qam side && git checkout -q main && git cherry-pick side >/dev/null && " +
               "git checkout -q side && git checkout -q main && git log --format=%s");
  Run log = w.ws("run -- git log --format=%s");
  CHECK(log.out.find("side\none\n") == 0);
  CHECK(verdict_of(w, "notes.txt") == "");
  Run a = w.ws("apply");
  INFO(a.out << a.err);
  CHECK(a.status == 0);
  CHECK(repo.read("notes.txt") == lines(20, 9, "person 9"));
  CHECK(repo.read("src/util.c").find("one\ntwo\n") != npos);
  CHECK(repo.read("src/main.c").find("side\n") != npos);
  // What landed is gone from the workspace, the agent's git included: nothing lingers but the
  // note that the person's HEAD moved since the workspace began.
  Run st = w.ws("status");
  CHECK_MESSAGE(st.out.rfind("your HEAD: 1 commit since the workspace began", 0) == 0, st.out);
  CHECK(st.out.find('\n') == st.out.size() - 1);
}

TEST_CASE("apply safety: git clean -fdx and git gc by the agent remove nothing of the person's") {
  TestRepo repo;
  repo.write(".gitignore", "build/\n");
  person(repo, "git add .gitignore && " + std::string(k_person_git) + " commit -qm ignore");
  repo.write("scratch.txt", "the person's own notes\n");
  repo.write("build/out.o", "object\n");
  MountedWorkspace w(repo);
  agent(w, "echo agent >> README.md && " + std::string(k_agent_git) +
               " commit -qam readme && git clean -qfdx && git gc -q && git status --porcelain");
  CHECK(verdict_of(w, "scratch.txt").find("withheld: not tracked by the agent's git") == 0);
  CHECK(verdict_of(w, "build/out.o") == "withheld: ignored by the real repository");
  Run a = w.ws("apply");
  INFO(a.out << a.err);
  CHECK(a.status == 0);
  CHECK(repo.read("scratch.txt") == "the person's own notes\n");
  CHECK(repo.read("build/out.o") == "object\n");
  CHECK(repo.read("README.md").find("agent\n") != npos);
}

TEST_CASE("apply safety: the agent's git reset --hard HEAD~1 is shown as undoing the person's "
          "commit, and withheld") {
  TestRepo repo;
  add_notes(repo);
  std::string commit = sh("git rev-parse --short=7 HEAD", repo.path()).out.substr(0, 7);
  MountedWorkspace w(repo);
  agent(w, "git reset -q --hard HEAD~1");
  Run st = w.ws("status");
  INFO(st.out);
  CHECK(st.out.find("agent: its HEAD no longer has 1 commit it started with (a reset or rebase): " +
                    commit + " notes") != npos);
  CHECK(st.out.find("D notes.txt  (WITHHELD: undoes your commit " + commit + " 'notes'") != npos);
  Run a = w.ws("apply");
  CHECK(a.status == 0);
  CHECK(a.out.find("nothing to apply") != npos);
  CHECK(repo.read("notes.txt") == lines(20));
  Run inc = w.ws("apply --include notes.txt");
  CHECK(inc.status == 0);
  CHECK(!fs::exists(repo.path() / "notes.txt")); // taken on purpose, it lands
}

TEST_CASE("apply safety: ignore files the agent writes only ever withhold") {
  TestRepo repo;
  repo.write(".gitignore", "*.log\n");
  person(repo, "git add .gitignore && " + std::string(k_person_git) + " commit -qm ignore");
  MountedWorkspace w(repo);
  agent(w, "mkdir -p .pytest_cache/v/cache && printf '# Created by pytest automatically.\\n*\\n' "
           "> .pytest_cache/.gitignore && echo '[]' > .pytest_cache/v/cache/nodeids && "
           "mkdir -p logs && printf '!debug.log\\n' > logs/.gitignore && echo x > logs/debug.log "
           "&& echo kept > kept.txt");
  CHECK(verdict_of(w, ".pytest_cache/v/cache/nodeids") ==
        "withheld: ignored by a .gitignore the agent wrote");
  CHECK(verdict_of(w, ".pytest_cache/.gitignore") ==
        "withheld: ignored by a .gitignore the agent wrote");
  CHECK(verdict_of(w, "logs/debug.log") == "withheld: ignored by the real repository");
  CHECK(verdict_of(w, "kept.txt") == "transfer");
  Run a = w.ws("apply --index");
  CHECK(a.status == 0);
  CHECK(!fs::exists(repo.path() / ".pytest_cache"));
  CHECK(!fs::exists(repo.path() / "logs/debug.log"));
  CHECK(sh("git diff --cached --name-only", repo.path()).out == "kept.txt\nlogs/.gitignore\n");
}
