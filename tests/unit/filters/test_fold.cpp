// Folding a report by directory (filters/fold.hpp): what folds, what never does, and how a
// screen's lines are shared.
#include "filters/fold.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace ws::filters;

namespace {
constexpr int k_transfer = 0, k_withheld = 3, k_blocked = 4;

FoldItem held(std::string_view path, std::string_view reason = "under node_modules/",
              char kind = 'A') {
  return {path, k_withheld, true, reason, kind};
}
FoldItem plain(std::string_view path) {
  return {path, k_transfer, false, "", 'A'};
}
} // namespace

TEST_CASE("fold: a withheld directory of one reason is one line with its count") {
  std::vector<FoldItem> items{plain("README.md"), held("node_modules/a/x.js"),
                              held("node_modules/a/y.js"), held("node_modules/b.js"),
                              plain("src/a.c")};
  auto dirs = fold_directories(items);
  REQUIRE(dirs.size() == 1);
  CHECK(dirs[0].dir == "node_modules");
  CHECK(dirs[0].begin == 1);
  CHECK(dirs[0].end == 4);
  CHECK(fold_count(dirs[0]) == "3 files");
  CHECK(dirs[0].kind == 'A');
}

TEST_CASE("fold: a directory with a path that may land, or another reason, folds below it") {
  std::vector<FoldItem> items{held("vendor/a/1", "r1"), held("vendor/a/2", "r1"),
                              held("vendor/b/1", "r2"), held("vendor/b/2", "r2"),
                              plain("vendor/c.txt")};
  auto dirs = fold_directories(items);
  REQUIRE(dirs.size() == 2);
  CHECK(dirs[0].dir == "vendor/a");
  CHECK(dirs[1].dir == "vendor/b");
  // A transferring or flagged path never folds, even alone below a directory.
  CHECK(fold_directories({plain("gen/a"), plain("gen/b")}).empty());
  // Verdicts apart: withheld and blocked with one reason text still do not fold together.
  std::vector<FoldItem> mixed{held("d/a", "same"), {"d/b", k_blocked, true, "same", 'A'}};
  CHECK(fold_directories(mixed).empty());
  // One path is its own line.
  CHECK(fold_directories({held("one/x")}).empty());
}

TEST_CASE("fold: deletions are counted apart, and mixed kinds share no letter") {
  std::vector<FoldItem> items{held("nm/a", "r", 'A'), held("nm/b", "r", 'D'),
                              held("nm/c", "r", 'D')};
  auto dirs = fold_directories(items);
  REQUIRE(dirs.size() == 1);
  CHECK(dirs[0].deleted == 2);
  CHECK(dirs[0].kind == 0);
  CHECK(fold_count(dirs[0]) == "3 files, 2 deleted");
}

TEST_CASE("fold: sibling names that sort between a directory's paths") {
  // "a" < "a-b" < "a/c" in byte order: a-b is not below a/.
  std::vector<FoldItem> items{held("a-b/x"), held("a-b/y"), held("a/c"), held("a/d")};
  auto dirs = fold_directories(items);
  REQUIRE(dirs.size() == 2);
  CHECK(dirs[0].dir == "a-b");
  CHECK(dirs[1].dir == "a");
  CHECK(with_commas(2510) == "2,510");
  CHECK(with_commas(1000000) == "1,000,000");
  CHECK(with_commas(999) == "999");
}

TEST_CASE("fold: plain new files fold into their top directory, other changes keep lines") {
  std::vector<std::string_view> paths{"gen/a", "gen/b", "gen/c.sh", "one/x", "top.txt"};
  std::vector<bool> is_plain{true, true, false, true, true};
  auto f = fold_new_files(paths, is_plain);
  CHECK(f == std::vector<std::string_view>{"gen", "gen", "", "", ""});
}

TEST_CASE("fold: a screen's lines are shared so that no section is crowded out") {
  CHECK(share_lines({3, 2}, 10) == std::vector<size_t>{3, 2});
  CHECK(share_lines({100000, 2, 0, 1}, 6) == std::vector<size_t>{3, 2, 0, 1});
  CHECK(share_lines({50, 50}, 7) == std::vector<size_t>{4, 3});
  CHECK(share_lines({5, 5, 5}, 2) == std::vector<size_t>{1, 1, 1}); // one line each at least
}

TEST_CASE("fold: the files directly in a directory of other changes fold by reason") {
  // A C build in the source directory: src/*.o ignored, one source edited, a build dir.
  constexpr std::string_view ign = "ignored by the real repository";
  std::vector<FoldItem> items{held("a.o", ign),        held("b.o", ign),
                              held("build/app", ign),  held("build/gen/g1", ign),
                              plain("src/f1.c"),       held("src/f1.c.swp", "r2"),
                              held("src/f1.o", ign),   held("src/f10.o", ign),
                              held("src/f2.o", ign),   held("src/main.o", ign, 'D'),
                              held("src/sub/x", "r3"), held("src/sub/y", "r3")};
  // Without min_direct: only whole directories.
  CHECK(fold_directories(items).size() == 2);
  auto dirs = fold_directories(items, {}, 2, 3);
  REQUIRE(dirs.size() == 3);
  CHECK(dirs[0].dir == "build");
  CHECK_FALSE(dirs[0].direct);
  CHECK(dirs[1].direct);
  CHECK(dirs[1].dir == "src");
  CHECK(dirs[1].shown() == "src/*.o");
  CHECK(dirs[1].members == std::vector<size_t>{6, 7, 8, 9});
  CHECK(dirs[1].reason == ign);
  CHECK(fold_count(dirs[1]) == "4 files, 1 deleted"); // a deletion is never hidden
  CHECK(dirs[1].kind == 0);
  CHECK(dirs[2].dir == "src/sub");
  // a.o and b.o at the top: two, fewer than three.
  auto member = fold_membership(dirs, items.size());
  CHECK(member[0] == SIZE_MAX);
  CHECK(member[2] == 0);
  CHECK(member[4] == SIZE_MAX); // transfers: never folded
  CHECK(member[5] == SIZE_MAX); // its own reason: its own line
  CHECK(member[9] == 1);
  CHECK(member[10] == 2);
  // At the top, and names sharing a stem rather than an extension.
  std::vector<FoldItem> top{held("git-add", ign), held("git-am", ign), held("git-apply", ign),
                            plain("main.c")};
  auto t = fold_directories(top, {}, 2, 3);
  REQUIRE(t.size() == 1);
  CHECK(t[0].shown() == "git-*");
  std::vector<FoldItem> mixed{held("d/x.o", ign), held("d/y.a", ign), held("d/z", ign),
                              plain("d/z.c")};
  t = fold_directories(mixed, {}, 2, 3);
  REQUIRE(t.size() == 1);
  CHECK(t[0].shown() == "d/*");
  CHECK(t[0].files() == 3);
}

TEST_CASE("fold: a virtual environment folds with its interpreter's symlinks counted apart") {
  constexpr std::string_view venv = "under .venv/ (a Python virtual environment)";
  auto in_venv = [&](std::string_view path, std::string_view reason) {
    FoldItem it = held(path, reason);
    it.tree = tool_tree(path);
    it.ordinary = ordinary_in_tree(reason);
    return it;
  };
  CHECK(tool_tree(".venv/bin/python") == venv);
  CHECK(tool_tree("node_modules/.bin/tsc") == "under node_modules/");
  CHECK(tool_tree("pyvenv.cfg").empty()); // a file's rule, not a tree
  CHECK(tool_tree("src/a.c").empty());
  std::vector<FoldItem> items{
      in_venv(".venv/bin/activate", venv),
      in_venv(".venv/bin/python", "symlink pointing outside the project (python3)"),
      in_venv(".venv/bin/python3", "symlink to an absolute path (/usr/bin/python3)"),
      in_venv(".venv/lib/site.py", venv),
      in_venv(".venv/pyvenv.cfg", venv),
      plain("src/a.c")};
  auto dirs = fold_directories(items);
  REQUIRE(dirs.size() == 1);
  CHECK(dirs[0].dir == ".venv");
  CHECK(dirs[0].files() == 5);
  CHECK(fold_reason(dirs[0]) == std::string(venv) + "; symlinks leaving the project: 2");
  // A symlink leaving the project outside the tool's tree keeps its line, as does one into .git
  // inside it.
  items.insert(items.begin() + 5, in_venv("link", "symlink to an absolute path (/etc)"));
  items.insert(items.begin() + 2,
               in_venv(".venv/bin/git", "symlink pointing into .git (../../.git/config)"));
  CHECK(fold_directories(items).empty());
  // Blocked inside the tree: another verdict, never folded in.
  std::vector<FoldItem> blocked{in_venv(".venv/a", venv),
                                in_venv(".venv/b", venv),
                                {".venv/c", k_blocked, true, "symlink to an absolute path (/x)",
                                 'A', venv, "symlinks leaving the project"}};
  CHECK(fold_directories(blocked).empty());
}

TEST_CASE("fold: a line fits its width, cut in the middle or at the end") {
  CHECK(fit_middle("short", 10) == "short");
  CHECK(fit_middle("node_modules/some/deep/path/index.js", 20) == "node_modu...index.js");
  CHECK(fit_end("a reason that goes on", 10) == "a reaso...");
  // UTF-8 is cut at whole characters.
  std::string s = "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"; // six é
  CHECK(text_width(s) == 6);
  CHECK(fit_middle(s, 5) == "\xc3\xa9...\xc3\xa9");
  CHECK(fit_end(s, 4) == "\xc3\xa9...");
}
