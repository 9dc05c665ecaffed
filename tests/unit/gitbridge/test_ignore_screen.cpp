// RealRepo::ignored asks libgit2 only about paths an ignore rule could match: it must answer
// exactly as libgit2 does, for every rule shape (negations, anchors, directories, globs that
// span '/', escapes, CRLF, core.ignorecase, info/exclude, core.excludesFile, nested files).
#include "gitbridge/ignore_screen.hpp"
#include "gitbridge/real_repo.hpp"
#include "gitbridge/repository.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <string>
#include <vector>

using ws::gitbridge::IgnoreScreen;
using ws::gitbridge::RealRepo;
using namespace ws::test;
namespace fs = std::filesystem;

namespace {

void write_file(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

/// Names built from the rules' own words, and ordinary ones.
std::vector<std::string> names() {
  return {"a",          "f0.txt",       "main.c", "x.log",    "X.LOG",    "build", "Build",
          "out",        "lib",          "z",      "gen",      "m0",       "cache", "tmp",
          "foo",        "foobar",       "barfoo", "keep.txt", "n.pyc",    "n.pyo", "n.py",
          "#x",         "Icon\r",       "sp ace", "tail",     "x.tar.gz", "y.gz",  ".env",
          ".env.local", "node_modules", "docs",   "a.md",     "ab",       "aXb",   "secret.key",
          "Secret.KEY", "deep",         "vendor", "v1",       "dir.d",    "q.d",   "star*"};
}

/// Checks RealRepo::ignored against libgit2 alone over many paths, in a repository whose
/// top .gitignore is `top`; returns how many of 200 ordinary paths (an agent's generated
/// files) the fast one left to libgit2.
size_t differential(const std::string& top, bool icase) {
  CAPTURE(icase);
  TempDir dir;
  fs::path repo = dir.path() / "repo";
  fs::create_directories(repo);
  REQUIRE(sh("git init -q . && git config core.ignorecase " + std::string(icase ? "true" : "false"),
             repo)
              .status == 0);
  write_file(repo / ".gitignore", top);
  write_file(repo / "gen" / ".gitignore", "m0\n!f0.txt\ntmp/\n");
  write_file(repo / "gen" / "sub" / ".gitignore", "*.c\n");
  write_file(repo / ".git" / "info" / "exclude", "secret.key\n.env*\n");
  fs::path excludes = dir.path() / "global-ignore";
  write_file(excludes, "deep\nnode_modules/\n");
  REQUIRE(sh("git config core.excludesFile " + q(excludes.string()), repo).status == 0);
  // A tracked file that a rule names is not ignored.
  write_file(repo / "x.log", "tracked\n");
  REQUIRE(sh("git add -f x.log", repo).status == 0);

  RealRepo fast(repo), slow(repo);
  std::vector<std::string> n = names();
  size_t checked = 0, ignored = 0;
  auto check = [&](const std::string& path) {
    bool want = slow.ignored_by_libgit2(path);
    CHECK_MESSAGE(fast.ignored(path) == want, "path '" << path << "'");
    ++checked;
    ignored += want;
  };
  for (const auto& a : n) {
    check(a);
    for (const auto& b : n) {
      check(a + "/" + b);
    }
    check("gen/" + a);
    check("gen/m0/" + a);
    check("gen/sub/" + a);
    check("lib/x/" + a);
    check("vendor/" + a + "/f");
    check(a + "/cache/" + a);
  }
  CHECK(checked > 1500);
  CHECK(ignored > 200); // the paths do reach the rules
  size_t before = fast.asked_libgit2();
  for (int i = 0; i < 200; ++i) {
    std::string path = "src/d" + std::to_string(i / 10) + "/f" + std::to_string(i) + ".txt";
    CHECK(fast.ignored(path) == slow.ignored_by_libgit2(path));
  }
  return fast.asked_libgit2() - before;
}

} // namespace

TEST_CASE("gitbridge::RealRepo::ignored agrees with libgit2 on every path") {
  ws::gitbridge::LibGit2 libgit2;
  const std::string screened = "# a comment\n"
                               "*.log\n"
                               "build/\n"
                               "/out\n"
                               "!keep.txt\n"
                               "docs/*.md\n"
                               "**/cache/**\n"
                               "*.py[co]\n"
                               "foo*/\n"
                               "Icon\r\r\n"
                               "tail   \n"
                               "*.tar.gz\r\n"
                               "ab?x\n"
                               "lib/**/z\n"
                               "/vendor/v*/\n"
                               "*.d/\n";
  for (bool icase : {false, true}) {
    // Rules the screen reads: libgit2 is not asked about paths no rule can match.
    CHECK(differential(screened, icase) == 0);
    // Rules it cannot read (an escape first, all wildcards): libgit2 decides every path.
    CHECK(differential(screened + "\\#x\nsp\\ ace\n", icase) == 200);
    CHECK(differential(screened + "?*\n", icase) == 200);
  }
}

TEST_CASE("gitbridge::IgnoreScreen says no only where no rule can match") {
  IgnoreScreen s;
  s.add_file("*.log\nbuild/\n!important.txt\n/out\ndocs/*.md\n");
  CHECK_FALSE(s.may_match("gen/m0/f0.txt"));
  CHECK_FALSE(s.may_match("src/main.c"));
  CHECK_FALSE(s.may_match("important.txt")); // a negation never ignores
  CHECK(s.may_match("x.log"));
  CHECK(s.may_match("a/BUILD/x")); // case folded: core.ignorecase may be on
  CHECK(s.may_match("out"));
  CHECK(s.may_match("docs/readme.md"));
  CHECK(s.may_match("x/.git/y"));        // libgit2's built-in rules
  CHECK(s.may_match("caf\xc3\xa9.txt")); // non-ASCII: left to libgit2
  IgnoreScreen all;
  all.add_file("*\n");
  CHECK(all.may_match("anything"));
  IgnoreScreen bracket;
  bracket.add_file("[abc]*\n");
  CHECK(bracket.may_match("zzz")); // nothing literal before the bracket: maybe
}
