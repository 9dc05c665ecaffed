// Usage, help, version and mistakes: what `ws` says before it does anything.
#include "tests/support/harness.hpp"
#include "tests/support/text_checks.hpp"

#include <doctest/doctest.h>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {
Run run_ws(const std::string& args, const std::filesystem::path& dir = {}) {
  return sh(q(ws_binary().string()) + " " + args, dir);
}
/// The ws command line with its state and runtime directories in `state`.
std::string ws_in(const TempDir& state) {
  return "XDG_DATA_HOME=" + q((state.path() / "d").string()) +
         " XDG_RUNTIME_DIR=" + q((state.path() / "r").string()) + " " + q(ws_binary().string());
}
bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}
/// `ws ARGS` is a mistake of the person's: exit 2, and stderr says each of `says`.
Run check_mistake(const std::string& args, const std::vector<std::string_view>& says) {
  CAPTURE(args);
  Run r = run_ws(args);
  CHECK(r.status == 2);
  check_has_all(r.err, says);
  return r;
}
} // namespace

TEST_CASE("usage: ws alone prints the help, -V and version print the version") {
  Run bare = run_ws("");
  CHECK(bare.status == 0);
  CHECK(has(bare.out, "Usage: ws [-C DIR] [-w WORKSPACE] COMMAND"));
  CHECK(has(bare.out, "Commands:"));
  CHECK(has(bare.out, "  status "));
  CHECK(!has(bare.out + bare.err, "A subcommand is required"));
  for (const char* flag : {"-V", "--version", "version"}) {
    Run v = run_ws(flag);
    CAPTURE(flag);
    CHECK(v.status == 0);
    CHECK(v.out.rfind("ws 0.", 0) == 0);
    check_has_all(v.out, {" (commit ", "libfuse 3.", "kernel FUSE protocol ", "Landlock",
                          "unprivileged user namespaces: ", "bubblewrap", "slirp4netns"});
    CHECK(v.out.back() == '\n');
    CHECK(v.out.find("\n\n") == std::string::npos);
  }
}

TEST_CASE("usage: the version names the commit it was built from") {
  Run head = sh("git -C " + q(WS_SOURCE_DIR) + " rev-parse --short=12 HEAD");
  if (head.status != 0) {
    MESSAGE("not built from a git checkout: skipped");
    return;
  }
  CHECK(has(run_ws("--version").out, "(commit " + head.out.substr(0, 12)));
}

TEST_CASE("usage: built outside a git checkout (a release tarball), the commit is unknown") {
  TempDir tarball;
  fs::path out = tarball.path() / "build_info.cpp";
  Run r =
      sh(q(WS_CMAKE) + " -DSOURCE_DIR=" + q(tarball.path().string()) + " -DOUT=" + q(out.string()) +
         " -DVERSION=9.8.7 -P " + q(WS_SOURCE_DIR "/cmake/build_info.cmake"));
  REQUIRE_MESSAGE(r.status == 0, r.err);
  Run text = sh("cat " + q(out.string()));
  CHECK(has(text.out, "return \"9.8.7\";"));
  CHECK(has(text.out, "return \"unknown\";"));
}

TEST_CASE("usage: a mistyped command gets the closest ones, the usage, exit 2") {
  Run r = check_mistake("stauts", {"ws: error: 'stauts' is not a ws command",
                                   "hint: did you mean 'ws status'?", "Usage: ws "});
  CHECK(r.out.empty());
  check_mistake("check", {"'ws checkpoint' or 'ws checkpoints'"});
  check_mistake("zzzzzzzz", {"hint: 'ws --help' lists every command"});
  check_mistake("help stauts", {"did you mean 'ws help status'?"});
  // Whatever follows the mistyped command: its options are that command's.
  check_mistake("chekpoint -m 'tests pass'", {"ws: error: 'chekpoint' is not a ws command",
                                              "hint: did you mean 'ws checkpoint' or "
                                              "'ws checkpoints'?"});
  check_mistake("rn -- claude", {"'rn' is not a ws command", "'ws run'?"});
  check_mistake("-C / stats --json", {"'stats' is not a ws command", "'ws status'"});
  check_mistake("--jsn status", {"ws: error: unknown option '--jsn' for 'ws status'"});
}

TEST_CASE("usage: a value of the wrong kind is named, with what would do") {
  check_mistake("restore abc", {"ws: error: 'abc' is not a valid CHECKPOINT for 'ws restore'",
                                "hint: a number", "Usage: ws [-C DIR] [-w WORKSPACE] restore"});
  check_mistake("log -n x", {"'x' is not a valid --max-count for 'ws log'"});
  Run r = check_mistake(
      "run --max-procs x true",
      {"ws: error: 'x' is not a valid --max-procs for 'ws run'", "hint: a number greater than 0"});
  CHECK(!has(r.err, "0.000000"));
  // A value outside an option's set, and an option without its value: ws's words, not CLI11's.
  for (const char* bad : {"apply --conflicts bogus", "apply --conflicts=bogus"}) {
    Run set = check_mistake(bad, {"ws: error: 'bogus' is not a valid --conflicts for 'ws apply'",
                                  "hint: one of 'refuse' or 'markers'",
                                  "Usage: ws [-C DIR] [-w WORKSPACE] apply"});
    CHECK(!has(set.err, "not in {"));
  }
  check_mistake("diff --color=sometimes",
                {"ws: error: 'sometimes' is not a valid --color for 'ws diff'",
                 "hint: one of 'auto', 'always' or 'never'"});
  for (const char* bare : {"checkpoint --message", "checkpoint -m"}) {
    Run missing = check_mistake(bare, {"ws: error: 'ws checkpoint --message' needs MSG",
                                       "hint: --message MSG: What this state is",
                                       "Usage: ws [-C DIR] [-w WORKSPACE] checkpoint"});
    CHECK(!has(missing.err, "required"));
  }
  check_mistake("apply --conflicts", {"ws: error: 'ws apply --conflicts' needs HOW",
                                      "hint: one of 'refuse' or 'markers'"});
}

TEST_CASE("usage: a mistyped option gets the closest ones and the command's usage") {
  check_mistake("status --jsn",
                {"ws: error: unknown option '--jsn' for 'ws status'",
                 "hint: did you mean '--json'?",
                 "Usage: ws [-C DIR] [-w WORKSPACE] status [OPTIONS]", "--verbose"});
  check_mistake("log --worksapce x", {"did you mean '--workspace'?"});
  check_mistake("rm", {"ws: error: 'ws rm' needs NAME",
                       "Usage: ws [-C DIR] [-w WORKSPACE] rm [OPTIONS] NAME"});
  check_mistake("run --writable /tmp",
                {"ws: error: 'ws run' needs COMMAND",
                 "Usage: ws [-C DIR] [-w WORKSPACE] run [OPTIONS] [--] COMMAND"});
  check_mistake("status surplus", {"'ws status' takes no argument 'surplus'"});
  // A command's argument that names another command stays an argument.
  check_mistake("list status", {"'ws list' takes no argument 'status'"});
  CHECK(run_ws("help log").out.rfind("Show every write", 0) == 0);
}

TEST_CASE("usage: a command of commands names them, and its mistyped ones get the closest") {
  check_mistake("profile",
                {"ws: error: 'ws profile' needs a command: list, show, diff, reset or umount",
                 "Usage: ws [-C DIR] [-w WORKSPACE] profile COMMAND [ARGS...]"});
  check_mistake("profile dif claude", {"ws: error: 'dif' is not a 'ws profile' command",
                                       "hint: did you mean 'ws profile diff'?"});
  check_mistake("profile diff --jsn claude",
                {"unknown option '--jsn' for 'ws profile diff'",
                 "Usage: ws [-C DIR] [-w WORKSPACE] profile diff [OPTIONS] NAME"});
  check_mistake("profile show", {"ws: error: 'ws profile show' needs NAME"});
  CHECK(has(run_ws("help profile diff").out,
            "Usage: ws [-C DIR] [-w WORKSPACE] profile diff [OPTIONS] NAME"));
  check_mistake("help profile dif", {"did you mean 'ws help profile diff'?"});
}

TEST_CASE("usage: --help names the program, the command's arguments and the global options") {
  Run top = run_ws("--help");
  CHECK(top.status == 0);
  check_has_all(top.out, {"Usage: ws ", "ws doctor"});
  Run run = run_ws("run --help");
  CHECK(run.status == 0);
  check_has_all(run.out, {"Usage: ws [-C DIR] [-w WORKSPACE] run [OPTIONS] [--] COMMAND [ARGS...]",
                          "Global options, before or after the command: -C DIR, -w/--workspace"});
  Run diff = run_ws("help diff");
  CHECK(diff.status == 0);
  check_has_all(diff.out, {"Usage: ws [-C DIR] [-w WORKSPACE] diff [OPTIONS] [PATHS...]",
                           "-w/--workspace WORKSPACE"});
}

TEST_CASE("usage: -C and -w are taken before and after the command") {
  TestRepo repo;
  TempDir state;
  std::string bin = ws_in(state);
  std::string at = q(repo.path().string());
  REQUIRE(sh(bin + " -C " + at + " new second").status == 0);
  for (const std::string& args : {"-C " + at + " -w second list", "list -C " + at + " -w second",
                                  "-w second list -C " + at, "list --workspace=second -C" + at}) {
    CAPTURE(args);
    Run r = sh(bin + " " + args, "/");
    CHECK(r.status == 0);
    CHECK(has(r.out, "* second"));
  }
  Run missing = sh(bin + " status -w nope -C " + at, "/");
  CHECK(missing.status == 1);
  CHECK(has(missing.err, "no workspace 'nope'"));
}

TEST_CASE("doctor: every precondition with its fix, exit 0 only when none fails") {
  Run r = run_ws("doctor");
  CHECK((r.status == 0 || r.status == 1));
  check_has_all(r.out, {"FUSE device", "fusermount3", "user_allow_other", "FUSE mount",
                        "user namespaces", "bubblewrap", "sandbox", "slirp4netns", "/dev/net/tun",
                        "Landlock", "state directories", "disk space", "git"});
  CHECK(has(r.out, "FAIL ") == (r.status == 1));
  Run json = run_ws("doctor --json");
  CHECK(json.status == r.status);
  Run check = sh(q(ws_binary().string()) +
                 " doctor --json | python3 -c 'import json,sys; d=json.load(sys.stdin); "
                 "print(len(d), all(c[\"status\"] in (\"ok\",\"warn\",\"fail\",\"not needed\") "
                 "and (c[\"status\"] != \"fail\" or c[\"fix\"]) for c in d))'");
  CHECK(check.out == "13 True\n");
}

TEST_CASE("doctor: a missing precondition fails with the exact fix, and ws mount points to it") {
  if (sh("id -u").out != "0\n" || sh("command -v unshare").status != 0) {
    MESSAGE("needs root, to hide /dev/fuse in a private mount namespace: skipped");
    return;
  }
  TestRepo repo;
  TempDir state;
  std::string bin = ws_in(state);
  // /dev without fuse (nor net/tun): what a container without the devices looks like
  Run r = sh("unshare -m sh -c 'mount -t tmpfs none /dev && " + bin + " doctor; echo rc=$?; " +
                 bin + " new 2>/dev/null; " + bin + " mount'",
             repo.path());
  check_has_all(r.out, {"FAIL  FUSE device        /dev/fuse: No such file or directory",
                        "fix: sudo modprobe fuse", "FAIL  /dev/net/tun", "check", "rc=1"});
  check_has_all(r.err, {"ws: error: FUSE is not available",
                        "'ws doctor' checks everything ws needs on this machine"});
}
