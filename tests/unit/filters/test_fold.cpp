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
