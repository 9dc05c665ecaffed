#include "fuse/change_log.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace ws::fuse;

namespace {
/// Every page of the answer since `token`, joined.
ChangeLog::Page all(ChangeLog& log, const std::string& token, size_t page_bytes = 1 << 14) {
  ChangeLog::Page first = log.since(token, 0, 0, page_bytes);
  ChangeLog::Page page = first;
  while (!page.everything && page.next) {
    page = log.since(token, first.upto, page.next, page_bytes);
    if (page.everything) {
      return page;
    }
    first.paths.insert(first.paths.end(), page.paths.begin(), page.paths.end());
  }
  return first;
}
} // namespace

TEST_CASE("fuse::ChangeLog answers names since a token, once each, directories with '/'") {
  ChangeLog log;
  ChangeLog::Page start = all(log, "1700000000000000000"); // git's first token: not ours
  CHECK(start.everything);
  log.note("a.c", false);
  log.note("src", true);
  log.note("a.c", false);
  log.note(".git/index", false); // the repository's own: never
  log.note(".git", true);
  ChangeLog::Page p = all(log, start.token);
  CHECK_FALSE(p.everything);
  // Once each, in no promised order (a name noted again before any token was handed out
  // keeps its place).
  std::vector<std::string> names = p.paths;
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"a.c", "src/"});
  ChangeLog::Page q = all(log, p.token);
  CHECK_FALSE(q.everything);
  CHECK(q.paths.empty());
  CHECK(q.token == p.token);
  log.note("b", false);
  CHECK(all(log, p.token).paths == std::vector<std::string>{"b"});
  CHECK(all(log, p.token).token != p.token);
  // A name noted before a token was handed out and again after it: news to that token.
  std::string r = all(log, p.token).token;
  log.note("a.c", false);
  CHECK(all(log, r).paths == std::vector<std::string>{"a.c"});
}

TEST_CASE("fuse::ChangeLog answers everything when it cannot vouch for a short list") {
  ChangeLog log(3);
  std::string t0 = all(log, "").token;
  log.note("a", false);
  log.note("b", false);
  std::string t1 = all(log, t0).token;
  log.note("c", false);
  log.note("d", false); // 4 names: "a" forgotten, t0 cannot be answered any more
  CHECK(all(log, t0).everything);
  CHECK(all(log, t1).paths == std::vector<std::string>{"c", "d"});

  SUBCASE("another instance's token") {
    ChangeLog other;
    CHECK(all(other, t1).everything);
  }
  SUBCASE("a token from the future, or garbage") {
    CHECK(all(log, t1 + "9").everything);
    CHECK(all(log, t1 + "x").everything);
  }
  SUBCASE("everything noted") {
    log.note_everything();
    CHECK(all(log, t1).everything);
    std::string t2 = all(log, t1).token;
    CHECK(all(log, t2).paths.empty());
  }
  SUBCASE("a directory without a watch, until it has one again") {
    log.blind("x/y");
    std::string during = all(log, t1).token;
    CHECK(all(log, t1).everything);
    log.unblind("x", false); // another directory
    CHECK(all(log, during).everything);
    log.unblind("x", true);             // x went away with everything below
    CHECK(all(log, during).everything); // handed out while blind: promised nothing
    std::string after = all(log, during).token;
    CHECK(all(log, after).paths.empty());
  }
}

TEST_CASE("fuse::ChangeLog pages a long answer, a name changed meanwhile comes next time") {
  ChangeLog log;
  std::string t0 = all(log, "").token;
  std::vector<std::string> names;
  for (int i = 0; i < 1000; ++i) {
    names.push_back("dir/file-" + std::to_string(i));
    log.note(names.back(), false);
  }
  ChangeLog::Page first = log.since(t0, 0, 0, 1024);
  REQUIRE(first.next != 0);
  std::vector<std::string> got = first.paths;
  log.note(names[999], false); // not yet sent: moves past upto, comes with the next token
  for (ChangeLog::Page p = first; p.next;) {
    p = log.since(t0, first.upto, p.next, 1024);
    REQUIRE_FALSE(p.everything);
    got.insert(got.end(), p.paths.begin(), p.paths.end());
  }
  names.pop_back();
  CHECK(got == names);
  CHECK(all(log, first.token).paths == std::vector<std::string>{"dir/file-999"});
}

TEST_CASE("fuse::ChangeLog continues a saved record: its tokens answer exactly, or everything") {
  ChangeLog log;
  std::string t0 = all(log, "").token;
  log.note("a.c", false);
  std::string t1 = all(log, t0).token;
  log.note("lib", true);
  auto saved = log.save();
  REQUIRE(saved);
  ChangeLog next;
  next.restore(*saved);
  CHECK(next.instance() == log.instance());
  CHECK(all(next, t0).paths == std::vector<std::string>{"a.c", "lib/"});
  next.note("new.txt", false); // what the person did while nothing ran
  CHECK(all(next, t1).paths == std::vector<std::string>{"lib/", "new.txt"});
  ChangeLog other;
  CHECK(all(other, t1).everything); // another instance's token
  SUBCASE("a blind record is not saved") {
    next.blind("x");
    CHECK_FALSE(next.save());
  }
  SUBCASE("covered by a whole-tree watch: a directory the view stops watching is not blind") {
    next.set_covered();
    std::string t2 = all(next, t1).token;
    next.blind("x");
    CHECK_FALSE(all(next, t2).everything);
    next.lose_cover(); // that watch missed a directory: everything, and nothing to save
    CHECK(all(next, t2).everything);
    CHECK_FALSE(next.save());
  }
}
