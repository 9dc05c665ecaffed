// The transfer policy through the real CLI: an agent tries what an agent might, and each
// attempt gets its verdict and lands (or not) in the person's real tree exactly as it should.
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

constexpr auto npos = std::string::npos;

/// `ws apply ARGS`, required to succeed.
Run apply_ok(const MountedWorkspace& w, const std::string& args = "") {
  Run r = w.ws("apply " + args);
  CHECK_MESSAGE(r.status == 0, "ws apply " << args << ": " << r.err);
  return r;
}

std::string git_config_get(const TestRepo& repo, const std::string& key) {
  return sh("git config --get " + key, repo.path()).out;
}

/// `script` run as the agent: confined by `ws run`. (The person's own processes may not
/// write what git obeys in .git, docs/filesystem.md.)
Run agent(const MountedWorkspace& w, const std::string& script) {
  return w.ws("run -- sh -c " + q(script));
}

} // namespace

TEST_CASE("transfer: a planted .git/hooks/pre-commit is blocked and never lands") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(agent(w, "printf '#!/bin/sh\\ntouch /tmp/ws-pwned\\n' > .git/hooks/pre-commit && "
                   "chmod +x .git/hooks/pre-commit && echo more >> README.md")
              .status == 0);
  // The agent's git is its own (docs/agent-git.md): not a change that could transfer; listed
  // as the agent's git with --verbose.
  CHECK(verdict_of(w, ".git/hooks/pre-commit") == "");
  Run d = w.ws("diff --no-pager --color=never --verbose");
  CHECK(d.out.find("pre-commit") == npos);
  CHECK(d.err.find("#   A  .git/hooks/pre-commit  (the agent's git; never transferred)") != npos);

  std::string before = repo.snapshot();
  Run inc = w.ws("apply --include .git/hooks/pre-commit");
  CHECK(inc.status == 1);
  CHECK(inc.err.find("'.git/hooks/pre-commit' cannot be included: never transferred") != npos);
  CHECK(repo.snapshot() == before);

  Run a = apply_ok(w);
  CHECK(git_status(repo) == " M README.md\n");
  CHECK(!lexists(repo.path() / ".git/hooks/pre-commit"));
  // It stays the agent's, and does not linger as a change of the working tree.
  CHECK(w.ws("status").out == "");
  CHECK(w.ws("status --verbose").out.find("A .git/hooks/pre-commit  (the agent's git)") != npos);
}

TEST_CASE("transfer: core.hooksPath set in the agent's .git/config is blocked") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(agent(w, "git config core.hooksPath .githooks && mkdir .githooks && "
                   "printf '#!/bin/sh\\nexit 0\\n' > .githooks/pre-commit && "
                   "chmod +x .githooks/pre-commit")
              .status == 0);
  REQUIRE(agent(w, "git config --get core.hooksPath").out == ".githooks\n");
  CHECK(verdict_of(w, ".git/config") == ""); // the agent's own git: never a transfer
  CHECK(w.ws("status --verbose").out.find("M .git/config  (the agent's git)") != npos);
  // A new executable in a hook directory: withheld (precedence), not merely flagged.
  CHECK(verdict_of(w, ".githooks/pre-commit") == "withheld: new executable");

  Run a = apply_ok(w);
  CHECK(a.out.find("nothing to apply") != npos);
  CHECK(git_config_get(repo, "core.hooksPath") == "");
  CHECK(git_status(repo) == "");
  CHECK(!lexists(repo.path() / ".githooks"));
}

TEST_CASE("transfer: core.fsmonitor set in the agent's .git/config is blocked") {
  TestRepo repo;
  MountedWorkspace w(repo);
  fs::path marker = repo.path().parent_path() / "fsmonitor-ran";
  REQUIRE(agent(w, "git config core.fsmonitor " + q("touch " + marker.string()) +
                       " && echo more >> src/util.h")
              .status == 0);
  CHECK(verdict_of(w, ".git/config") == ""); // the agent's own git: never a transfer
  CHECK(w.ws("status --verbose").out.find("M .git/config  (the agent's git)") != npos);
  CHECK(verdict_of(w, "src/util.h") == "transfer");
  apply_ok(w);
  CHECK(git_config_get(repo, "core.fsmonitor") == "");
  CHECK(git_status(repo) == " M src/util.h\n");
  CHECK(!fs::exists(marker)); // git status in the real tree ran no monitor
}

TEST_CASE("transfer: a .pyc next to an unchanged .py is withheld") {
  TestRepo repo;
  repo.write("tool.py", "print('tool')\n");
  repo.commit_all();
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("python3 -c 'import py_compile; py_compile.compile(\"tool.py\", "
                    "cfile=\"tool.pyc\", doraise=True)'")
              .status == 0);
  CHECK(w.ws("status").out == "A tool.pyc  (WITHHELD: compiled Python (.pyc))\n");
  CHECK(verdict_of(w, "tool.pyc") == "withheld: compiled Python (.pyc)");
  Run a = apply_ok(w);
  CHECK(a.out == "nothing to apply\n");
  CHECK(git_status(repo) == "");
  CHECK(!lexists(repo.path() / "tool.pyc"));
  CHECK(repo.read("tool.py") == "print('tool')\n");
}

TEST_CASE("transfer: .venv/bin/python replaced is withheld") {
  TestRepo repo;
  repo.write(".gitignore", ".venv/\n");
  repo.commit_all();
  // A virtual environment as python3 -m venv makes it: bin/python is a symlink, ignored.
  REQUIRE(sh("mkdir -p .venv/bin && ln -s /usr/bin/python3 .venv/bin/python && "
             "printf 'home = /usr/bin\\n' > .venv/pyvenv.cfg",
             repo.path())
              .status == 0);
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("rm .venv/bin/python && printf '#!/bin/sh\\necho evil\\n' > .venv/bin/python "
                    "&& chmod +x .venv/bin/python")
              .status == 0);
  CHECK(verdict_of(w, ".venv/bin/python") ==
        "withheld: under .venv/ (a Python virtual environment)");
  Run a = apply_ok(w);
  CHECK(a.out == "nothing to apply\n");
  CHECK(fs::read_symlink(repo.path() / ".venv/bin/python") == "/usr/bin/python3");
  CHECK(git_status(repo) == "!! .venv/bin/python\n!! .venv/pyvenv.cfg\n");
}

TEST_CASE("transfer: chmod +x on a tracked script is withheld until included") {
  TestRepo repo;
  repo.write("tools/gen.sh", "#!/bin/sh\necho gen\n");
  repo.commit_all();
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("chmod +x tools/gen.sh").status == 0);
  CHECK(verdict_of(w, "tools/gen.sh") == "withheld: added exec bit");
  Run a = apply_ok(w);
  CHECK(a.out == "nothing to apply\n");
  CHECK(git_status(repo) == "");
  CHECK((fs::status(repo.path() / "tools/gen.sh").permissions() & fs::perms::owner_exec) ==
        fs::perms::none);

  Run inc = apply_ok(w, "--include tools/gen.sh");
  CHECK(inc.err.find("INCLUDED on your request") != npos);
  CHECK(git_status(repo) == " M tools/gen.sh\n");
  CHECK(sh("git diff", repo.path()).out.find("new mode 100755") != npos);
  CHECK(repo.read("tools/gen.sh") == "#!/bin/sh\necho gen\n");
}

TEST_CASE("transfer: a new executable is withheld - a new plain file transfers") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("mkdir tools && printf '#!/bin/sh\\nrm -rf ~\\n' > tools/setup.sh && "
                    "chmod 755 tools/setup.sh && echo notes > notes.txt")
              .status == 0);
  CHECK(verdict_of(w, "tools/setup.sh") == "withheld: new executable");
  CHECK(verdict_of(w, "notes.txt") == "transfer");
  Run d = w.ws("diff --no-pager --color=never");
  CHECK(d.out.find("setup.sh") == npos);
  CHECK(d.out.find("+++ b/notes.txt") != npos);
  apply_ok(w);
  CHECK(git_status(repo) == "?? notes.txt\n");
  CHECK(repo.read("notes.txt") == "notes\n");
  CHECK(!lexists(repo.path() / "tools"));
}

TEST_CASE("transfer: a symlink to /etc/passwd is withheld") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("ln -s /etc/passwd docs/users").status == 0);
  CHECK(verdict_of(w, "docs/users") == "withheld: symlink to an absolute path (/etc/passwd)");
  Run a = apply_ok(w);
  CHECK(a.out == "nothing to apply\n");
  CHECK(!lexists(repo.path() / "docs/users"));
  CHECK(git_status(repo) == "");
}

TEST_CASE("transfer: a symlink to ../../outside is withheld - one inside the project lands") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("ln -s ../../outside src/escape && ln -s ../README.md src/readme").status == 0);
  CHECK(verdict_of(w, "src/escape") ==
        "withheld: symlink pointing outside the project (../../outside)");
  CHECK(verdict_of(w, "src/readme") == "transfer");
  apply_ok(w);
  CHECK(git_status(repo) == "?? src/readme\n");
  CHECK(fs::read_symlink(repo.path() / "src/readme") == "../README.md");
  CHECK(!lexists(repo.path() / "src/escape"));
}

TEST_CASE("transfer: a file under an ignored directory is withheld - so is deleting one") {
  TestRepo repo;
  repo.write(".gitignore", "build/\n");
  repo.commit_all();
  repo.write("build/cache.txt", "the person's cache\n");
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("echo out > build/out.txt && rm build/cache.txt").status == 0);
  CHECK(verdict_of(w, "build/out.txt") == "withheld: ignored by the real repository");
  CHECK(verdict_of(w, "build/cache.txt") == "withheld: ignored by the real repository");
  // One reason for the whole directory: one line, the deletion counted apart.
  Run withheld = w.ws("diff --withheld");
  CHECK_MESSAGE(withheld.out.find("  *  build/  2 files, 1 deleted  ignored by the real "
                                  "repository\n") != npos,
                withheld.out);
  Run each = w.ws("diff --withheld --verbose");
  CHECK(each.out.find("  D  build/cache.txt  ignored by the real repository\n") != npos);
  CHECK(each.out.find("  A  build/out.txt    ignored by the real repository\n") != npos);
  Run a = apply_ok(w);
  CHECK(a.out == "nothing to apply\n");
  CHECK(git_status(repo) == "!! build/cache.txt\n");
  CHECK(repo.read("build/cache.txt") == "the person's cache\n");
}

TEST_CASE("transfer: .gitignore edited to un-ignore .venv is flagged and changes no verdict") {
  TestRepo repo;
  repo.write(".gitignore", ".venv/\nsecrets/\n");
  repo.commit_all();
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("printf '!.venv/\\n!secrets/\\n' > .gitignore && mkdir -p .venv/lib secrets && "
                    "echo 'import os' > .venv/lib/site.py && echo token > secrets/token.txt")
              .status == 0);
  // The view's git sees them now; ws asks the real repository.
  REQUIRE(w.in_view("git status --porcelain --untracked-files=all").out.find("secrets/token.txt") !=
          npos);
  CHECK(verdict_of(w, ".gitignore") == "flagged: changes what git sees: .gitignore");
  CHECK(verdict_of(w, ".venv/lib/site.py") ==
        "withheld: under .venv/ (a Python virtual environment)");
  CHECK(verdict_of(w, "secrets/token.txt") == "withheld: ignored by the real repository");
  Run d = w.ws("diff --no-pager --color=never");
  CHECK(d.err.find("# FLAGGED") != npos);
  CHECK(d.err.find("#   M  .gitignore") != npos);

  Run a = apply_ok(w);
  CHECK(a.out.find("M  .gitignore") != npos);
  CHECK(a.err.find("FLAGGED") != npos);
  CHECK(repo.read(".gitignore") == "!.venv/\n!secrets/\n");
  CHECK(git_status(repo) == " M .gitignore\n");
  CHECK(!lexists(repo.path() / ".venv"));
  CHECK(!lexists(repo.path() / "secrets"));
}

TEST_CASE("transfer: a file replaced by a directory") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("rm docs/guide/intro.txt && mkdir docs/guide/intro.txt && "
                    "echo part > docs/guide/intro.txt/part.txt")
              .status == 0);
  CHECK(w.ws("status").out == "D docs/guide/intro.txt\nA docs/guide/intro.txt/part.txt\n");
  CHECK(verdict_of(w, "docs/guide/intro.txt") == "transfer");
  CHECK(verdict_of(w, "docs/guide/intro.txt/part.txt") == "transfer");
  apply_ok(w);
  CHECK(git_status(repo) == " D docs/guide/intro.txt\n?? docs/guide/intro.txt/part.txt\n");
  CHECK(repo.read("docs/guide/intro.txt/part.txt") == "part\n");
}

TEST_CASE("transfer: a directory replaced by a file") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("rm -r docs/guide && echo now-a-file > docs/guide").status == 0);
  CHECK(w.ws("status").out == "T docs/guide\nD docs/guide/intro.txt\n");
  CHECK(verdict_of(w, "docs/guide") == "transfer");
  CHECK(verdict_of(w, "docs/guide/intro.txt") == "transfer");
  Run a = w.ws("apply");
  CHECK_MESSAGE(a.status == 0, a.err);
  CHECK(git_status(repo) == " D docs/guide/intro.txt\n?? docs/guide\n");
  CHECK(repo.read("docs/guide") == "now-a-file\n");
}

TEST_CASE("transfer: a 20 MiB file is withheld as too large - included it lands whole") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(
      w.in_view("mkdir data && yes 'a line of generated text' | head -c 20971520 > data/big.txt")
          .status == 0);
  CHECK(verdict_of(w, "data/big.txt") == "withheld: 20 MiB, larger than 10 MiB (ws.maxFileSize)");
  Run a = apply_ok(w);
  CHECK(a.out == "nothing to apply\n");
  CHECK(!lexists(repo.path() / "data"));

  apply_ok(w, "--include data/big.txt");
  CHECK(git_status(repo) == "?? data/big.txt\n");
  REQUIRE(fs::exists(repo.path() / "data/big.txt"));
  CHECK(fs::file_size(repo.path() / "data/big.txt") == 20971520);
  CHECK(
      sh("cmp " + q((w.view() / "data/big.txt").string()) + " data/big.txt", repo.path()).status ==
      0);
}

TEST_CASE("transfer: what ws status knows of a file follows an edit that keeps size and mtime") {
  // ws status keeps whether each new file is binary (ProbeCache, keyed by inode, ctime,
  // mtime and size) so that it need not read it again. The agent can rewrite a file with
  // the same size and put its mtime back (touch -d): ctime, which it cannot set, must
  // make the verdict follow.
  TestRepo repo;
  MountedWorkspace w(repo);
  // The verdict `ws status` gives (diff reads every file anyway).
  auto verdict_of = [&](const MountedWorkspace& ws, const std::string& path) {
    Run st = ws.ws("status --json");
    std::string key = "\"path\": \"" + path + "\"";
    size_t at = st.out.find(key);
    REQUIRE_MESSAGE(at != npos, (st.out + st.err));
    std::string line = st.out.substr(at, st.out.find('\n', at) - at);
    return line.find("\"reason\": \"binary content\"") != npos ? "withheld: binary content"
           : line.find("\"verdict\": \"transfer\"") != npos    ? ""
                                                               : line;
  };
  REQUIRE(w.in_view("printf 'hello world\\n' > a.txt && printf 'PNG\\000\\001\\002\\n' > b.dat")
              .status == 0);
  ::sleep(3); // older than the cache's settling time (2 s): kept
  CHECK(verdict_of(w, "a.txt") == "");
  CHECK(verdict_of(w, "b.dat") == "withheld: binary content");
  REQUIRE(fs::exists(w.state_dir() / "probe-cache"));
  CHECK(verdict_of(w, "a.txt") == ""); // answered from the cache
  CHECK(verdict_of(w, "b.dat") == "withheld: binary content");

  // Same size, same mtime, swapped kinds of content.
  REQUIRE(w.in_view("m=$(stat -c %y a.txt) && n=$(stat -c %y b.dat) && "
                    "printf 'hello\\000world\\n' > a.txt && printf 'PNG ok\\n' > b.dat && "
                    "touch -d \"$m\" a.txt && touch -d \"$n\" b.dat")
              .status == 0);
  CHECK(verdict_of(w, "a.txt") == "withheld: binary content");
  CHECK(verdict_of(w, "b.dat") == "");
  ::sleep(3);
  CHECK(verdict_of(w, "a.txt") == "withheld: binary content"); // learned again, then kept
  CHECK(verdict_of(w, "a.txt") == "withheld: binary content");
  CHECK(verdict_of(w, "b.dat") == "");
}

TEST_CASE("transfer: a binary file is withheld - included it lands byte for byte") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("mkdir assets && printf 'PNG\\000\\001\\002\\377\\r\\n' > assets/logo.png")
              .status == 0);
  CHECK(verdict_of(w, "assets/logo.png") == "withheld: binary content");
  Run a = apply_ok(w);
  CHECK(a.out == "nothing to apply\n");
  CHECK(!lexists(repo.path() / "assets"));

  Run d = w.ws("diff --no-pager --color=never --include assets/logo.png");
  CHECK(d.out.find("GIT binary patch") != npos);
  apply_ok(w, "--include assets");
  CHECK(git_status(repo) == "?? assets/logo.png\n");
  CHECK(repo.read("assets/logo.png") == std::string("PNG\0\1\2\377\r\n", 9));
}

namespace {
/// An agent writes a file named `name`; it transfers and lands under exactly that name.
/// `in_ws` is how ws names it, `in_git` how git status does and `in_patch` how the patch's
/// `+++` line does (git quotes a name with spaces only in status).
void odd_name_lands(const std::string& name, const std::string& in_ws, const std::string& in_git,
                    const std::string& in_patch) {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("mkdir -p odd && printf 'odd\\n' > " + q("odd/" + name)).status == 0);
  CHECK(w.ws("status").out == "A " + in_ws + "\n");
  CHECK(verdict_of(w, "odd/" + name) == "transfer");
  Run d = w.ws("diff --no-pager --color=never");
  CHECK(d.out.find("+++ " + in_patch) != npos);
  Run a = apply_ok(w);
  CHECK(a.out.find("A  " + in_ws + "\n") != npos);
  CHECK(git_status(repo) == "?? " + in_git + "\n");
  CHECK(repo.read("odd/" + name) == "odd\n");
}
} // namespace

TEST_CASE("transfer: a name with spaces lands") {
  odd_name_lands("two  spaces .txt", "odd/two  spaces .txt", "\"odd/two  spaces .txt\"",
                 "b/odd/two  spaces .txt");
}

TEST_CASE("transfer: a name with a newline lands") {
  std::string quoted = "\"odd/new\\nline.txt\"";
  odd_name_lands("new\nline.txt", quoted, quoted, "\"b/odd/new\\nline.txt\"");
}

TEST_CASE("transfer: a name with non-UTF-8 bytes lands") {
  std::string quoted = "\"odd/caf\\351-\\377.txt\"";
  odd_name_lands("caf\xe9-\xff.txt", quoted, quoted, "\"b/odd/caf\\351-\\377.txt\"");
}

TEST_CASE("transfer: ws status and ws diff --withheld list every changed path - deletions too") {
  TestRepo repo;
  repo.write("lib/__pycache__/mod.cpython-311.pyc", std::string("\0\1pyc", 5));
  repo.write("lib/mod.py", "x = 1\n");
  repo.commit_all();
  MountedWorkspace w(repo);
  REQUIRE(agent(w, "echo more >> README.md && rm src/util.h && rm lib/__pycache__/*.pyc && "
                   "echo all: > Makefile && echo b > lib/mod.pyc && ln -s /etc/shadow shadow && "
                   "mkdir -p .git/hooks && echo x > .git/hooks/post-checkout && "
                   "mv docs/guide/intro.txt docs/intro.txt")
              .status == 0);
  CHECK(w.ws("status").out ==
        "M Makefile  (FLAGGED: runs code on your machine: Makefile)\n"
        "M README.md\n"
        "R docs/guide/intro.txt -> docs/intro.txt\n"
        "D lib/__pycache__/mod.cpython-311.pyc  (WITHHELD: under __pycache__/ (compiled Python))\n"
        "A lib/mod.pyc  (WITHHELD: compiled Python (.pyc))\n"
        "A shadow  (WITHHELD: symlink to an absolute path (/etc/shadow))\n"
        "D src/util.h\n");
  Run withheld = w.ws("diff --withheld");
  CHECK(withheld.status == 0);
  CHECK(withheld.out ==
        "FLAGGED: in the patch, and can run code on your machine; read closely:\n"
        "  M  Makefile  runs code on your machine: Makefile\n"
        "WITHHELD: not in the patch (take one anyway with --include PATH):\n"
        "  D  lib/__pycache__/mod.cpython-311.pyc  under __pycache__/ (compiled Python)\n"
        "  A  lib/mod.pyc                          compiled Python (.pyc)\n"
        "  A  shadow                               symlink to an absolute path (/etc/shadow)\n");

  Run a = apply_ok(w);
  CHECK(git_status(repo) == " M Makefile\n M README.md\n D docs/guide/intro.txt\n D src/util.h\n"
                            "?? docs/intro.txt\n");
  CHECK(repo.read("lib/__pycache__/mod.cpython-311.pyc") == std::string("\0\1pyc", 5));
  // What landed is no longer a change of the workspace; what did not stays listed.
  CHECK(a.err.find("warning") == npos);
  CHECK(w.ws("status").out ==
        "D lib/__pycache__/mod.cpython-311.pyc  (WITHHELD: under __pycache__/ (compiled Python))\n"
        "A lib/mod.pyc  (WITHHELD: compiled Python (.pyc))\n"
        "A shadow  (WITHHELD: symlink to an absolute path (/etc/shadow))\n");
  CHECK(w.in_view("cat Makefile").out == "all:\n");
}

TEST_CASE("transfer: git apply of ws diff output gives the tree ws apply gives") {
  TestRepo repo;
  repo.write("old name.txt", "old\n");
  repo.commit_all();
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("echo more >> README.md && rm src/util.h && chmod -x scripts/run.sh && "
                    "mv 'old name.txt' \"$(printf 'new\\nname \\351.txt')\" && "
                    "echo 'all: prog' > Makefile && ln -s src/main.c main-link && "
                    "rm docs/guide/intro.txt && mkdir docs/guide/intro.txt && "
                    "echo part > docs/guide/intro.txt/part.txt && "
                    "printf 'bin\\000ary\\377' > blob.bin && echo pyc > x.pyc && "
                    "printf '#!/bin/sh\\n' > new.sh && chmod +x new.sh && echo a > 'a b.txt'")
              .status == 0);
  TempDir clean;
  REQUIRE(sh("git clone -q " + q(repo.path().string()) + " " + q((clean.path() / "c").string()))
              .status == 0);
  Run patch = w.ws("diff --no-pager --color=never --include blob.bin > " +
                   q((clean.path() / "ws.patch").string()));
  REQUIRE(patch.status == 0);
  Run git_apply = sh("git apply --whitespace=nowarn ../ws.patch", clean.path() / "c");
  CHECK_MESSAGE(git_apply.status == 0, git_apply.err);
  apply_ok(w, "--include blob.bin");
  CHECK(!lexists(repo.path() / "x.pyc"));
  CHECK(!lexists(repo.path() / "new.sh"));
  CHECK(repo.read("blob.bin") == std::string("bin\0ary\377", 8));
  CHECK(tree_listing(clean.path() / "c") == tree_listing(repo.path()));
}

TEST_CASE("transfer: ws diff --exit-code exits 1 only when something would transfer") {
  TestRepo repo;
  MountedWorkspace w(repo);
  Run none = w.ws("diff --exit-code --no-pager");
  CHECK(none.status == 0);
  CHECK(none.out == "");
  REQUIRE(w.in_view("echo pyc > a.pyc").status == 0);
  CHECK(w.ws("diff --exit-code --no-pager").status == 0); // only withheld: nothing transfers
  REQUIRE(w.in_view("echo more >> README.md").status == 0);
  Run some = w.ws("diff --exit-code --no-pager --color=never");
  CHECK(some.status == 1);
  CHECK(some.out.rfind("# ws patch ", 0) == 0);
  CHECK(w.ws("diff --exit-code --name-status").status == 1);
  CHECK(w.ws("diff --exit-code --no-pager").status == 1);
  CHECK(w.ws("diff --no-pager").status == 0);
}
