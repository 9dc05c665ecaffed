// Usage, help, version and mistakes: what `ws` says before it does anything.
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {
Run run_ws(const std::string& args, const std::filesystem::path& dir = {}) {
  return sh(q(ws_binary().string()) + " " + args, dir);
}
bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
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
    CHECK(has(v.out, " (commit "));
    CHECK(has(v.out, "libfuse 3."));
    CHECK(has(v.out, "kernel FUSE protocol "));
    CHECK(has(v.out, "Landlock"));
    CHECK(has(v.out, "unprivileged user namespaces: "));
    CHECK(has(v.out, "bubblewrap"));
    CHECK(has(v.out, "slirp4netns"));
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
  Run r = run_ws("stauts");
  CHECK(r.status == 2);
  CHECK(has(r.err, "ws: error: 'stauts' is not a ws command"));
  CHECK(has(r.err, "hint: did you mean 'ws status'?"));
  CHECK(has(r.err, "Usage: ws "));
  CHECK(r.out.empty());
  Run two = run_ws("check");
  CHECK(has(two.err, "'ws checkpoint' or 'ws checkpoints'"));
  Run none = run_ws("zzzzzzzz");
  CHECK(none.status == 2);
  CHECK(has(none.err, "hint: 'ws --help' lists every command"));
  Run help = run_ws("help stauts");
  CHECK(help.status == 2);
  CHECK(has(help.err, "did you mean 'ws help status'?"));
}

TEST_CASE("usage: a mistyped option gets the closest ones and the command's usage") {
  Run r = run_ws("status --jsn");
  CHECK(r.status == 2);
  CHECK(has(r.err, "ws: error: unknown option '--jsn' for 'ws status'"));
  CHECK(has(r.err, "hint: did you mean '--json'?"));
  CHECK(has(r.err, "Usage: ws [-C DIR] [-w WORKSPACE] status [OPTIONS]"));
  CHECK(has(r.err, "--verbose"));
  Run global = run_ws("log --worksapce x");
  CHECK(has(global.err, "did you mean '--workspace'?"));
  Run value = run_ws("diff --color=sometimes");
  CHECK(value.status == 2);
  CHECK(has(value.err, "ws: error: "));
  CHECK(has(value.err, "Usage: ws [-C DIR] [-w WORKSPACE] diff"));
  Run missing = run_ws("rm");
  CHECK(missing.status == 2);
  CHECK(has(missing.err, "ws: error: 'ws rm' needs NAME"));
  CHECK(has(missing.err, "Usage: ws [-C DIR] [-w WORKSPACE] rm [OPTIONS] NAME"));
  Run agentless = run_ws("run --writable /tmp");
  CHECK(agentless.status == 2);
  CHECK(has(agentless.err, "ws: error: 'ws run' needs COMMAND"));
  CHECK(has(agentless.err, "Usage: ws [-C DIR] [-w WORKSPACE] run [OPTIONS] [--] COMMAND"));
  Run extra = run_ws("status surplus");
  CHECK(extra.status == 2);
  CHECK(has(extra.err, "'ws status' takes no argument 'surplus'"));
  // A command's argument that names another command stays an argument.
  Run second = run_ws("list status");
  CHECK(second.status == 2);
  CHECK(has(second.err, "'ws list' takes no argument 'status'"));
  CHECK(run_ws("help log").out.rfind("Show every write", 0) == 0);
}

TEST_CASE("usage: a command of commands names them, and its mistyped ones get the closest") {
  Run alone = run_ws("profile");
  CHECK(alone.status == 2);
  CHECK(
      has(alone.err, "ws: error: 'ws profile' needs a command: list, show, diff, reset or umount"));
  CHECK(has(alone.err, "Usage: ws [-C DIR] [-w WORKSPACE] profile COMMAND [ARGS...]"));
  Run typo = run_ws("profile dif claude");
  CHECK(typo.status == 2);
  CHECK(has(typo.err, "ws: error: 'dif' is not a 'ws profile' command"));
  CHECK(has(typo.err, "hint: did you mean 'ws profile diff'?"));
  Run option = run_ws("profile diff --jsn claude");
  CHECK(option.status == 2);
  CHECK(has(option.err, "unknown option '--jsn' for 'ws profile diff'"));
  CHECK(has(option.err, "Usage: ws [-C DIR] [-w WORKSPACE] profile diff [OPTIONS] NAME"));
  Run missing = run_ws("profile show");
  CHECK(has(missing.err, "ws: error: 'ws profile show' needs NAME"));
  CHECK(has(run_ws("help profile diff").out,
            "Usage: ws [-C DIR] [-w WORKSPACE] profile diff [OPTIONS] NAME"));
  CHECK(has(run_ws("help profile dif").err, "did you mean 'ws help profile diff'?"));
}

TEST_CASE("usage: --help names the program, the command's arguments and the global options") {
  Run top = run_ws("--help");
  CHECK(top.status == 0);
  CHECK(has(top.out, "Usage: ws "));
  CHECK(has(top.out, "ws doctor"));
  Run run = run_ws("run --help");
  CHECK(run.status == 0);
  CHECK(has(run.out, "Usage: ws [-C DIR] [-w WORKSPACE] run [OPTIONS] [--] COMMAND [ARGS...]"));
  CHECK(has(run.out, "Global options, before or after the command: -C DIR, -w/--workspace"));
  Run diff = run_ws("help diff");
  CHECK(diff.status == 0);
  CHECK(has(diff.out, "Usage: ws [-C DIR] [-w WORKSPACE] diff [OPTIONS] [PATHS...]"));
  CHECK(has(diff.out, "-w/--workspace WORKSPACE"));
}

TEST_CASE("usage: -C and -w are taken before and after the command") {
  TestRepo repo;
  TempDir state;
  std::string env = "XDG_DATA_HOME=" + q((state.path() / "d").string()) +
                    " XDG_RUNTIME_DIR=" + q((state.path() / "r").string()) + " ";
  std::string bin = env + q(ws_binary().string());
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
  for (const char* check : {"FUSE device", "fusermount3", "user_allow_other", "FUSE mount",
                            "user namespaces", "bubblewrap", "sandbox", "slirp4netns",
                            "/dev/net/tun", "Landlock", "state directories", "disk space", "git"}) {
    CAPTURE(check);
    CHECK(has(r.out, check));
  }
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
  std::string env = "XDG_DATA_HOME=" + q((state.path() / "d").string()) +
                    " XDG_RUNTIME_DIR=" + q((state.path() / "r").string()) + " ";
  std::string bin = env + q(ws_binary().string());
  // /dev without fuse (nor net/tun): what a container without the devices looks like
  Run r = sh("unshare -m sh -c 'mount -t tmpfs none /dev && " + bin + " doctor; echo rc=$?; " +
                 bin + " new 2>/dev/null; " + bin + " mount'",
             repo.path());
  CHECK(has(r.out, "FAIL  FUSE device        /dev/fuse: No such file or directory"));
  CHECK(has(r.out, "fix: sudo modprobe fuse"));
  CHECK(has(r.out, "FAIL  /dev/net/tun"));
  CHECK(has(r.out, "check"));
  CHECK(has(r.out, "rc=1"));
  CHECK(has(r.err, "ws: error: FUSE is not available"));
  CHECK(has(r.err, "'ws doctor' checks everything ws needs on this machine"));
}
