// The plan cache's files kept as a base and a delta (docs/transfer.md, "Kept as a base and a
// delta"): whatever the caches hold, `ws diff`, `ws apply --check` and `ws status` say what a
// full read says.
#include "tests/integration/plan_cache_support.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

using namespace ws::test;

namespace {

/// `file`'s bytes with one byte of each match of `pattern` changed (an id's hex digit, a
/// letter of a file's text): the bytes of a delta still parse, and say something else.
bool damage(const std::filesystem::path& file, const std::string& pattern) {
  Run r = sh("python3 - " + q(file.string()) + " " + q(pattern) +
             " <<'PY'\n"
             "import re, sys\n"
             "p, pattern = sys.argv[1], sys.argv[2].encode()\n"
             "b = bytearray(open(p, 'rb').read())\n"
             "runs = list(re.finditer(pattern, b))\n"
             "if not runs: sys.exit(1)\n"
             "for m in runs:\n"
             "    at = m.start() + 3\n"
             "    b[at] = ord('0') if b[at] != ord('0') else ord('1')\n"
             "open(p, 'wb').write(b)\n"
             "PY");
  return r.status == 0;
}

std::filesystem::path with_delta(const std::filesystem::path& file) {
  std::filesystem::path d = file;
  d += ".delta";
  return d;
}

} // namespace

// The caches kept as a base and a delta of what changed since (src/transfer/cache_codec.hpp):
// after each small change only the delta is written, the base stays; a delta past an eighth of
// its base is folded into a new base; a delta that is damaged, torn or of another base makes
// no cache (a full read), never another answer.
TEST_CASE("plan cache: caches kept as base and delta say what a full read says") {
  TestRepo repo;
  commit_small_project(repo);
  MountedWorkspace w(repo);
  // Enough files that one edit is a small part of each cache.
  REQUIRE(w.in_view("for d in 1 2 3 4 5 6; do mkdir -p gen/m$d && for i in $(seq 40); do "
                    "echo $d $i > gen/m$d/f$i.txt; done; done")
              .status == 0);
  const std::filesystem::path state = w.state_dir();
  const std::vector<std::string> caches{"plan-cache", "manifest-cache", "patch-cache",
                                        "patch-cache.text"};
  auto same_as_full = [&](const std::string& what) {
    for (const char* args : {"diff --no-pager", "apply --check", "status --json"}) {
      Run kept = with_cache(w, args, true);
      Run full = with_cache(w, args, false);
      INFO(what << ": ws " << std::string(args) << "\nkept:\n"
                << kept.out << kept.err << "\nfull:\n"
                << full.out);
      CHECK(kept.status == full.status);
      CHECK(kept.out == full.out);
    }
  };
  same_as_full("first");
  std::map<std::string, std::filesystem::file_time_type> base_time;
  for (const std::string& c : caches) {
    REQUIRE(std::filesystem::exists(state / c));
    base_time[c] = std::filesystem::last_write_time(state / c);
  }
  // Small changes: deltas, against the same bases (the text's found from where the pieces of
  // the kept text lie: an edit, a new file, a deletion, each one file's text among many).
  for (int i = 1; i <= 6; ++i) {
    REQUIRE(w.in_view("echo more >> gen/m" + std::to_string(i) + "/f3.txt" +
                      (i % 2 ? "" : " && echo n > gen/m1/new" + std::to_string(i) + ".txt") +
                      (i % 3 ? "" : " && rm gen/m" + std::to_string(i - 1) + "/f7.txt"))
                .status == 0);
    same_as_full("small change " + std::to_string(i));
    for (const std::string& c : caches) {
      INFO(c << " after small change " << i);
      CHECK(std::filesystem::exists(with_delta(state / c)));
      CHECK(std::filesystem::last_write_time(state / c) == base_time[c]);
    }
  }
  const std::filesystem::path manifest = state / "manifest-cache";
  const std::filesystem::path old_delta = state / "manifest-delta-of-the-first-base";
  std::filesystem::copy_file(with_delta(manifest), old_delta);

  // A delta whose bytes say another id: with its digests it is no cache, and the answers are
  // a full read's (the ids a person reviews must be the ids of what lands).
  REQUIRE(w.in_view("echo again >> gen/m2/f9.txt").status == 0);
  REQUIRE(w.ws("diff --no-pager").status == 0);
  REQUIRE(std::filesystem::exists(with_delta(manifest)));
  REQUIRE(damage(with_delta(manifest), "[0-9a-f]{16,}"));
  REQUIRE(damage(with_delta(state / "patch-cache.text"), "again"));
  // (another file: the damaged entries, of gen/m2/f9.txt, would be taken as they are)
  REQUIRE(w.in_view("echo once more >> gen/m5/f9.txt").status == 0);
  same_as_full("a damaged delta");
  // Torn: cut short.
  REQUIRE(w.in_view("echo and more >> gen/m3/f9.txt").status == 0);
  REQUIRE(w.ws("apply --check").status == 0);
  REQUIRE(std::filesystem::exists(with_delta(manifest)));
  std::filesystem::resize_file(with_delta(manifest),
                               std::filesystem::file_size(with_delta(manifest)) - 9);
  same_as_full("a torn delta");

  // Many changes: past an eighth of a base, it is written whole again (folded; the deltas
  // of later commands are against the new base).
  REQUIRE(w.in_view("for f in gen/m4/* gen/m5/* gen/m6/*; do echo changed >> $f; done").status ==
          0);
  same_as_full("many changes");
  for (const std::string& c : {std::string("plan-cache"), std::string("manifest-cache")}) {
    INFO(c << " after many changes");
    CHECK(std::filesystem::last_write_time(state / c) != base_time[c]);
  }
  // After the fold, small changes are deltas of the new bases again.
  for (const char* step :
       {"echo after >> gen/m4/f2.txt", "echo n > gen/m2/new-after.txt", "rm gen/m6/f11.txt"}) {
    REQUIRE(w.in_view(step).status == 0);
    same_as_full(std::string("after the fold: ") + step);
    CHECK(std::filesystem::exists(with_delta(state / "patch-cache.text")));
  }
  // A delta of the first base put beside the new one (stale): no cache, a full read.
  std::filesystem::rename(old_delta, with_delta(manifest));
  REQUIRE(w.in_view("echo last >> gen/m1/f1.txt").status == 0);
  same_as_full("a delta of another base");
}
