// Directories the kernel knows cost the daemon no fd each: 25,000 directories made in a view
// (a deep node_modules, a large clone) leave it working, with its fd limit far below that.
#include "tests/integration/run_support.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

/// The daemon's fd limit in these tests (soft and hard): 25 times fewer fds than directories.
constexpr int k_fd_limit = 1024;

/// Makes 15,000 directories side by side and 100 chains 100 deep (10,100 more), then
/// prints how many mkdirs failed and the first error.
const char* const k_make_dirs = R"(
import os
bad, first = 0, ''
def mk(p):
    global bad, first
    try:
        os.mkdir(p)
    except OSError as e:
        bad += 1
        first = first or str(e)
mk('flat')
for i in range(15000):
    mk('flat/d%d' % i)
mk('deep')
for c in range(100):
    p = 'deep/c%d' % c
    mk(p)
    for level in range(100):
        p += '/n'
        mk(p)
print(bad, first)
)";

/// The 100-deep directory of chain `c`.
std::string deep_dir(const std::string& chain) {
  std::string p = "deep/" + chain;
  for (int level = 0; level < 100; ++level) {
    p += "/n";
  }
  return p;
}

int daemon_pid_of(const Person& p) {
  Run r = sh("cat $(find " + q(p.data().string()) + " -name daemon.lock) 2>/dev/null");
  return std::atoi(r.out.c_str());
}

void check_many_dirs(const std::string& user) {
  {
    Person p(user);
    INFO("as " << p.label());
    REQUIRE(p.ws("new").status == 0);
    // The daemon inherits the limit of the `ws mount` that starts it.
    Run mount = p.sh_as("ulimit -n " + std::to_string(k_fd_limit) + " && " + p.ws_line("mount"));
    REQUIRE_MESSAGE(mount.status == 0, mount.err);
    std::string view = mount.out.substr(0, mount.out.find('\n'));
    int pid = daemon_pid_of(p);
    REQUIRE(pid > 0);
    CHECK(sh("grep 'Max open files' /proc/" + std::to_string(pid) + "/limits")
              .out.find(std::to_string(k_fd_limit)) != std::string::npos);

    Run made = p.sh_as(py() + " -c " + q(k_make_dirs), view);
    REQUIRE_MESSAGE(made.status == 0, made.err);
    CHECK(made.out == "0 \n");
    INFO("daemon fds: " << open_fds(pid));
    CHECK(open_fds(pid) < k_fd_limit);

    // New files anywhere, deep ones too, and their attributes.
    std::string d7 = deep_dir("c7");
    Run file = p.sh_as("echo hello > " + d7 +
                           "/file.txt && echo top > top.txt && "
                           "touch flat/d14999/x && stat -c '%s' " +
                           d7 + "/file.txt top.txt",
                       view);
    CHECK_MESSAGE(file.status == 0, file.err);
    CHECK(file.out == "6\n4\n");
    // Every directory is still there, listed through fds reopened on demand.
    Run walk = p.sh_as("find flat deep -type d | wc -l", view);
    CHECK(walk.out == "25102\n");
    // A directory renamed after its fds went: what is below it follows its new name.
    Run moved = p.sh_as("mv deep/c7 deep/moved && cat deep/moved" + d7.substr(7) +
                            "/file.txt && echo more > deep/moved/n/n/more.txt && "
                            "mkdir deep/moved/n/n/fresh && ls deep/moved/n/n",
                        view);
    CHECK_MESSAGE(moved.status == 0, moved.err);
    CHECK(moved.out == "hello\nfresh\nmore.txt\nn\n");
    CHECK(!p.view_has("deep/c7"));

    // ws status and ws diff see the new files.
    Run status = p.ws("status");
    CHECK_MESSAGE(status.status == 0, status.err);
    CHECK(status.out.find("top.txt") != std::string::npos);
    CHECK(status.out.find("deep/moved/n/n/more.txt") != std::string::npos);
    Run diff = p.ws("diff");
    CHECK_MESSAGE(diff.status == 0, diff.err);
    CHECK(diff.out.find("+top") != std::string::npos);
    CHECK(diff.out.find("+hello") != std::string::npos);

    // A reset revisits every node the kernel knows (5,000 files more, each kept open across
    // the edit in case a process has it open: as many as the bound allows).
    Run files = p.sh_as(py() + " -c " +
                            q("for i in range(5000):\n    open('flat/d%d/f' % i, 'w').close()\n"),
                        view);
    CHECK_MESSAGE(files.status == 0, files.err);
    // (A daemon out of fds never answers: `ws reset` would wait for good.)
    Run reset = p.sh_as("timeout 300 " + p.ws_line("reset"));
    CHECK_MESSAGE(reset.status == 0, reset.err);
    CHECK(!p.view_has("top.txt"));
    CHECK(!p.view_has("flat"));
    CHECK(p.view_has("README.md"));
    CHECK(p.sh_as("mkdir again && echo x > again/f && cat again/f", view).out == "x\n");
    INFO("daemon fds: " << open_fds(pid));
    CHECK(open_fds(pid) < k_fd_limit);
    Run log = sh("cat $(find " + q(p.data().string()) + " -name daemon.log)");
    CHECK(log.out.find("Too many open files") == std::string::npos);
  }
}

} // namespace

TEST_CASE("view scale: 25000 directories leave the view working with a 1024 fd limit") {
  check_many_dirs(people().front());
}

TEST_CASE("view scale: 25000 directories leave a normal user's view working") {
  if (people().size() < 2) {
    MESSAGE("not root, or no user 'nobody': the first case ran as this user");
    return;
  }
  check_many_dirs(people().back());
}
