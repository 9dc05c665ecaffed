// ws formats the patch of a file added or deleted whole itself (an agent's 200,000 new files
// would otherwise cost libgit2's whole diff machinery each): the patch, the stat and the
// numbers must be exactly libgit2's, byte for byte, whatever the change holds around them.
#include "gitbridge/patch.hpp"
#include "gitbridge/repository.hpp"
#include "tests/unit/gitbridge/blob_helpers.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

using ws::gitbridge::BlobSide;
using ws::gitbridge::build_patch;
using ws::gitbridge::FilePair;
using ws::gitbridge::GitMode;
using ws::gitbridge::Patch;
using ws::gitbridge::PatchEngine;
using namespace ws::test::blobs;

namespace {

std::string numbers(const Patch& p) {
  std::string out;
  for (const auto& f : p.files) {
    out += std::string(1, f.status) + " " + f.old_path + " -> " + f.path + " +" +
           std::to_string(f.added) + " -" + std::to_string(f.deleted) + (f.binary ? " bin" : "") +
           "\n";
  }
  return out;
}

void check_same(const std::vector<FilePair>& pairs) {
  Patch fast = build_patch(pairs);
  Patch ref = build_patch(pairs, {.engine = PatchEngine::LibGit2});
  CHECK(fast.id == ref.id);
  CHECK(fast.text == ref.text);
  CHECK(fast.stat == ref.stat);
  CHECK(numbers(fast) == numbers(ref));
}

/// Contents of every shape that decides how a patch looks.
std::vector<std::string> contents() {
  return {"one line\n",
          "no newline at the end",
          "two\nlines\n",
          "two\nlines, the last unfinished",
          "\n",
          "\n\n\n",
          "",
          "crlf\r\nlines\r\n",
          "a lone cr\r",
          "tab\there\n",
          "escape \033[31mred\033[m and \b backspace \f form feed \v vt\n",
          "utf-8: caf\xc3\xa9, \xe2\x80\xae bidi\n",
          "\xef\xbb\xbfutf-8 with a byte-order mark\n",
          "\xff\xfeutf-16ish\n",
          "a NUL \0 inside\n",
          "control \x01 byte\n",
          std::string(3000, 'x') + "\n" + std::string(200, '\x02'),
          "del \x7f char\n",
          "- a line that looks like a hunk\n+ and another\n@@ -1 +1 @@\n"};
}

std::vector<std::string> names() {
  return {"a",           "a.b",   "a-b",   "a/b",        "a/b/c.txt", "a0",          "b",
          "dir/x.c",     "dir.x", "dir/y", "with space", "quote\"d",  "back\\slash", "tab\tname",
          "caf\xc3\xa9", "Z",     "z/z/z", "new\nline",  "ab"};
}

} // namespace

TEST_CASE("gitbridge::build_patch formats added and deleted files as libgit2 does") {
  ws::gitbridge::LibGit2 libgit2;
  const auto texts = contents();
  const auto paths = names();
  // Each content, added and deleted, in each mode, alone.
  for (const auto& t : texts) {
    for (GitMode mode : {GitMode::File, GitMode::Executable, GitMode::Symlink}) {
      if (mode == GitMode::Symlink && t.find('\0') != std::string::npos) {
        continue; // a symlink target holds no NUL
      }
      CAPTURE(t);
      check_same({{"f.txt", "f.txt", {}, {mode, t}}});
      check_same({{"f.txt", "f.txt", {mode, t}, {}}});
    }
  }
  // Each name, alone.
  for (const auto& n : paths) {
    CAPTURE(n);
    check_same({{n, n, {}, file("x\n")}});
    check_same({{n, n, file("x\n"), {}}});
  }
}

TEST_CASE("gitbridge::build_patch mixes its own files and libgit2's in libgit2's order") {
  ws::gitbridge::LibGit2 libgit2;
  const auto texts = contents();
  const auto paths = names();
  std::mt19937 rng(20261125);
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  // (a named empty side: GCC 12 at -O3 takes a `{}` temporary's string for uninitialized)
  const BlobSide absent;
  for (int round = 0; round < 300; ++round) {
    CAPTURE(round);
    std::vector<FilePair> pairs;
    std::set<std::string> used; // a path appears in one pair only, as in a plan
    size_t count = 1 + pick(8);
    for (size_t i = 0; i < count; ++i) {
      std::string path = paths[pick(paths.size())];
      std::string t = texts[pick(texts.size())];
      std::string u = texts[pick(texts.size())];
      bool clash = false;
      for (const auto& u2 : used) {
        // git cannot hold a file and a directory at one path ("a" and "a/b").
        clash = clash || u2 == path || u2.starts_with(path + "/") || path.starts_with(u2 + "/");
      }
      if (clash) {
        continue;
      }
      switch (pick(5)) {
      case 0:
      case 1:
        pairs.push_back({path, path, absent, file(t)}); // added
        break;
      case 2:
        pairs.push_back({path, path, file(t), absent}); // deleted
        break;
      case 3:
        pairs.push_back({path, path, file(t), t == u ? exe(u) : file(u)}); // modified
        break;
      default: {
        std::string to = path + ".moved";
        bool to_clash = false;
        for (const auto& u2 : used) {
          to_clash = to_clash || u2 == to || u2.starts_with(to + "/") || to.starts_with(u2 + "/");
        }
        if (to_clash) {
          continue;
        }
        pairs.push_back({path, to, file(t), file(t + u)}); // renamed
        used.insert(to);
        break;
      }
      }
      used.insert(path);
    }
    std::sort(pairs.begin(), pairs.end(),
              [](const FilePair& a, const FilePair& b) { return a.new_path < b.new_path; });
    check_same(pairs);
  }
}
