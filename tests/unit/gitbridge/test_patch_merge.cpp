// ws diff's patch (checked by applying it with the real git), the per-file 3-way merge and
// the colours.
#include "gitbridge/merge.hpp"
#include "gitbridge/patch.hpp"
#include "gitbridge/repository.hpp"
#include "tests/support/harness.hpp"
#include "tests/support/text_checks.hpp"
#include "tests/unit/gitbridge/blob_helpers.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using ws::gitbridge::BlobSide;
using ws::gitbridge::FilePair;
using ws::gitbridge::GitMode;
using ws::gitbridge::Patch;
using ws::test::check_has_all;
using ws::test::q;
using ws::test::sh;
using namespace ws::test::blobs;

namespace {

FilePair change(const std::string& path, BlobSide before, BlobSide after) {
  return {path, path, std::move(before), std::move(after)};
}

/// Puts `side` at `root`/`rel` as git would check it out.
void materialize(const fs::path& root, const std::string& rel, const BlobSide& side) {
  if (!side.present()) {
    return;
  }
  fs::path p = root / rel;
  fs::create_directories(p.parent_path());
  if (side.mode == GitMode::Symlink) {
    fs::create_symlink(side.content, p);
    return;
  }
  write_bytes(p, side.content);
  REQUIRE(::chmod(p.c_str(), side.mode == GitMode::Executable ? 0755 : 0644) == 0);
}

/// Every file and symlink under `root` (.git left out), as git would record it.
std::map<std::string, BlobSide> read_tree(const fs::path& root) {
  std::map<std::string, BlobSide> out;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    std::string rel = it->path().lexically_relative(root).string();
    if (rel == ".git") {
      it.disable_recursion_pending();
      continue;
    }
    struct stat st {};
    REQUIRE(::lstat(it->path().c_str(), &st) == 0);
    if (S_ISLNK(st.st_mode)) {
      out[rel] = link(fs::read_symlink(it->path()).string());
    } else if (S_ISREG(st.st_mode)) {
      out[rel] = {(st.st_mode & 0100) ? GitMode::Executable : GitMode::File,
                  read_bytes(it->path())};
    }
  }
  return out;
}

std::string describe(const std::map<std::string, BlobSide>& tree) {
  std::string out;
  for (const auto& [path, side] : tree) {
    std::ostringstream line;
    line << q(path) << " " << std::oct << static_cast<uint32_t>(side.mode) << " " << q(side.content)
         << "\n";
    out += line.str();
  }
  return out;
}

/// The strongest check of a patch: real `git apply` on the "before" files in a fresh
/// repository must give exactly the "after" files (bytes, exec bit, symlink targets).
void check_git_applies(const std::vector<FilePair>& pairs, const Patch& patch) {
  ws::test::TempDir dir;
  fs::path repo = dir.path() / "repo";
  fs::create_directories(repo);
  REQUIRE(sh("git init -q .", repo).status == 0);
  std::map<std::string, BlobSide> expected;
  for (const auto& p : pairs) {
    materialize(repo, p.old_path, p.before);
  }
  for (const auto& p : pairs) {
    if (p.after.present()) {
      expected[p.new_path] = p.after;
    }
  }
  write_bytes(dir.path() / "change.patch", patch.text);
  ws::test::Run r =
      sh("git apply --whitespace=nowarn " + q((dir.path() / "change.patch").string()), repo);
  INFO("patch:\n", patch.text, "\ngit apply: ", r.err);
  REQUIRE(r.status == 0);
  CHECK(describe(read_tree(repo)) == describe(expected));
}

Patch build_and_apply(const std::vector<FilePair>& pairs) {
  Patch p = ws::gitbridge::build_patch(pairs);
  check_git_applies(pairs, p);
  return p;
}

/// `p.files`, one a line: status, old path (renames), path, +added -deleted, "bin".
std::string stats(const Patch& p) {
  std::string out;
  for (const auto& f : p.files) {
    out += std::string(1, f.status) + " " + (f.old_path != f.path ? f.old_path + " -> " : "") +
           f.path + " +" + std::to_string(f.added) + " -" + std::to_string(f.deleted) +
           (f.binary ? " bin" : "") + "\n";
  }
  return out;
}

} // namespace

TEST_CASE("gitbridge::build_patch modify in a nested directory") {
  ws::gitbridge::LibGit2 libgit2;
  std::vector<FilePair> pairs{
      change("src/deep/er/util.c", file("a\nb\nc\n"), file("a\nB\nc\nd\n")),
      change("top.txt", file("one\n"), file("two\n")),
  };
  Patch p = build_and_apply(pairs);
  check_has_all(p.text,
                {"diff --git a/src/deep/er/util.c b/src/deep/er/util.c\n",
                 "--- a/src/deep/er/util.c\n+++ b/src/deep/er/util.c\n", "-b\n+B\n c\n+d\n"});
  CHECK(stats(p) == "M src/deep/er/util.c +2 -1\nM top.txt +1 -1\n");
  check_has_all(p.stat, {"src/deep/er/util.c | 3 ++-\n",
                         " 2 files changed, 3 insertions(+), 2 deletions(-)"});
}

TEST_CASE("gitbridge::build_patch add and delete") {
  ws::gitbridge::LibGit2 libgit2;
  std::vector<FilePair> pairs{
      change("new/dir/added.txt", {}, file("hello\nworld\n")),
      change("gone.txt", file("bye\n"), {}),
  };
  Patch p = build_and_apply(pairs);
  check_has_all(p.text,
                {"new file mode 100644\n", "deleted file mode 100644\n",
                 "--- /dev/null\n+++ b/new/dir/added.txt\n", "--- a/gone.txt\n+++ /dev/null\n"});
  CHECK(stats(p) == "D gone.txt +0 -1\nA new/dir/added.txt +2 -0\n");
  CHECK(contains(p.stat, " 2 files changed, 2 insertions(+), 1 deletion(-)"));
}

TEST_CASE("gitbridge::build_patch rename is detected") {
  ws::gitbridge::LibGit2 libgit2;
  std::string body;
  for (int i = 0; i < 20; ++i) {
    body += "line " + std::to_string(i) + "\n";
  }
  std::string edited = body + "one more\n";
  std::vector<FilePair> pairs{{"old/name.txt", "new/place/name.txt", file(body), file(edited)}};
  Patch p = build_and_apply(pairs);
  check_has_all(p.text,
                {"diff --git a/old/name.txt b/new/place/name.txt\n",
                 "rename from old/name.txt\nrename to new/place/name.txt\n", "+one more\n"});
  CHECK(stats(p) == "R old/name.txt -> new/place/name.txt +1 -0\n");
}

TEST_CASE("gitbridge::build_patch mode changes") {
  ws::gitbridge::LibGit2 libgit2;
  std::vector<FilePair> pairs{change("run.sh", file("#!/bin/sh\n"), exe("#!/bin/sh\n")),
                              change("tool", exe("a\n"), file("b\n")),
                              change("bin/new-tool", {}, exe("#!/bin/sh\necho\n"))};
  Patch p = build_and_apply(pairs);
  check_has_all(p.text, {"diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n"
                         "diff --git a/tool b/tool\nold mode 100755\nnew mode 100644\n",
                         "-a\n+b\n", "new file mode 100755\n"});
  CHECK(stats(p) == "A bin/new-tool +2 -0\nM run.sh +0 -0\nM tool +1 -1\n");
}

TEST_CASE("gitbridge::build_patch symlinks added changed and deleted") {
  ws::gitbridge::LibGit2 libgit2;
  std::vector<FilePair> pairs{change("docs/link", {}, link("../README.md")),
                              change("link", link("a/target"), link("b/target")),
                              change("old-link", link("target"), {})};
  Patch p = build_and_apply(pairs);
  check_has_all(p.text, {"new file mode 120000\n", "+../README.md\n\\ No newline at end of file\n",
                         "-a/target\n\\ No newline at end of file\n+b/target\n",
                         "deleted file mode 120000\n"});
  CHECK(stats(p) == "A docs/link +1 -0\nM link +1 -1\nD old-link +0 -1\n");
}

// Was a bug: with GIT_DIFF_INCLUDE_TYPECHANGE libgit2 prints a type change (file <-> symlink) as a
// bare mode change ("old mode 100644 / new mode 120000", no hunk, no content), which `git
// apply` refuses ("new mode (120000) of thing does not match old mode (100644)") and which
// loses the new content. git prints a deletion followed by an addition. Skipped until fixed.
TEST_CASE("gitbridge::build_patch type changes") {
  ws::gitbridge::LibGit2 libgit2;
  std::vector<FilePair> pairs{change("thing", file("was a file\n"), link("elsewhere")),
                              change("tool", link("elsewhere"), exe("#!/bin/sh\n"))};
  Patch p = build_and_apply(pairs);
  check_has_all(p.text, {"deleted file mode 100644\n", "new file mode 120000\n", "+elsewhere\n",
                         "deleted file mode 120000\n", "new file mode 100755\n"});
}

TEST_CASE("gitbridge::build_patch binary content") {
  ws::gitbridge::LibGit2 libgit2;
  std::string before("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16), after = before, other(200, '\0');
  for (size_t i = 0; i < 300; ++i) {
    after.push_back(static_cast<char>(i * 7));
    other[i % 200] = static_cast<char>((i * 131) ^ 0x5a);
  }
  std::vector<FilePair> pairs{change("img/logo.png", file(before), file(after)),
                              change("blob.bin", {}, file(after)),
                              change("old.bin", file(other), {})};
  Patch p = build_and_apply(pairs);
  CHECK(contains(p.text, "GIT binary patch\n"));
  CHECK(stats(p) == "A blob.bin +0 -0 bin\nM img/logo.png +0 -0 bin\nD old.bin +0 -0 bin\n");
  CHECK(contains(p.stat, " img/logo.png | Bin 16 -> 316 bytes\n"));
}

TEST_CASE("gitbridge::build_patch unusual file names are quoted as git quotes them") {
  ws::gitbridge::LibGit2 libgit2;
  std::string body = "same content\nover several\nlines\n";
  std::vector<FilePair> pairs{change("dir with space/a b.txt", file("x\n"), file("y\n")),
                              change("new\nline", file("x\n"), file("y\n")),
                              change("t\tq\"b\\", {}, file("y\n")),
                              change("caf\xe9/\xff.txt", file("x\n"), file("y\n")),
                              {"plain.txt", "odd \xff name", file(body), file(body)}};
  Patch p = build_and_apply(pairs);
  check_has_all(p.text, {"diff --git a/dir with space/a b.txt b/dir with space/a b.txt\n",
                         "diff --git \"a/new\\nline\" \"b/new\\nline\"\n",
                         "diff --git \"a/t\\tq\\\"b\\\\\" \"b/t\\tq\\\"b\\\\\"\n",
                         "diff --git \"a/caf\\351/\\377.txt\" \"b/caf\\351/\\377.txt\"\n",
                         "rename from plain.txt\nrename to \"odd \\377 name\"\n"});
  CHECK(stats(p) == "M caf\xe9/\xff.txt +1 -1\nM dir with space/a b.txt +1 -1\n"
                    "M new\nline +1 -1\nR plain.txt -> odd \xff name +0 -0\nA t\tq\"b\\ +1 -0\n");
}

TEST_CASE("gitbridge::build_patch no trailing newline both ways") {
  ws::gitbridge::LibGit2 libgit2;
  std::vector<FilePair> pairs{change("a.txt", file("one\ntwo"), file("one\ntwo\n")),
                              change("b.txt", file("x\n"), file("x\ny"))};
  Patch p = build_and_apply(pairs);
  CHECK(contains(p.text, "\\ No newline at end of file\n"));
}

TEST_CASE("gitbridge::build_patch empty input and the id") {
  ws::gitbridge::LibGit2 libgit2;
  std::vector<FilePair> a{change("f.txt", file("1\n"), file("2\n"))};
  std::vector<FilePair> b{change("f.txt", file("1\n"), file("3\n"))};
  std::vector<FilePair> mode{change("f.txt", file("1\n"), exe("2\n"))};
  Patch p1 = ws::gitbridge::build_patch(a);
  Patch p2 = ws::gitbridge::build_patch(a);
  Patch p3 = ws::gitbridge::build_patch(b);
  Patch p4 = ws::gitbridge::build_patch(mode);
  CHECK(p1.id.size() == 64);
  CHECK(p1.id.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(p1.id == p2.id);
  CHECK(p1.text == p2.text);
  CHECK(p1.id != p3.id);
  CHECK(p1.id != p4.id);
  Patch none = ws::gitbridge::build_patch({});
  CHECK(none.text.empty());
  CHECK(none.files.empty());
  CHECK(none.stat.empty());
  CHECK(none.id.size() == 64);
  CHECK(p1.id != none.id);
}

TEST_CASE("gitbridge::build_patch stat has a summary line") {
  ws::gitbridge::LibGit2 libgit2;
  std::vector<FilePair> pairs{change("a.txt", file("1\n2\n3\n"), file("1\n3\n"))};
  Patch p = ws::gitbridge::build_patch(pairs);
  CHECK(p.stat == " a.txt | 1 -\n 1 file changed, 1 deletion(-)\n");
  std::vector<FilePair> more{change("a.txt", file("1\n"), file("2\n3\n")),
                             change("b", {}, file("x\n"))};
  CHECK(contains(ws::gitbridge::build_patch(more).stat,
                 " 2 files changed, 3 insertions(+), 1 deletion(-)\n"));
}

TEST_CASE("gitbridge::build_patch stat of deletions draws only '-', as git's own does") {
  // Issue 13: ws diff --stat drew "+-" for a file deleted whole. Compared with what git
  // prints for the same change, including a graph scaled down (300 lines in 80 columns).
  ws::gitbridge::LibGit2 libgit2;
  std::string three_hundred;
  for (int i = 1; i <= 300; ++i) {
    three_hundred += std::to_string(i) + "\n";
  }
  std::vector<FilePair> pairs{change("big.txt", file(three_hundred), {}),
                              change("one.txt", file("one\n"), {}),
                              change("two.txt", file("x\ny\n"), file("y\n")),
                              change("small.txt", file("1\n"), file("1\nnew\n"))};
  Patch p = build_and_apply(pairs);
  ws::test::TempDir dir;
  fs::path repo = dir.path() / "repo";
  fs::create_directories(repo);
  REQUIRE(sh("git init -q .", repo).status == 0);
  for (const auto& c : pairs) {
    materialize(repo, c.old_path, c.before);
  }
  REQUIRE(sh("git add -A && git -c user.name=t -c user.email=t@t commit -qm before", repo).status ==
          0);
  for (const auto& c : pairs) {
    fs::remove(repo / c.old_path);
    materialize(repo, c.new_path, c.after);
  }
  ws::test::Run git = sh("git diff --stat --summary", repo);
  REQUIRE(git.status == 0);
  CHECK(p.stat == git.out);
  CHECK(contains(p.stat, " one.txt   |   1 -\n"));
  CHECK(p.stat.find("+-") == std::string::npos);
}

// ---------------------------------------------------------------------------------------
// colours

namespace {
const std::string k_bold = "\033[1m", k_cyan = "\033[36m", k_red = "\033[31m", k_green = "\033[32m",
                  k_reset = "\033[m";

std::string paint(const std::string& colour, const std::string& text) {
  return colour + text + k_reset;
}

std::string strip_colours(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\033') {
      i = s.find('m', i);
      REQUIRE(i != std::string::npos);
      continue;
    }
    out.push_back(s[i]);
  }
  return out;
}
} // namespace

TEST_CASE("gitbridge::colorize_patch colours headers hunks and lines") {
  // Each line: its expected colour (Bold Cyan Red Green, '.' none), then the patch line.
  std::string spec = "Bdiff --git a/f-1 b/f-1\n"
                     "Bindex 1111111..2222222 100644\n"
                     "B--- a/f-1\n"
                     "B+++ b/f-1\n"
                     "C@@ -1,3 +1,3 @@ context\n"
                     ". keep\n"
                     "R--- removed dashes\n"
                     "G+++ added pluses\n"
                     ".\\ No newline at end of file\n"
                     "Bdiff --git a/new b/new\n"
                     "Bnew file mode 100755\n"
                     "B--- /dev/null\n"
                     "B+++ b/new\n"
                     "C@@ -0,0 +1 @@\n"
                     "G+x";
  const std::map<char, std::string> colour{
      {'B', k_bold}, {'C', k_cyan}, {'R', k_red}, {'G', k_green}};
  std::string text, expected;
  for (size_t start = 0; start < spec.size();) {
    size_t end = std::min(spec.find('\n', start), spec.size());
    std::string line = spec.substr(start + 1, end - start - 1);
    std::string nl = end < spec.size() ? "\n" : "";
    text += line + nl;
    expected += (spec[start] == '.' ? line : paint(colour.at(spec[start]), line)) + nl;
    start = end + 1;
  }
  CHECK(ws::gitbridge::colorize_patch(text) == expected);
  CHECK(ws::gitbridge::colorize_patch("") == "");
}

TEST_CASE("gitbridge::colorize_patch of a real patch strips back to the patch") {
  ws::gitbridge::LibGit2 libgit2;
  std::vector<FilePair> pairs{change("a.txt", file("1\n2\n"), file("1\n3\n")),
                              change("b.bin", {}, file(std::string("\0\1\2", 3)))};
  Patch p = ws::gitbridge::build_patch(pairs);
  std::string coloured = ws::gitbridge::colorize_patch(p.text);
  CHECK(strip_colours(coloured) == p.text);
  CHECK(contains(coloured, paint(k_red, "-2") + "\n" + paint(k_green, "+3") + "\n"));
  CHECK(contains(coloured, paint(k_bold, "GIT binary patch") + "\n"));
}

TEST_CASE("gitbridge::colorize_stat colours the graph only") {
  std::string stat = " my-file+x.txt | 3 ++-\n"
                     " a => b-c      | 0\n"
                     " 2 files changed, 2 insertions(+), 1 deletion(-)\n";
  std::string expected = " my-file+x.txt | 3 " + paint(k_green, "+") + paint(k_green, "+") +
                         paint(k_red, "-") + "\n" +
                         " a => b-c      | 0\n"
                         " 2 files changed, 2 insertions(+), 1 deletion(-)\n";
  CHECK(ws::gitbridge::colorize_stat(stat) == expected);
}

TEST_CASE("gitbridge::colorize_stat of a real stat leaves names alone") {
  ws::gitbridge::LibGit2 libgit2;
  std::vector<FilePair> pairs{change("--weird+-name", file("1\n"), file("2\n3\n")),
                              change("d-i-r/f+g", {}, file("x\n"))};
  Patch p = ws::gitbridge::build_patch(pairs);
  std::string coloured = ws::gitbridge::colorize_stat(p.stat);
  CHECK(strip_colours(coloured) == p.stat);
  CHECK(contains(coloured, " --weird+-name | 3 " + paint(k_green, "+") + paint(k_green, "+") +
                               paint(k_red, "-") + "\n"));
  CHECK(contains(coloured, " d-i-r/f+g     | 1 " + paint(k_green, "+") + "\n"));
}

// Was a bug: colorize_stat starts the graph at the first '|' of a line, so a file name holding a
// '|' gets its '-' and '+' coloured; the graph starts after the last '|'.
TEST_CASE("gitbridge::colorize_stat leaves a name holding a bar alone") {
  std::string stat = " a|b-c+d | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n";
  std::string expected = " a|b-c+d | 2 " + paint(k_green, "+") + paint(k_red, "-") +
                         "\n 1 file changed, 1 insertion(+), 1 deletion(-)\n";
  CHECK(ws::gitbridge::colorize_stat(stat) == expected);
}

// ---------------------------------------------------------------------------------------
// merge_file

namespace {
ws::gitbridge::MergeResult merge(const std::string& base, const std::string& yours,
                                 const std::string& agents) {
  ws::gitbridge::LibGit2 libgit2;
  return ws::gitbridge::merge_file(base, yours, agents, "f.txt");
}

std::string numbered(int from, int to, int changed = 0, const std::string& as = "") {
  std::string out;
  for (int i = from; i <= to; ++i) {
    out += i == changed ? as : std::to_string(i) + "\n";
  }
  return out;
}
} // namespace

TEST_CASE("gitbridge::merge_file edits in different hunks merge cleanly") {
  std::string base = numbered(1, 12);
  std::string yours = numbered(1, 12, 2, "yours two\n");
  std::string agents = numbered(1, 12, 10, "agents ten\nand more\n");
  auto m = merge(base, yours, agents);
  CHECK(m.clean);
  CHECK(m.conflicts.empty());
  std::string expected = numbered(1, 12, 2, "yours two\n");
  expected.replace(expected.find("10\n"), 3, "agents ten\nand more\n");
  CHECK(m.content == expected);
}

TEST_CASE("gitbridge::merge_file one side unchanged takes the other") {
  std::string base = numbered(1, 5);
  std::string agents = numbered(1, 5, 3, "three\n");
  auto m = merge(base, base, agents);
  CHECK(m.clean);
  CHECK(m.content == agents);
  m = merge(base, agents, base);
  CHECK(m.clean);
  CHECK(m.content == agents);
}

TEST_CASE("gitbridge::merge_file identical edits on both sides are clean") {
  std::string base = numbered(1, 6);
  std::string both = numbered(1, 6, 4, "four\nfour and a half\n");
  auto m = merge(base, both, both);
  CHECK(m.clean);
  CHECK(m.conflicts.empty());
  CHECK(m.content == both);
}

TEST_CASE("gitbridge::merge_file conflict in the same hunk") {
  std::string base = numbered(1, 6);
  std::string yours = numbered(1, 6, 3, "Y3\n");
  std::string agents = numbered(1, 6, 3, "A3\nA3b\n");
  auto m = merge(base, yours, agents);
  CHECK_FALSE(m.clean);
  REQUIRE(m.conflicts.size() == 1);
  CHECK(m.conflicts[0].line == 3);
  CHECK(m.conflicts[0].yours == "Y3\n");
  CHECK(m.conflicts[0].agents == "A3\nA3b\n");
  CHECK(m.content == "1\n2\n<<<<<<< real tree (yours)\nY3\n=======\nA3\nA3b\n"
                     ">>>>>>> workspace (agent)\n4\n5\n6\n");
}

TEST_CASE("gitbridge::merge_file conflict lines count the real side") {
  std::string base = numbered(1, 12);
  std::string yours = numbered(1, 12, 2, "Y2a\nY2b\n");
  yours.replace(yours.find("\n8\n") + 1, 2, "Y8\n");
  std::string agents = numbered(1, 12, 2, "A2\n");
  agents.replace(agents.find("\n8\n") + 1, 2, "A8a\nA8b\nA8c\n");
  agents = "A0\n" + agents; // a clean change above both conflicts
  auto m = merge(base, yours, agents);
  CHECK_FALSE(m.clean);
  REQUIRE(m.conflicts.size() == 2);
  CHECK(m.conflicts[0].line == 3); // after A0 and 1
  CHECK(m.conflicts[0].yours == "Y2a\nY2b\n");
  CHECK(m.conflicts[0].agents == "A2\n");
  CHECK(m.conflicts[1].line == 10); // A0 1 Y2a Y2b 3 4 5 6 7 Y8
  CHECK(m.conflicts[1].yours == "Y8\n");
  CHECK(m.conflicts[1].agents == "A8a\nA8b\nA8c\n");
}

// Was a bug: parse_conflicts takes any line starting with "=======" as the separator, so a
// Markdown/RST heading underline ("==========") on the person's side ends their side
// early and the real separator lands in the agent's side. git's marker is exactly seven
// '=' and the end of the line.
TEST_CASE("gitbridge::merge_file heading underline inside a conflict") {
  std::string base = "intro\nOld title\nbody\n";
  std::string yours = "intro\nYour New Title\n==============\nbody\n";
  std::string agents = "intro\nAgent Title\nbody\n";
  auto m = merge(base, yours, agents);
  CHECK_FALSE(m.clean);
  REQUIRE(m.conflicts.size() == 1);
  CHECK(m.conflicts[0].line == 2);
  CHECK(m.conflicts[0].yours == "Your New Title\n==============\n");
  CHECK(m.conflicts[0].agents == "Agent Title\n");
}

TEST_CASE("gitbridge::merge_file without a trailing newline") {
  SUBCASE("clean with the newline missing everywhere") {
    auto m = merge("a\nb\nc\nd", "A\nb\nc\nd", "a\nb\nc\nD");
    CHECK(m.clean);
    CHECK(m.content == "A\nb\nc\nD");
  }
  SUBCASE("clean when the agent adds the final newline") {
    auto m = merge("a\nb\nc\nd", "A\nb\nc\nd", "a\nb\nc\nd\n");
    CHECK(m.clean);
    CHECK(m.content == "A\nb\nc\nd\n");
  }
  SUBCASE("conflict on a last line without newline") {
    auto m = merge("a\nb\nx", "a\nb\ny", "a\nb\nz");
    CHECK_FALSE(m.clean);
    REQUIRE(m.conflicts.size() == 1);
    CHECK(m.conflicts[0].line == 3);
    CHECK(m.conflicts[0].yours.rfind("y", 0) == 0);
    CHECK(m.conflicts[0].agents.rfind("z", 0) == 0);
    CHECK(m.content.rfind("a\nb\n<<<<<<< ", 0) == 0);
  }
}

TEST_CASE("gitbridge::merge_file binary never merges") {
  std::string bin("a\nb\0c\n", 6);
  for (auto [b, y, a] :
       {std::tuple{bin, bin, bin}, std::tuple{std::string("a\n"), bin, std::string("a\n")},
        std::tuple{std::string("a\n"), std::string("a\n"), bin},
        std::tuple{bin, std::string("t\n"), std::string("t\n")}}) {
    auto m = merge(b, y, a);
    CHECK_FALSE(m.clean);
    CHECK(m.conflicts.empty());
    CHECK(m.content.empty());
  }
}
