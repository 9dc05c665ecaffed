// Another user's repository: ws says what git says (dubious ownership) and how to allow it,
// and the fix it prints works, for ws and for git.
#include "tests/support/harness.hpp"
#include "tests/support/text_checks.hpp"

#include <doctest/doctest.h>

#include <unistd.h>

using namespace ws::test;

namespace {
bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// The command a hint line offers after "if you trust it: ", up to its comment.
std::string offered_fix(const std::string& err) {
  const std::string lead = "hint: if you trust it: ";
  size_t at = err.find(lead);
  if (at == std::string::npos) {
    return "";
  }
  at += lead.size();
  return err.substr(at, err.find("   (", at) - at);
}

/// A user's environment: HOME (its global git config), state and runtime directories in
/// `home`, which `user` owns.
std::string env_in(const TempDir& home) {
  return "env HOME=" + q(home.path().string()) +
         " XDG_DATA_HOME=" + q((home.path() / "d").string()) +
         " XDG_RUNTIME_DIR=" + q((home.path() / "r").string()) + " ";
}
} // namespace

TEST_CASE("ownership: root in nobody's repository is told why (dubious ownership) and how") {
  if (::geteuid() != 0) {
    MESSAGE("needs root, to give the repository to nobody: skipped");
    return;
  }
  TestRepo repo;
  TempDir home;
  REQUIRE(sh("chown -R nobody " + q(repo.path().string())).status == 0);
  std::string ws = env_in(home) + q(ws_binary().string());
  std::string top = repo.path().string();
  // From a subdirectory too: the path to allow is the working tree's top, as git says.
  for (const std::string& dir : {top, top + "/src"}) {
    CAPTURE(dir);
    Run r = sh(ws + " status", dir);
    CHECK(r.status == 1);
    check_has_all(
        r.err, {"ws: error: detected dubious ownership in repository at '" + top + "'",
                "it belongs to nobody (uid 65534), and you are root (uid 0)",
                "hint: if you trust it: git config --global --add safe.directory " + top + "   (",
                "or run ws as the repository's owner"});
    CHECK(!has(r.err, "not a git repository"));
  }
  // The fix as printed: then ws works, and so does git (it is git's own setting).
  std::string fix = offered_fix(sh(ws + " status", top).err);
  REQUIRE(!fix.empty());
  REQUIRE(sh(env_in(home) + fix).status == 0);
  Run made = sh(ws + " new && " + ws + " status && echo ok", top);
  CHECK(made.status == 0);
  CHECK(made.out == "ok\n");
  CHECK(sh(env_in(home) + "git status --short", top).status == 0);
}

TEST_CASE("ownership: nobody in root's repository is told the same, then that ws must write it") {
  if (::geteuid() != 0 || sh("command -v runuser").status != 0) {
    MESSAGE("needs root and runuser, to act as nobody: skipped");
    return;
  }
  TestRepo repo;
  TempDir home;
  std::string top = repo.path().string();
  REQUIRE(sh("chmod 755 " + q(repo.path().parent_path().string()) + " " + q(home.path().string()) +
             " && chown -R nobody " + q(home.path().string()))
              .status == 0);
  std::string ws = "runuser -u nobody -- " + env_in(home) + q(ws_binary().string());
  Run r = sh(ws + " status", top);
  CHECK(r.status == 1);
  check_has_all(r.err, {"detected dubious ownership in repository at '" + top + "'",
                        "it belongs to root (uid 0), and you are nobody (uid 65534)",
                        "git config --global --add safe.directory " + top});
  std::string fix = offered_fix(r.err);
  REQUIRE(!fix.empty());
  REQUIRE(sh("runuser -u nobody -- " + env_in(home) + fix).status == 0);
  // Allowed, ws reads it; but a workspace pins its base commit in the repository's .git.
  Run made = sh(ws + " new", top);
  CHECK(made.status == 1);
  check_has_all(made.err, {"cannot make workspace 'default' its own git state",
                           "so it needs to write to " + top + "/.git: run ws as a user who may"});
  CHECK(sh(ws + " list", top).out == "");
}
