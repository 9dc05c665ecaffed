// A cache written as a base and a delta reads back as the bytes written, or not at all
// (src/transfer/cache_delta.hpp, cache_codec.hpp).
#include "src/transfer/cache_codec.hpp"
#include "src/transfer/cache_delta.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

using namespace ws;

namespace {

/// Bytes like a cache's: records of similar paths and numbers (repetitive, as the real ones).
std::string records(std::mt19937& rng, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    out += "gen/m" + std::to_string(i / 100) + "/f" + std::to_string(i % 100) + ".txt";
    out += std::string(1, '\0') + std::to_string(rng() % 1000) + "\n";
  }
  return out;
}

/// `base` with a few random replacements, insertions and deletions.
std::string edited(std::mt19937& rng, std::string base) {
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !base.empty(); ++e) {
    size_t at = rng() % base.size();
    size_t len = std::min<size_t>(base.size() - at, rng() % 3 == 0 ? rng() % 200 : rng() % 8);
    std::string with(rng() % 3 == 0 ? rng() % 300 : rng() % 9, 'x');
    for (char& c : with) {
      c = static_cast<char>('a' + rng() % 26);
    }
    switch (rng() % 3) {
    case 0:
      base.replace(at, len, with);
      break;
    case 1:
      base.insert(at, with);
      break;
    default:
      base.erase(at, len);
      break;
    }
  }
  return base;
}

std::string read_back(const std::filesystem::path& file, const char (&magic)[8]) {
  std::optional<CacheBytes> b = read_cache_file(file, magic);
  return b ? std::string(b->data, b->size) : std::string("<none>");
}

constexpr char k_magic[8] = {'t', 'e', 's', 't', 'c', 'a', 'c', 'h'};

std::string with_magic(const std::string& body) {
  return std::string(k_magic, 8) + body;
}

} // namespace

TEST_CASE("byte edits, whenever found, make the new bytes from the base") {
  std::mt19937 rng(7);
  int found = 0;
  for (int round = 0; round < 400; ++round) {
    std::string base = records(rng, 50 + rng() % 400);
    std::string now = edited(rng, base);
    std::optional<std::vector<ByteEdit>> edits = byte_edits(base, now, base.size());
    if (!edits) {
      continue;
    }
    ++found;
    std::string out(now.size(), '\0');
    REQUIRE(apply_byte_edits(base, *edits, now.size(), out.data()));
    REQUIRE(out == now);
    // Edits that do not fit are refused, not applied past the end.
    CHECK_FALSE(apply_byte_edits(base, *edits, now.size() + 1, out.data()));
  }
  MESSAGE("found edits in " << found << " of 400");
  CHECK(found > 300);
}

TEST_CASE("byte edits of what one edit changes in a cache are a few bytes") {
  std::mt19937 rng(3);
  const std::string base = "token-0999" + records(rng, 20000);
  std::string now = base;
  now.replace(0, 10, "token-1000");                     // the token
  now.insert(base.size() / 2, "gen/m99/new.txt\0x1\n"); // an entry
  now.replace(base.size() * 3 / 4, 3, "zzzz");          // a size
  std::optional<std::vector<ByteEdit>> edits = byte_edits(base, now, base.size() / 8);
  REQUIRE(edits);
  size_t bytes = 0;
  for (const ByteEdit& e : *edits) {
    bytes += e.bytes.size();
  }
  CHECK(bytes < 64);
  CHECK_FALSE(byte_edits(base, records(rng, 20000), base.size() / 8)); // all of it: rewrite
}

TEST_CASE("a cache file written as base and delta reads back as written, or not at all") {
  test::TempDir dir;
  const std::filesystem::path file = dir.path() / "cache";
  std::filesystem::path delta = file;
  delta += ".delta";
  std::mt19937 rng(11);
  std::string body = records(rng, 3000);
  write_cache_file(file, with_magic(body));
  CHECK_FALSE(std::filesystem::exists(delta));
  CHECK(read_back(file, k_magic) == body);

  // Small changes go to the delta, and accumulate there against the same base.
  const auto base_time = std::filesystem::last_write_time(file);
  for (int i = 0; i < 5; ++i) {
    body[rng() % body.size()] = 'Q';
    write_cache_file(file, with_magic(body));
    REQUIRE(std::filesystem::exists(delta));
    CHECK(std::filesystem::last_write_time(file) == base_time);
    CHECK(read_back(file, k_magic) == body);
  }
  // Another magic is another cache.
  constexpr char other[8] = {'o', 't', 'h', 'e', 'r', 'c', 'a', 'c'};
  CHECK(read_back(file, other) == "<none>");

  SUBCASE("a delta that does not read back whole is no cache") {
    std::string d;
    {
      std::ifstream in(delta, std::ios::binary);
      d.assign(std::istreambuf_iterator<char>(in), {});
    }
    for (size_t at : {size_t(9), d.size() / 2, d.size() - 1}) {
      std::string bad = d;
      bad[at] ^= 1;
      std::ofstream(delta, std::ios::binary | std::ios::trunc) << bad;
      CHECK(read_back(file, k_magic) == "<none>");
    }
    std::ofstream(delta, std::ios::binary | std::ios::trunc) << d.substr(0, d.size() - 5); // torn
    CHECK(read_back(file, k_magic) == "<none>");
    // The next write replaces it.
    body[5] = 'R';
    write_cache_file(file, with_magic(body));
    CHECK(read_back(file, k_magic) == body);
  }
  SUBCASE("a delta of another base is no cache") {
    std::string d;
    {
      std::ifstream in(delta, std::ios::binary);
      d.assign(std::istreambuf_iterator<char>(in), {});
    }
    std::string other_body = records(rng, 3000);
    std::filesystem::remove(delta);
    write_cache_file(file, with_magic(other_body)); // a new base (folded)
    CHECK_FALSE(std::filesystem::exists(delta));
    CHECK(read_back(file, k_magic) == other_body);
    std::ofstream(delta, std::ios::binary | std::ios::trunc) << d; // the old base's delta
    CHECK(read_back(file, k_magic) == "<none>");
  }
  SUBCASE("past an eighth of the base, the base is written whole and the delta removed") {
    std::string big = body;
    for (size_t i = 0; i < big.size() / 4; ++i) {
      big[(i * 7919) % big.size()] = static_cast<char>('a' + i % 26);
    }
    write_cache_file(file, with_magic(big));
    CHECK_FALSE(std::filesystem::exists(delta));
    CHECK(std::filesystem::last_write_time(file) != base_time);
    CHECK(read_back(file, k_magic) == big);
  }
  SUBCASE("a damaged base is no cache, and is replaced whole, not built on") {
    {
      std::fstream f(file, std::ios::binary | std::ios::in | std::ios::out);
      f.seekp(100);
      f.put('!');
    }
    CHECK(read_back(file, k_magic) == "<none>");
    body[7] = 'S';
    write_cache_file(file, with_magic(body));
    CHECK_FALSE(std::filesystem::exists(delta));
    CHECK(read_back(file, k_magic) == body);
  }
  remove_cache_file(file);
  CHECK_FALSE(std::filesystem::exists(file));
  CHECK_FALSE(std::filesystem::exists(delta));
}

// A body spliced from pieces of the cache read back (a kept patch text with files dropped and
// new ones put in) is kept as a delta found from where its pieces lie, and reads back as
// exactly the joined pieces, each time against the same base.
TEST_CASE("a cache body in pieces of the read-back cache is kept as its delta") {
  test::TempDir dir;
  const std::filesystem::path file = dir.path() / "text";
  std::filesystem::path delta = file;
  delta += ".delta";
  std::mt19937 rng(17);
  std::string body = records(rng, 3000);
  write_cache_file(file, with_magic(body));
  auto base_time = std::filesystem::last_write_time(file);
  int deltas = 0;
  for (int round = 0; round < 40; ++round) {
    std::unique_ptr<CachePieces> kept = read_cache_pieces(file, k_magic);
    REQUIRE(kept);
    REQUIRE(kept->body.joined() == body);
    // Stretches of the kept body in order, some left out (a deletion), some new bytes put in
    // between (an edit, a new file), the way a splice of files makes them.
    Pieces now;
    Pieces::Cursor cursor;
    std::vector<std::string> fresh;
    fresh.reserve(64); // the pieces point into these
    size_t at = 0;
    while (at < body.size()) {
      const size_t n = std::min<size_t>(body.size() - at, 1 + rng() % 4000);
      switch (rng() % 16) {
      case 0:
        break; // left out
      case 1:
        fresh.push_back(std::string(1 + rng() % 40, static_cast<char>('a' + rng() % 26)));
        now.append(fresh.back());
        REQUIRE(now.append_slice(kept->body, at, n, cursor));
        break;
      default:
        REQUIRE(now.append_slice(kept->body, at, n, cursor));
      }
      at += n;
    }
    const std::string expected = now.joined();
    REQUIRE(expected.size() == now.size);
    const fuse::Hash128 sum = write_cache_pieces(file, k_magic, now, kept.get());
    kept.reset();
    CHECK(sum == fuse::hash_bytes(expected));
    CHECK(read_back(file, k_magic) == expected);
    if (std::filesystem::exists(delta)) {
      ++deltas;
      CHECK(std::filesystem::last_write_time(file) == base_time); // the base untouched
    } else {
      base_time = std::filesystem::last_write_time(file); // folded: a new base
    }
    body = expected;
  }
  CHECK(deltas > 20);
  // A cursor never goes back; a slice past the end is refused.
  std::unique_ptr<CachePieces> kept = read_cache_pieces(file, k_magic);
  REQUIRE(kept);
  Pieces p;
  Pieces::Cursor c;
  CHECK(p.append_slice(kept->body, 10, 5, c));
  CHECK_FALSE(p.append_slice(kept->body, kept->body.size, 1, c));
}
