// A kept patch updated file by file (gitbridge/patch_splice.hpp) must be byte for byte the
// patch build_patch makes of the whole new set of pairs: what `ws diff` prints after an edit
// is what a full computation prints. Random sets of pairs of every kind, some replaced, some
// gone, some new; when the splice answers, it must be exact.
#include "gitbridge/patch.hpp"
#include "gitbridge/patch_splice.hpp"
#include "gitbridge/repository.hpp"
#include "tests/unit/gitbridge/blob_helpers.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

using ws::gitbridge::BlobSide;
using ws::gitbridge::build_patch;
using ws::gitbridge::FilePair;
using ws::gitbridge::Patch;
using ws::gitbridge::splice_patch;
using namespace ws::test::blobs;

namespace {

std::string files_of(const Patch& p) {
  std::string out;
  for (const auto& f : p.files) {
    out += std::string(1, f.status) + " " + f.old_path + " -> " + f.path + " +" +
           std::to_string(f.added) + " -" + std::to_string(f.deleted) + (f.binary ? " bin" : "") +
           " " + std::to_string(f.text_size) + "\n";
  }
  return out;
}

std::vector<FilePair> sorted(std::vector<FilePair> v) {
  std::sort(v.begin(), v.end(),
            [](const FilePair& a, const FilePair& b) { return a.new_path < b.new_path; });
  return v;
}

} // namespace

TEST_CASE("gitbridge::splice_patch gives build_patch's patch of the new pairs") {
  ws::gitbridge::LibGit2 libgit2;
  const std::vector<std::string> names{"a",    "a.b", "a-b",   "a/b",   "a/b/c.txt", "a0",
                                       "b",    "d/x", "d.x",   "d/y/z", "sp ace",    "q\"d",
                                       "t\tn", "Z",   "z/z/z", "ab",    "m/n",       "m-n"};
  const std::vector<std::string> texts{"one\n", "two\nlines\n", "no newline",
                                       "",      "a\0b\n",       "x\ny\nz\n"};
  std::mt19937 rng(20261126);
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  auto side = [&] {
    const std::string& t = texts[pick(texts.size())];
    switch (pick(4)) {
    case 0:
      return exe(t);
    case 1:
      return t.find('\0') == std::string::npos && !t.empty() ? link(t.substr(0, 3)) : file(t);
    default:
      return file(t);
    }
  };
  const BlobSide absent;
  int answered = 0;
  for (int round = 0; round < 400; ++round) {
    CAPTURE(round);
    // One pair per path at most, no file where another path needs a directory.
    std::map<std::string, int> fate; // 0 kept, 1 replaced, 2 gone, 3 new
    std::vector<std::string> chosen;
    for (const std::string& n : names) {
      bool clash = false;
      for (const std::string& c : chosen) {
        clash = clash || c.starts_with(n + "/") || n.starts_with(c + "/");
      }
      if (!clash && pick(3) != 0) {
        chosen.push_back(n);
      }
    }
    auto make = [&](const std::string& path) -> FilePair {
      switch (pick(6)) {
      case 0:
        return {path, path, absent, side()}; // added
      case 1:
        return {path, path, side(), absent}; // deleted
      case 2: {
        const bool renames = rng() % 8 == 0;
        std::string from = path + ".old";
        return {renames ? from : path, path, file("same\nlines\n"), file("same\nlines\nmore\n")};
      }
      default: {
        BlobSide before = side(), after = side();
        return {path, path, before, after}; // modified, mode or type changed
      }
      }
    };
    std::vector<FilePair> before, after, fresh;
    std::vector<std::string> kept_paths;
    for (const std::string& path : chosen) {
      int f = static_cast<int>(pick(4));
      FilePair old = make(path), now = make(path);
      if (f != 3) {
        before.push_back(old);
      }
      if (f == 0) {
        after.push_back(old);
        kept_paths.push_back(path);
      } else if (f != 2) {
        after.push_back(now);
        fresh.push_back(now);
      }
    }
    const Patch old_patch = build_patch(sorted(before), {.stat = false});
    const Patch fresh_patch = build_patch(sorted(fresh), {.stat = false});
    const Patch full = build_patch(sorted(after), {.stat = false});
    std::vector<bool> keep;
    for (const auto& f : old_patch.files) {
      keep.push_back(std::find(kept_paths.begin(), kept_paths.end(), f.path) != kept_paths.end());
    }
    std::optional<Patch> spliced = splice_patch(old_patch, keep, fresh_patch);
    if (!spliced) {
      continue;
    }
    ++answered;
    CHECK(spliced->text == full.text);
    CHECK(files_of(*spliced) == files_of(full));
  }
  // It answers most of the time (it refuses renames among what it replaces).
  CHECK(answered > 200);
}

TEST_CASE("gitbridge::splice_patch refuses what it cannot vouch for") {
  ws::gitbridge::LibGit2 libgit2;
  Patch kept = build_patch({{"a", "a", {}, file("a\n")}, {"c", "c", {}, file("c\n")}});
  Patch fresh = build_patch({{"b", "b", {}, file("b\n")}});
  REQUIRE(splice_patch(kept, {true, true}, fresh));
  CHECK(splice_patch(kept, {true, true}, fresh)->text ==
        build_patch(
            {{"a", "a", {}, file("a\n")}, {"b", "b", {}, file("b\n")}, {"c", "c", {}, file("c\n")}})
            .text);
  // A path in both.
  Patch again = build_patch({{"a", "a", {}, file("other\n")}});
  CHECK(!splice_patch(kept, {true, true}, again));
  CHECK(splice_patch(kept, {false, true}, again));
  // Sizes that do not add up.
  Patch broken = kept;
  broken.files[0].text_size += 1;
  CHECK(!splice_patch(broken, {true, true}, fresh));
  // A rename among the fresh files.
  Patch renamed = build_patch({{"x", "y", file("same\nlines\n"), file("same\nlines\nmore\n")}});
  REQUIRE(renamed.files.size() == 1);
  REQUIRE(renamed.files[0].status == 'R');
  CHECK(!splice_patch(kept, {true, true}, renamed));
  CHECK(!splice_patch(renamed, {false}, fresh));
  CHECK(splice_patch(renamed, {true}, fresh));
}
