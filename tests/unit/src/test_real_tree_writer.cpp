// The all-or-nothing landing in the person's real tree, on real directories (and a tiny
// tmpfs for a full disk).
#include "src/cli/error.hpp"
#include "src/transfer/real_tree_writer.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using ws::Landing;
using ws::RealTreeTransaction;
using ws::gitbridge::BlobSide;
using ws::gitbridge::GitMode;
using ws::test::q;
using ws::test::sh;

namespace {

void write_file(const fs::path& p, const std::string& bytes, mode_t perm = 0644) {
  fs::create_directories(p.parent_path());
  {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << bytes;
    REQUIRE(out.good());
  }
  REQUIRE(::chmod(p.c_str(), perm) == 0);
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

mode_t perm_of(const fs::path& p) {
  struct stat st {};
  REQUIRE(::lstat(p.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

Landing file(const std::string& path, const std::string& text, mode_t perm = 0644) {
  return {path, {GitMode::File, text}, perm};
}
Landing slink(const std::string& path, const std::string& target) {
  return {path, {GitMode::Symlink, target}, 0777};
}
Landing gone(const std::string& path) {
  return {path, {}, 0};
}

bool is_staging(const std::string& name) {
  return name.rfind(".ws-apply-", 0) == 0;
}

/// Everything under `root` without following symlinks, one line each: path, type, permission
/// bits, and the bytes (files, with their inode: a replaced file put back must be the same
/// file) or the target (symlinks). Staging directories are left out unless `all`.
std::string snapshot(const fs::path& root, bool all = false) {
  std::vector<std::string> lines;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    std::string rel = it->path().lexically_relative(root).string();
    if (!all && is_staging(rel.substr(0, rel.find('/')))) {
      it.disable_recursion_pending();
      continue;
    }
    struct stat st {};
    REQUIRE(::lstat(it->path().c_str(), &st) == 0);
    std::ostringstream line;
    line << q(rel) << " " << std::oct << (st.st_mode & 07777) << std::dec;
    if (S_ISDIR(st.st_mode)) {
      line << " dir";
    } else if (S_ISLNK(st.st_mode)) {
      line << " -> " << q(fs::read_symlink(it->path()).string());
    } else {
      line << " ino " << st.st_ino << " " << q(read_file(it->path()));
    }
    lines.push_back(line.str());
  }
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const auto& l : lines) {
    out += l + "\n";
  }
  return out;
}

std::vector<std::string> staging_dirs(const fs::path& root) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(root)) {
    if (is_staging(e.path().filename().string())) {
      out.push_back(e.path().filename().string());
    }
  }
  return out;
}

/// What `fn` throws as ws::Error ("" when it does not throw).
std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const ws::Error& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// A real tree the person has: files, an executable, a symlink, nested directories.
struct RealTree {
  ws::test::TempDir dir;
  fs::path root = dir.path() / "project";
  RealTree() {
    write_file(root / "keep.txt", "the person's file\n");
    write_file(root / "x.txt", "x\n");
    write_file(root / "run.sh", "#!/bin/sh\n", 0755);
    write_file(root / "d/only.txt", "only\n", 0600);
    REQUIRE(::chmod((root / "d").c_str(), 0750) == 0);
    write_file(root / "somedir/inside.txt", "inside\n");
    write_file(root / "two/a.txt", "a\n");
    write_file(root / "two/b.txt", "b\n");
    fs::create_symlink("keep.txt", root / "ln");
  }
};

/// Lands `landings` in one transaction; "" or the error's message.
std::string land(const fs::path& root, const std::vector<Landing>& landings) {
  return error_of([&] {
    RealTreeTransaction tx(root);
    for (const auto& l : landings) {
      tx.stage(l);
    }
    tx.commit();
  });
}

} // namespace

TEST_CASE("ws::RealTreeTransaction writes new files and creates their directories") {
  RealTree t;
  std::string before = snapshot(t.root);
  {
    RealTreeTransaction tx(t.root);
    tx.stage(file("a/b/c/new.txt", "new\n"));
    tx.stage(file("top.txt", "top\n", 0640));
    CHECK(snapshot(t.root) == before); // staged: nothing in the tree yet
    CHECK(staging_dirs(t.root).size() == 1);
    tx.commit();
    CHECK(read_file(t.root / "a/b/c/new.txt") == "new\n");
  }
  CHECK(read_file(t.root / "a/b/c/new.txt") == "new\n");
  CHECK(perm_of(t.root / "a/b/c/new.txt") == 0644);
  CHECK(fs::is_directory(t.root / "a/b/c"));
  CHECK(read_file(t.root / "top.txt") == "top\n");
  CHECK(perm_of(t.root / "top.txt") == 0640);
  CHECK(read_file(t.root / "keep.txt") == "the person's file\n");
  CHECK(staging_dirs(t.root).empty());
}

TEST_CASE("ws::RealTreeTransaction replaces existing files and symlinks") {
  RealTree t;
  CHECK(land(t.root, {file("keep.txt", "new content\n", 0600), file("ln", "was a link\n"),
                      slink("x.txt", "keep.txt"), file("run.sh", "#!/bin/sh\necho 2\n", 0755)}) ==
        "");
  CHECK(read_file(t.root / "keep.txt") == "new content\n");
  CHECK(perm_of(t.root / "keep.txt") == 0600);
  CHECK(fs::is_regular_file(fs::symlink_status(t.root / "ln")));
  CHECK(read_file(t.root / "ln") == "was a link\n");
  CHECK(fs::is_symlink(t.root / "x.txt"));
  CHECK(fs::read_symlink(t.root / "x.txt") == "keep.txt");
  CHECK(read_file(t.root / "run.sh") == "#!/bin/sh\necho 2\n");
  CHECK(perm_of(t.root / "run.sh") == 0755);
  CHECK(staging_dirs(t.root).empty());
}

TEST_CASE("ws::RealTreeTransaction deletes files and the directories they emptied") {
  RealTree t;
  write_file(t.root / "deep/er/est/f.txt", "f\n");
  write_file(t.root / "half/sub/f.txt", "f\n");
  write_file(t.root / "half/stays.txt", "stays\n");
  fs::create_directories(t.root / "withempty/empty");
  write_file(t.root / "withempty/f.txt", "f\n");
  CHECK(land(t.root, {gone("deep/er/est/f.txt"), gone("half/sub/f.txt"), gone("two/a.txt"),
                      gone("withempty/f.txt"), gone("ln"), gone("x.txt"),
                      gone("not/there/at/all.txt"), gone("missing.txt")}) == "");
  CHECK_FALSE(fs::exists(t.root / "deep"));
  CHECK_FALSE(fs::exists(t.root / "half/sub"));
  CHECK(read_file(t.root / "half/stays.txt") == "stays\n");
  CHECK_FALSE(fs::exists(t.root / "two/a.txt"));
  CHECK(read_file(t.root / "two/b.txt") == "b\n");
  CHECK(fs::is_directory(t.root / "withempty/empty")); // not emptied by a deletion
  CHECK_FALSE(fs::exists(fs::symlink_status(t.root / "ln")));
  CHECK(read_file(t.root / "keep.txt") == "the person's file\n"); // the link's target
  CHECK_FALSE(fs::exists(t.root / "x.txt"));
  CHECK(fs::is_directory(t.root));
  CHECK(staging_dirs(t.root).empty());
}

TEST_CASE("ws::RealTreeTransaction sets permission bits exactly") {
  RealTree t;
  mode_t old_umask = ::umask(077);
  std::string error =
      land(t.root, {file("p/666", "x", 0666), file("p/755", "x", 0755), file("p/600", "x", 0600),
                    file("p/444", "x", 0444), file("keep.txt", "x", 0664)});
  ::umask(old_umask);
  CHECK(error == "");
  CHECK(perm_of(t.root / "p/666") == 0666);
  CHECK(perm_of(t.root / "p/755") == 0755);
  CHECK(perm_of(t.root / "p/600") == 0600);
  CHECK(perm_of(t.root / "p/444") == 0444);
  CHECK(perm_of(t.root / "keep.txt") == 0664);
}

TEST_CASE("ws::RealTreeTransaction writes symlinks") {
  RealTree t;
  CHECK(land(t.root, {slink("links/up", "../keep.txt"), slink("dangling", "no/such/target"),
                      slink("ln", "x.txt"), slink("abs", "/etc/hostname")}) == "");
  CHECK(fs::read_symlink(t.root / "links/up") == "../keep.txt");
  CHECK(read_file(t.root / "links/up") == "the person's file\n");
  CHECK(fs::read_symlink(t.root / "dangling") == "no/such/target");
  CHECK(fs::read_symlink(t.root / "ln") == "x.txt");
  CHECK(fs::read_symlink(t.root / "abs") == "/etc/hostname");
}

TEST_CASE("ws::RealTreeTransaction turns a file into a directory and back") {
  RealTree t;
  CHECK(land(t.root, {gone("x.txt"), file("x.txt/inner.txt", "inner\n"), gone("d/only.txt"),
                      file("d", "d is a file now\n")}) == "");
  CHECK(read_file(t.root / "x.txt/inner.txt") == "inner\n");
  CHECK(fs::is_regular_file(t.root / "d"));
  CHECK(read_file(t.root / "d") == "d is a file now\n");
}

TEST_CASE("ws::RealTreeTransaction needs an existing tree") {
  ws::test::TempDir dir;
  std::string error = error_of([&] { RealTreeTransaction tx(dir.path() / "missing"); });
  CHECK(contains(error, "cannot open the real tree"));
  CHECK(contains(error, (dir.path() / "missing").string()));
}

TEST_CASE("ws::check_landing_path refuses paths that leave the tree or enter .git") {
  for (const char* bad : {"", "/abs", "/", "a/../b", "..", "../x", ".", "./a", "a/.", "a//b", "a/",
                          ".git", ".git/x", "sub/.GIT/config", "x/.Git", "a/.git/b/c"}) {
    INFO("path: ", q(bad));
    CHECK_THROWS_AS(ws::check_landing_path(bad), ws::Error);
  }
  for (const char* good : {"a", "a/b/c", ".gitignore", "sub/.github/x", "..foo", "a..b", ".git-x/y",
                           "dir with space/f", "x.git", "caf\xc3\xa9"}) {
    INFO("path: ", q(good));
    CHECK_NOTHROW(ws::check_landing_path(good));
  }
}

TEST_CASE("ws::RealTreeTransaction stage refuses an irregular path") {
  RealTree t;
  std::string before = snapshot(t.root);
  RealTreeTransaction tx(t.root);
  CHECK(contains(error_of([&] { tx.stage(file(".git/hooks/pre-commit", "evil")); }), ".git"));
  CHECK(contains(error_of([&] { tx.stage(file("../escape.txt", "x")); }), "irregular"));
  CHECK(contains(error_of([&] { tx.stage(file("/etc/passwd", "x")); }), "outside"));
  tx.commit();
  CHECK(snapshot(t.root) == before);
  CHECK_FALSE(fs::exists(t.dir.path() / "escape.txt"));
  CHECK_FALSE(fs::exists(t.root / ".git"));
}

TEST_CASE("ws::RealTreeTransaction refuses to write through a symlinked directory") {
  RealTree t;
  fs::path outside = t.dir.path() / "outside";
  write_file(outside / "victim.txt", "outside\n");
  fs::create_symlink(outside, t.root / "lnk");
  fs::create_symlink("somedir", t.root / "inner-lnk");
  std::string before = snapshot(t.root), outside_before = snapshot(outside);
  std::string error;
  SUBCASE("a write") {
    error = land(t.root, {file("new/a.txt", "a\n"), file("keep.txt", "changed\n"),
                          file("lnk/file", "escaped\n")});
    CHECK(contains(error, "'lnk'"));
  }
  SUBCASE("a write below") {
    error = land(t.root, {file("new/a.txt", "a\n"), file("lnk/sub/file", "escaped\n")});
    CHECK(contains(error, "'lnk'"));
  }
  SUBCASE("a deletion") {
    error = land(t.root, {gone("x.txt"), gone("lnk/victim.txt")});
    CHECK(contains(error, "'lnk'"));
  }
  SUBCASE("a symlink inside the tree") {
    error = land(t.root, {file("new/a.txt", "a\n"), file("inner-lnk/f", "f\n")});
    CHECK(contains(error, "'inner-lnk'"));
  }
  CHECK(snapshot(t.root, true) == before);
  CHECK(snapshot(outside) == outside_before);
}

// O_PATH | O_NOFOLLOW | O_DIRECTORY fails with ENOTDIR on a symlink, never ELOOP: the
// message must still say it is a symlink, not "no longer a directory".
TEST_CASE("ws::RealTreeTransaction says a symlink is a symlink") {
  RealTree t;
  fs::create_symlink("somedir", t.root / "inner-lnk");
  CHECK(contains(land(t.root, {file("inner-lnk/f", "f\n")}), "symlink"));
}

TEST_CASE("ws::RealTreeTransaction landing on a directory rolls everything back") {
  RealTree t;
  std::string before = snapshot(t.root);
  RealTreeTransaction tx(t.root);
  tx.stage(file("n1/n2/new.txt", "new\n"));   // creates directories
  tx.stage(file("keep.txt", "replaced\n"));   // exchange
  tx.stage(gone("x.txt"));                    // plain deletion
  tx.stage(gone("ln"));                       // a symlink deleted
  tx.stage(file("ln", "link became file\n")); // and a file in its place
  tx.stage(gone("two/a.txt"));                // a file becomes a directory
  tx.stage(file("two/a.txt/under", "x\n"));
  tx.stage(file("somedir", "onto a directory\n"));
  std::string error = error_of([&] { tx.commit(); });
  CHECK(contains(error, "'somedir' is a directory"));
  CHECK(snapshot(t.root) == before);
}

// Was a bug: data loss. A deletion that empties its directory (d/only.txt) removes the directory;
// on rollback the directory is made again, but the deleted file is renamed back through the
// kept fd of the *removed* directory, which fails (ENOENT), so the file stays in the staging
// directory and the destructor deletes it: d comes back empty, d/only.txt is gone for good.
TEST_CASE("ws::RealTreeTransaction rollback restores a file in an emptied directory") {
  RealTree t;
  std::string before = snapshot(t.root);
  CHECK(contains(land(t.root, {gone("d/only.txt"), file("somedir", "x\n")}), "is a directory"));
  CHECK(snapshot(t.root) == before);
  CHECK(read_file(t.root / "d/only.txt") == "only\n");
}

TEST_CASE("ws::RealTreeTransaction a file where a directory is needed rolls back") {
  RealTree t;
  std::string before = snapshot(t.root);
  std::string error = land(t.root, {file("aaa/new.txt", "new\n"), file("keep.txt", "changed\n"),
                                    gone("two/a.txt"), file("x.txt/child", "child\n")});
  CHECK(contains(error, "'x.txt' is no longer a directory"));
  CHECK(snapshot(t.root, true) == before);
}

TEST_CASE("ws::RealTreeTransaction not committed leaves the tree and no staging") {
  RealTree t;
  std::string before = snapshot(t.root, true);
  {
    RealTreeTransaction tx(t.root);
    tx.stage(file("keep.txt", "changed\n"));
    tx.stage(file("new/dir/f.txt", "f\n"));
    tx.stage(slink("l2", "keep.txt"));
    tx.stage(gone("x.txt"));
    CHECK(staging_dirs(t.root).size() == 1);
  }
  CHECK(staging_dirs(t.root).empty());
  CHECK(snapshot(t.root, true) == before);
}

TEST_CASE("ws::RealTreeTransaction after commit no staging directory remains") {
  RealTree t;
  CHECK(land(t.root, {file("keep.txt", "changed\n"), gone("x.txt"), gone("two/a.txt"),
                      file("new.txt", "n\n")}) == "");
  CHECK(staging_dirs(t.root).empty());
  std::string listing = snapshot(t.root, true);
  CHECK_FALSE(contains(listing, "ws-apply"));
  CHECK_FALSE(contains(listing, "'x\n'")); // the deleted file's bytes are not kept anywhere
}

namespace {
/// A tiny tmpfs at `dir`, unmounted at the end.
struct TinyTmpfs {
  fs::path dir;
  bool mounted = false;
  std::string why;
  explicit TinyTmpfs(const fs::path& d) : dir(d) {
    fs::create_directories(dir);
    ws::test::Run r = sh("mount -t tmpfs -o size=64k tmpfs " + q(dir.string()));
    mounted = r.status == 0;
    why = r.err;
  }
  ~TinyTmpfs() {
    if (mounted) {
      ::umount2(dir.c_str(), MNT_DETACH);
    }
  }
  TinyTmpfs(const TinyTmpfs&) = delete;
  TinyTmpfs& operator=(const TinyTmpfs&) = delete;
};
} // namespace

TEST_CASE("ws::RealTreeTransaction disk full fails before anything changed") {
  ws::test::TempDir dir;
  TinyTmpfs fs64k(dir.path() / "tiny");
  if (!fs64k.mounted) {
    MESSAGE("skipped: cannot mount a tmpfs: " << fs64k.why);
    return;
  }
  fs::path root = fs64k.dir;
  write_file(root / "existing.txt", "small\n");
  write_file(root / "sub/other.txt", "other\n");
  std::string before = snapshot(root, true);
  std::string big(1 << 20, 'x');
  for (auto landings : {std::vector<Landing>{file("a.txt", "a\n"), file("big.bin", big)},
                        std::vector<Landing>{gone("sub/other.txt"), file("existing.txt", big)}}) {
    std::string hint;
    std::string error = error_of([&] {
      RealTreeTransaction tx(root);
      try {
        for (const auto& l : landings) {
          tx.stage(l);
        }
      } catch (const ws::Error& e) {
        hint = e.hint();
        throw;
      }
      tx.commit();
    });
    CHECK(contains(error, "No space left"));
    CHECK(contains(hint, "space"));
    CHECK(snapshot(root, true) == before);
  }
}

// Was a bug: a deletion landing whose path is now a directory in the real tree moves the whole
// directory into the staging area, and the destructor then removes it with everything in
// it. The write path refuses a directory ("is a directory in the real tree"); a deletion
// should too, or the person's directory is lost when it appeared after ws apply looked.
TEST_CASE("ws::RealTreeTransaction deletion refuses a directory") {
  RealTree t;
  std::string before = snapshot(t.root, true);
  std::string error = land(t.root, {gone("x.txt"), gone("somedir")});
  CHECK(contains(error, "somedir"));
  CHECK(snapshot(t.root, true) == before);
  CHECK(read_file(t.root / "somedir/inside.txt") == "inside\n");
}

// Was a bug: renaming the only file of a directory (delete d/only.txt, write d/renamed.txt) removes
// d as "emptied" and creates a new d with default permissions: the person's 0750 directory
// becomes 0755 (umask 022), and a shell whose cwd was d is left in a deleted directory.
TEST_CASE("ws::RealTreeTransaction rename inside a directory keeps it") {
  RealTree t;
  struct stat st {};
  REQUIRE(::stat((t.root / "d").c_str(), &st) == 0);
  mode_t old_umask = ::umask(022);
  std::string error = land(t.root, {gone("d/only.txt"), file("d/renamed.txt", "only\n", 0600)});
  ::umask(old_umask);
  CHECK(error == "");
  struct stat after {};
  REQUIRE(::stat((t.root / "d").c_str(), &after) == 0);
  CHECK((after.st_mode & 07777) == 0750);
  CHECK(after.st_ino == st.st_ino);
}
