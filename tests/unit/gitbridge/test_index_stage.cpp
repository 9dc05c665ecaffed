// Staging into a real index (ws apply --index): exact blobs, modes, deletions, stat data.
#include "gitbridge/index_stage.hpp"
#include "gitbridge/repository.hpp"
#include "tests/support/harness.hpp"
#include "tests/unit/gitbridge/blob_helpers.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using ws::gitbridge::BlobSide;
using ws::gitbridge::GitMode;
using ws::test::q;
using ws::test::sh;
using namespace ws::test::blobs;

namespace {
/// A real repository with a.txt, old.txt and tool.sh committed (fixed author and date).
struct IndexRepo {
  ws::test::TempDir dir;
  fs::path repo = dir.path() / "repo";
  IndexRepo() {
    fs::create_directories(repo);
    write("a.txt", "a\n");
    write("old.txt", "old\n");
    write("tool.sh", "#!/bin/sh\n");
    ws::test::Run r = git("init -q -b main . && git add -A && git commit -q -m init");
    REQUIRE_MESSAGE(r.status == 0, r.err);
  }
  void write(const std::string& rel, const std::string& bytes) const {
    fs::create_directories((repo / rel).parent_path());
    write_bytes(repo / rel, bytes);
  }
  ws::test::Run git(const std::string& args) const {
    return sh("export GIT_AUTHOR_NAME=T GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=T "
              "GIT_COMMITTER_EMAIL=t@example.com GIT_AUTHOR_DATE='2020-01-01T00:00:00Z' "
              "GIT_COMMITTER_DATE='2020-01-01T00:00:00Z'; git " +
                  args,
              repo);
  }
  std::string out(const std::string& args) const {
    ws::test::Run r = git(args);
    INFO("git ", args, ": ", r.err);
    CHECK(r.status == 0);
    return r.out;
  }
};
} // namespace

TEST_CASE("gitbridge::stage_paths records adds edits modes symlinks and deletions") {
  ws::gitbridge::LibGit2 libgit2;
  IndexRepo r;
  r.write("a.txt", "a changed\n");
  r.write("dir/sub/new.txt", "new\n");
  r.write("tool.sh", "#!/bin/sh\necho hi\n");
  REQUIRE(::chmod((r.repo / "tool.sh").c_str(), 0755) == 0);
  fs::create_symlink("a.txt", r.repo / "ln");
  fs::remove(r.repo / "old.txt");
  ws::gitbridge::stage_paths(r.repo, {
                                         {"a.txt", file("a changed\n")},
                                         {"dir/sub/new.txt", file("new\n")},
                                         {"tool.sh", exe("#!/bin/sh\necho hi\n")},
                                         {"ln", link("a.txt")},
                                         {"old.txt", {}},
                                     });
  // Without refreshing: every staged entry's stat data matches the file, so git does not
  // even look at the content.
  CHECK(r.out("diff-files --name-status") == "");
  CHECK(r.out("diff --cached --name-status") ==
        "M\ta.txt\nA\tdir/sub/new.txt\nA\tln\nD\told.txt\nM\ttool.sh\n");
  auto hash = [&](const std::string& bytes) {
    std::string h = r.out("hash-object --stdin <<'EOF'\n" + bytes + "EOF\n");
    return h.substr(0, h.size() - 1);
  };
  std::string link_hash = sh("printf %s a.txt | git hash-object --stdin", r.repo).out;
  link_hash.pop_back();
  CHECK(r.out("ls-files -s") == "100644 " + hash("a changed\n") + " 0\ta.txt\n" + "100644 " +
                                    hash("new\n") + " 0\tdir/sub/new.txt\n" + "120000 " +
                                    link_hash + " 0\tln\n" + "100755 " +
                                    hash("#!/bin/sh\necho hi\n") + " 0\ttool.sh\n");
  CHECK(r.out("status --porcelain") ==
        "M  a.txt\nA  dir/sub/new.txt\nA  ln\nD  old.txt\nM  tool.sh\n");
  CHECK(r.git("diff --quiet").status == 0);
}

TEST_CASE("gitbridge::stage_paths stages the bytes given without filters") {
  ws::gitbridge::LibGit2 libgit2;
  IndexRepo r;
  REQUIRE(r.git("config core.autocrlf true").status == 0);
  r.write("crlf.txt", "one\r\ntwo\r\n");
  ws::gitbridge::stage_paths(r.repo, {{"crlf.txt", file("one\r\ntwo\r\n")}});
  CHECK(r.out("cat-file -p :crlf.txt") == "one\r\ntwo\r\n");
}

TEST_CASE("gitbridge::stage_paths refuses a locked index") {
  ws::gitbridge::LibGit2 libgit2;
  IndexRepo r;
  write_bytes(r.repo / ".git/index.lock", "");
  std::string before = r.out("ls-files -s");
  r.write("a.txt", "changed\n");
  std::string error;
  try {
    ws::gitbridge::stage_paths(r.repo, {{"a.txt", file("changed\n")}});
  } catch (const ws::gitbridge::GitError& e) {
    error = e.what();
  }
  INFO("error: ", error);
  CHECK(contains(error, "write the index of " + r.repo.string()));
  CHECK(contains(error, "locked"));
  CHECK(fs::exists(r.repo / ".git/index.lock")); // another process's lock stays
  fs::remove(r.repo / ".git/index.lock");
  CHECK(r.out("ls-files -s") == before);
}
