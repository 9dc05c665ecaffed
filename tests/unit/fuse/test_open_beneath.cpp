// fuse::open_beneath on paths longer than PATH_MAX: walked in chunks, with the same refusals
// (symlinks, "..", leaving the root) in every chunk, not only the first.
#include "fuse/changes.hpp"
#include "fuse/unique_fd.hpp"
#include "tests/support/harness.hpp"

#include <climits>
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>

using ws::fuse::open_beneath;
using ws::fuse::UniqueFd;

namespace {

constexpr int k_depth = 3000; // "d/" * 3000: 6,000 bytes

std::string chain(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    out += "d/";
  }
  return out;
}

/// `root`/d/d/... `k_depth` deep, made one openat at a time; `leaf.txt` at the bottom.
/// Removed with rm -rf (GNU rm walks with fds), which std::filesystem cannot do here.
class DeepTree {
public:
  DeepTree() : root(::open(m_dir.path().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)) {
    UniqueFd dir(::dup(root.get()));
    for (int i = 0; i < k_depth; ++i) {
      REQUIRE(::mkdirat(dir.get(), "d", 0755) == 0);
      dir.reset(::openat(dir.get(), "d", O_PATH | O_DIRECTORY | O_CLOEXEC));
      REQUIRE(dir);
    }
    UniqueFd rw(::openat(dir.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    UniqueFd f(::openat(rw.get(), "leaf.txt", O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
    REQUIRE(f);
    REQUIRE(::write(f.get(), "bottom\n", 7) == 7);
  }
  ~DeepTree() { ws::test::sh("cd " + ws::test::q(m_dir.path().string()) + " && rm -rf d*"); }
  DeepTree(const DeepTree&) = delete;
  DeepTree& operator=(const DeepTree&) = delete;

  /// Replaces the directory at depth `level` (1 = the top one) with a symlink to `target`.
  void symlink_at(int level, const std::string& target) const {
    UniqueFd dir(::dup(root.get()));
    for (int i = 1; i < level; ++i) {
      dir.reset(::openat(dir.get(), "d", O_PATH | O_DIRECTORY | O_CLOEXEC));
      REQUIRE(dir);
    }
    REQUIRE(::renameat(dir.get(), "d", dir.get(), "d.real") == 0);
    REQUIRE(::symlinkat(target.c_str(), dir.get(), "d") == 0);
  }

private:
  ws::test::TempDir m_dir;

public:
  UniqueFd root;
};

std::string read_fd(int fd) {
  char buf[64];
  ssize_t n = ::pread(fd, buf, sizeof buf, 0);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

} // namespace

TEST_CASE("fuse::open_beneath opens a path longer than PATH_MAX") {
  DeepTree t;
  std::string leaf = chain(k_depth) + "leaf.txt";
  REQUIRE(leaf.size() > PATH_MAX);
  UniqueFd fd(open_beneath(t.root.get(), leaf, O_RDONLY | O_NOFOLLOW));
  REQUIRE_MESSAGE(fd, "errno " << errno);
  CHECK(read_fd(fd.get()) == "bottom\n");

  std::string dir = chain(k_depth);
  dir.pop_back();
  UniqueFd d(open_beneath(t.root.get(), dir, O_PATH | O_DIRECTORY | O_NOFOLLOW));
  CHECK(d);
  UniqueFd missing(open_beneath(t.root.get(), chain(k_depth) + "nothing", O_RDONLY));
  CHECK(!missing);
  CHECK(errno == ENOENT);
}

TEST_CASE("fuse::open_beneath refuses a symlink in any chunk of a long path") {
  for (int level : {3, 2100, 2999}) { // first chunk, a middle one, the last
    CAPTURE(level);
    DeepTree t;
    t.symlink_at(level, "d.real");
    UniqueFd fd(open_beneath(t.root.get(), chain(k_depth) + "leaf.txt", O_RDONLY | O_NOFOLLOW));
    CHECK(!fd);
    CHECK((errno == ELOOP || errno == ENOTDIR));
  }
}

TEST_CASE("fuse::open_beneath never leaves the root through .. in a later chunk") {
  DeepTree t;
  // 2,100 levels down, then 2,101 up: one level above the root, and over a chunk boundary.
  std::string rel = chain(2100);
  for (int i = 0; i < 2101; ++i) {
    rel += "../";
  }
  rel += "etc";
  UniqueFd fd(open_beneath(t.root.get(), rel, O_PATH));
  CHECK(!fd);
  std::string inside = chain(2100);
  for (int i = 0; i < 2100; ++i) {
    inside += "../";
  }
  inside += "d";
  UniqueFd still(open_beneath(t.root.get(), inside, O_PATH));
  CHECK(!still); // ".." that crosses a chunk boundary is refused too, not resolved
}

TEST_CASE("fuse::open_beneath opens a symlink itself at the end of a long path with O_PATH") {
  DeepTree t;
  t.symlink_at(k_depth, "/etc/passwd");
  std::string rel = chain(k_depth);
  rel.pop_back();
  UniqueFd fd(open_beneath(t.root.get(), rel, O_PATH | O_NOFOLLOW));
  REQUIRE(fd);
  struct stat st {};
  REQUIRE(::fstat(fd.get(), &st) == 0);
  CHECK(S_ISLNK(st.st_mode));
}
