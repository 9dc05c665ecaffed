#include "fuse/meta_store.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

using namespace ws::fuse;

TEST_CASE("fuse::MetaStore persists records and survives reopening") {
  ws::test::TempDir dir;
  auto db = dir.path() / "meta.db";
  {
    MetaStore m(db, Db::Mode::ReadWrite);
    PathMeta w;
    w.whiteout = true;
    w.base = Identity{42, 10, 123, 0100644, Hash128{1, 2}};
    m.put("a/b", w);
    PathMeta o;
    o.opaque = true;
    m.put("a", o);
    m.put(std::string("bad\xff", 4), w);
  }
  MetaStore m(db, Db::Mode::ReadOnly);
  REQUIRE(m.get("a/b"));
  CHECK(m.get("a/b")->base->hash == Hash128{1, 2});
  CHECK(m.is_whiteout("a/b"));
  CHECK(m.is_opaque("a"));
  CHECK(!m.is_whiteout("a"));
  CHECK(m.is_whiteout(std::string("bad\xff", 4)));
}

TEST_CASE("fuse::MetaStore whiteouts_in lists direct children only") {
  ws::test::TempDir dir;
  MetaStore m(dir.path() / "meta.db", Db::Mode::ReadWrite);
  PathMeta w;
  w.whiteout = true;
  for (const char* p : {"d/x", "d/y", "d/sub/z", "d-other/q", "top"}) {
    m.put(p, w);
  }
  auto in_d = m.whiteouts_in("d");
  CHECK(in_d == std::vector<std::string>{"x", "y"});
  CHECK(m.whiteouts_in("") == std::vector<std::string>{"top"});
}

TEST_CASE(
    "fuse::MetaStore move_subtree carries origins + leaves bases behind + replaces the target") {
  ws::test::TempDir dir;
  MetaStore m(dir.path() / "meta.db", Db::Mode::ReadWrite);
  PathMeta rec;
  rec.origin_path = "src/a.c";
  rec.origin = Identity{7, 1, 1, 0100644, std::nullopt};
  rec.base = rec.origin;
  m.put("src/a.c", rec);
  m.put("src-x/keep", rec); // shares a prefix but is not below src
  m.put("dst/old", rec);
  m.move_subtree("src", "dst");
  CHECK(!m.get("src/a.c"));
  REQUIRE(m.get("dst/a.c"));
  CHECK(m.get("dst/a.c")->origin_path == "src/a.c");
  CHECK(!m.get("dst/a.c")->base);
  CHECK(!m.get("dst/old"));
  CHECK(m.get("src-x/keep"));
}

TEST_CASE("fuse::path helpers") {
  CHECK(join_path("", "a") == "a");
  CHECK(join_path("a/b", "c") == "a/b/c");
  CHECK(path_within("a/b", "a"));
  CHECK(path_within("a", "a"));
  CHECK(!path_within("ab", "a"));
  CHECK(path_within("x", ""));
}
