// RealRepo keeps the index's gitlinks in a cache file keyed by the index's content, so that
// `ws status` does not read a 100,000-entry index for them each time (gitlink_cache.hpp). It
// must answer exactly as a read of the index does, and never from a cache of another index.
#include "gitbridge/gitlink_cache.hpp"
#include "gitbridge/real_repo.hpp"
#include "gitbridge/repository.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

using ws::gitbridge::RealRepo;
using namespace ws::test;
namespace fs = std::filesystem;

namespace {

constexpr const char* k_commit = "0123456789abcdef0123456789abcdef01234567";

void git(const fs::path& repo, const std::string& args) {
  Run r = sh("git " + args, repo);
  INFO("git " << args << ": " << r.err);
  REQUIRE(r.status == 0);
}

/// A gitlink at `path` in the index (what `git submodule add` stages), no checkout.
void add_gitlink(const fs::path& repo, const std::string& path) {
  git(repo, "update-index --add --cacheinfo 160000," + std::string(k_commit) + "," + q(path));
}

/// A new repository at `repo` with one file staged.
void new_repo(const fs::path& repo) {
  fs::create_directories(repo);
  git(repo, "init -q .");
  std::ofstream(repo / "a.txt") << "a\n";
  git(repo, "add a.txt");
}

/// What RealRepo says of each path: gitlink, and the submodule it lies in.
std::vector<std::string> answers(RealRepo& r, const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) {
    out.push_back(p + ": " + (r.gitlink(p) ? "gitlink" : "-") + " in '" +
                  r.containing_submodule(p) + "'");
  }
  return out;
}

const std::vector<std::string> k_paths{"a.txt",        "sub",    "sub/x.c", "vendor/lib",
                                       "vendor/lib/y", "vendor", "subx/z",  "other/sub"};

/// What RealRepo says of `k_paths` when it reads the index.
std::vector<std::string> uncached(const fs::path& repo) {
  RealRepo plain(repo);
  return answers(plain, k_paths);
}

} // namespace

TEST_CASE("gitlink cache: the same answers as the index, and a changed index is read again") {
  ws::gitbridge::LibGit2 libgit2;
  TempDir dir;
  fs::path repo = dir.path() / "repo", cache = dir.path() / "gitlink-cache";
  new_repo(repo);
  add_gitlink(repo, "sub");

  std::vector<std::string> truth = uncached(repo);
  CHECK(truth[1] == "sub: gitlink in ''");
  CHECK(truth[2] == "sub/x.c: - in 'sub'");
  {
    RealRepo first(repo, cache); // a miss: reads the index, keeps what it found
    CHECK(answers(first, k_paths) == truth);
  }
  REQUIRE(fs::exists(cache));
  {
    RealRepo second(repo, cache); // a hit
    CHECK(answers(second, k_paths) == truth);
  }

  // The person adds a submodule: the index changed, the cache is not asked.
  add_gitlink(repo, "vendor/lib");
  truth = uncached(repo);
  CHECK(truth[3] == "vendor/lib: gitlink in ''");
  CHECK(truth[4] == "vendor/lib/y: - in 'vendor/lib'");
  {
    RealRepo after(repo, cache);
    CHECK(answers(after, k_paths) == truth);
  }
  // And removes both: no gitlink left, none answered from the cache.
  git(repo, "rm -q --cached sub vendor/lib");
  {
    RealRepo after(repo, cache);
    for (const auto& line : answers(after, k_paths)) {
      CHECK(line.find("gitlink") == std::string::npos);
      CHECK(line.find(" in ''") != std::string::npos);
    }
  }
}

TEST_CASE("gitlink cache: answers from the cache only for the index content it was kept for") {
  ws::gitbridge::LibGit2 libgit2;
  TempDir dir;
  fs::path repo = dir.path() / "repo", cache = dir.path() / "gitlink-cache";
  new_repo(repo);
  auto stamp = ws::gitbridge::index_stamp(repo / ".git" / "index");
  REQUIRE(stamp);
  // A cache naming a gitlink the index does not have, kept for this very index: it is used
  // (so a hit costs no read of the index) ...
  ws::gitbridge::save_gitlinks(cache, *stamp, {{"planted", true}});
  {
    RealRepo r(repo, cache);
    CHECK(r.gitlink("planted"));
    CHECK(r.containing_submodule("planted/f") == "planted");
  }
  // ... and not once the index changed (a new checksum).
  std::ofstream(repo / "b.txt") << "b\n";
  git(repo, "add b.txt");
  {
    RealRepo r(repo, cache);
    CHECK_FALSE(r.gitlink("planted"));
    CHECK(r.containing_submodule("planted/f").empty());
  }
  // A cut or foreign cache file is a miss, never an error.
  std::ofstream(cache, std::ios::trunc) << "ws-gitlinks 1\ngarbage";
  {
    RealRepo r(repo, cache);
    CHECK_FALSE(r.gitlink("planted"));
  }
  // No index at all (a new repository): nothing to cache, nothing is a gitlink.
  fs::path fresh = dir.path() / "fresh";
  fs::create_directories(fresh);
  git(fresh, "init -q .");
  RealRepo r(fresh, dir.path() / "fresh-cache");
  CHECK_FALSE(r.gitlink("sub"));
  CHECK_FALSE(fs::exists(dir.path() / "fresh-cache"));
}

TEST_CASE("gitlink cache: a submodule in a merge conflict still contains its paths") {
  ws::gitbridge::LibGit2 libgit2;
  TempDir dir;
  fs::path repo = dir.path() / "repo", cache = dir.path() / "gitlink-cache";
  new_repo(repo);
  // Stages 1-3 of `sub` only, as a conflicted submodule leaves the index.
  std::string info;
  for (int stage = 1; stage <= 3; ++stage) {
    info += "160000 " + std::string(k_commit) + " " + std::to_string(stage) + "\tsub\n";
  }
  REQUIRE(sh("printf %s " + q(info) + " | git update-index --index-info", repo).status == 0);
  std::vector<std::string> truth = uncached(repo);
  CHECK(truth[1] == "sub: - in ''"); // no gitlink at stage 0
  CHECK(truth[2] == "sub/x.c: - in 'sub'");
  for (int i = 0; i < 2; ++i) { // a miss, then a hit
    RealRepo cached(repo, cache);
    CHECK(answers(cached, k_paths) == truth);
  }
}

TEST_CASE("tracked_named: every path of the index with that last component, cached per index") {
  ws::gitbridge::LibGit2 libgit2;
  TempDir dir;
  fs::path repo = dir.path() / "repo", cache = dir.path() / "gitlink-cache";
  new_repo(repo);
  for (const char* p : {"conftest.py", "src/app/tests/conftest.py", "src/xconftest.py",
                        "src/conftest.py.bak", "conftest.py.d/x", "lib/conftest.py"}) {
    fs::create_directories((repo / p).parent_path());
    std::ofstream(repo / p) << "x\n";
  }
  git(repo, "add -A");
  const std::vector<std::string> want{"conftest.py", "lib/conftest.py",
                                      "src/app/tests/conftest.py"};
  CHECK(RealRepo(repo).tracked_named("conftest.py") == want);
  CHECK(RealRepo(repo, cache).tracked_named("conftest.py") == want); // a miss: kept
  REQUIRE(fs::exists(dir.path() / "named-cache-conftest.py"));
  CHECK(RealRepo(repo, cache).tracked_named("conftest.py") == want); // a hit
  // The person removes one: the index changed, the cache is not asked.
  git(repo, "rm -q --cached lib/conftest.py");
  CHECK(RealRepo(repo, cache).tracked_named("conftest.py") ==
        std::vector<std::string>{"conftest.py", "src/app/tests/conftest.py"});
  // An untracked one is not the person's tree as git knows it.
  std::ofstream(repo / "src" / "conftest.py") << "x\n";
  CHECK(RealRepo(repo, cache).tracked_named("conftest.py").size() == 2);
}
