// The command line with real workspaces: ws run's arguments, ws list --all and --json, and
// progress on a terminal.
#include "tests/integration/run_support.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {
constexpr auto npos = std::string::npos;
}

TEST_CASE("cli: ws run --writable PATH COMMAND without -- runs COMMAND") {
  OutsideDir base(outside_tmp_bases()); // not /tmp: a private tmpfs inside the sandbox
  TestRepo repo;
  MountedWorkspace w(repo);
  fs::path cache = base.path() / "cache";
  fs::path data = base.path() / "data";
  fs::create_directories(cache);
  fs::create_directories(data);
  repo.write("in.txt", "x\n");
  // Each of --writable, --read and --env takes one value: the agent's command follows.
  Run r = w.ws("run --writable " + q(cache.string()) + " --read " + q(data.string()) +
               " --env WS_TEST_VALUE=v sh -c " +
               q("echo w > " + cache.string() + "/w.txt; ls " + data.string() +
                 " >/dev/null && echo \"hi $WS_TEST_VALUE\""));
  CHECK_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.find("hi v") != npos);
  CHECK(slurp(cache / "w.txt") == "w\n");
  // The agent's own options stay its own.
  Run opts = w.ws("run --writable " + q(cache.string()) + " sh -c 'echo \"$1\"' sh --writable");
  CHECK_MESSAGE(opts.status == 0, opts.err);
  CHECK(opts.out.find("--writable") != npos);
}

// A global flag before the command (`ws -v run ...`) was taken for an option with a value:
// `run` became its value, and the agent's own `-c` an unknown option of ws run.
TEST_CASE("cli: ws -v run -- COMMAND with options of its own runs COMMAND") {
  TestRepo repo;
  MountedWorkspace w(repo);
  for (const char* flags : {"-v run", "-vv run", "run -v", "--verbose run"}) {
    Run r = w.ws(std::string(flags) + " --network=off -- sh -c 'echo agent-ran'");
    INFO(flags << ": " << r.status << "\n" << r.out << r.err);
    CHECK(r.status == 0);
    CHECK(r.out.find("agent-ran") != npos);
  }
}

TEST_CASE("cli: ws list --json and ws list --all list every workspace") {
  TestRepo repo;
  TestRepo other;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("echo agent > agent.txt").status == 0);
  // The other repository's workspace, in the same state directory.
  std::string env = "XDG_DATA_HOME=" + q((w.state_root() / "data").string()) +
                    " XDG_RUNTIME_DIR=" + q((w.state_root() / "run").string()) + " ";
  REQUIRE(sh(env + q(ws_binary().string()) + " new try2", other.path()).status == 0);

  Run json = w.ws("list --json");
  CHECK(json.status == 0);
  Run parsed = sh("python3 -c 'import json,sys; d=json.load(sys.stdin); "
                  "print([(x[\"name\"], x[\"current\"], x[\"state\"], x[\"changes\"], "
                  "x[\"repo\"] == sys.argv[1], bool(x[\"view\"])) for x in d])' " +
                  q(repo.path().string()) + " <<'EOF'\n" + json.out + "\nEOF");
  CHECK(parsed.out == "[('default', True, 'mounted', 1, True, True)]\n");

  Run all = sh(env + q(ws_binary().string()) + " list --all", "/");
  CHECK(all.status == 0);
  size_t first = all.out.find(repo.path().string() + "\n");
  size_t second = all.out.find(other.path().string() + "\n");
  CHECK(first != npos);
  CHECK(second != npos);
  CHECK(all.out.find("  default          mounted              1 changed path") != npos);
  CHECK(all.out.find("  try2             not mounted          0 changed paths") != npos);
  Run all_json = sh(env + q(ws_binary().string()) +
                        " list --all --json | python3 -c 'import json,sys; "
                        "print(sorted(x[\"name\"] for x in json.load(sys.stdin)))'",
                    "/");
  CHECK(all_json.out == "['default', 'try2']\n");
  // From inside a repository, its current workspace (here -w) is marked among all.
  Run here = sh(env + q(ws_binary().string()) + " -w try2 list --all", other.path());
  CHECK(here.out.find("* try2") != npos);
  CHECK(here.out.find("* default") == npos);
}

TEST_CASE("cli: progress shows on a terminal, never in a pipe") {
  if (sh("command -v script").status != 0) {
    MESSAGE("script (util-linux) is not installed: skipped");
    return;
  }
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(
      w.in_view("mkdir many && for i in $(seq 1 200); do echo $i > many/f$i.txt; done").status ==
      0);
  // On a terminal (script gives ws one), from the first moment (no delay for the test).
  std::string env =
      "WS_PROGRESS_DELAY_MS=0 XDG_DATA_HOME=" + q((w.state_root() / "data").string()) +
      " XDG_RUNTIME_DIR=" + q((w.state_root() / "run").string()) + " ";
  Run cp =
      sh("script -qec " + q(env + q(ws_binary().string()) + " checkpoint -m big") + " /dev/null",
         repo.path());
  CHECK(cp.status == 0);
  CHECK(cp.out.find("ws: checkpoint: copying the workspace's state") != npos);
  CHECK(cp.out.find("\r\033[K") != npos); // erased before the result line
  CHECK(cp.out.find("checkpoint 1: ") != npos);
  // Judging and reading thousands of changes takes seconds too.
  for (std::string command : {"status", "diff --stat --no-pager"}) {
    CAPTURE(command);
    Run r = sh("script -qec " + q(env + q(ws_binary().string()) + " " + command) + " /dev/null",
               repo.path());
    CHECK(r.status == 0);
    CHECK(r.out.find(command == "status" ? "ws: status: judging the changes"
                                         : "ws: diff: reading the changes") != npos);
    CHECK(r.out.find("many/") != npos);
  }
  Run apply =
      sh("script -qec " + q(env + q(ws_binary().string()) + " apply") + " /dev/null", repo.path());
  CHECK(apply.status == 0);
  CHECK(apply.out.find("ws: apply: merging") != npos);
  CHECK(apply.out.find("applied 200 changes") != npos);
  CHECK(fs::exists(repo.path() / "many" / "f200.txt"));
  // Not a terminal: nothing but the results.
  REQUIRE(w.in_view("echo again > again.txt").status == 0);
  Run piped = sh(env + q(ws_binary().string()) + " checkpoint 2>&1 | cat", repo.path());
  CHECK(piped.out.rfind("checkpoint 2: ", 0) == 0);
  CHECK(piped.out.find("ws: checkpoint") == npos);
  CHECK(piped.out.find('\r') == npos);
  Run status = sh(env + q(ws_binary().string()) + " status 2>&1 | cat", repo.path());
  CHECK(status.out == "A again.txt\n");
}
