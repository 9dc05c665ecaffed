// The transfer at scale, as an agent could force it on the person: a directory nested
// deeper than any path string can name, and more new files than a process may hold open.
// No timings are asserted (the machine is shared); bench/transfer measures them.
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

constexpr auto npos = std::string::npos;
constexpr int k_depth = 3000; // "d/" * 3000: 6,000 bytes, beyond PATH_MAX (4,096)
constexpr int k_files = 20000;

/// `ws ARGS` for workspace `w` with RLIMIT_NOFILE lowered to `nofile` (soft and hard) in the
/// child, as a person's shell with the usual `ulimit -n 1024` runs it.
Run ws_limited(const TestRepo& repo, const MountedWorkspace& w, const std::string& args,
               rlim_t nofile) {
  std::string env = "XDG_DATA_HOME=" + q((w.state_root() / "data").string()) +
                    " XDG_RUNTIME_DIR=" + q((w.state_root() / "run").string()) + " ";
  std::string script = env + q(ws_binary().string()) + " -w default " + args;
  TempDir out_dir;
  fs::path out = out_dir.path() / "out", err = out_dir.path() / "err";
  pid_t pid = ::fork();
  if (pid == 0) {
    rlimit lim{nofile, nofile};
    int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (::setrlimit(RLIMIT_NOFILE, &lim) != 0 || o < 0 || e < 0 || ::dup2(o, 1) < 0 ||
        ::dup2(e, 2) < 0 || ::chdir(repo.path().c_str()) != 0) {
      ::_exit(126);
    }
    ::execl("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  Run r;
  int status = 0;
  if (pid > 0 && ::waitpid(pid, &status, 0) == pid) {
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  auto slurp = [](const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

/// Python that makes (or, with `read`, reads) `leaf.txt` at the bottom of a k_depth chain
/// of `d` directories below the cwd, one chdir at a time: no path string names it whole.
std::string deep_script(bool read) {
  std::string walk = "import os\nfor i in range(" + std::to_string(k_depth) + "):\n";
  if (read) {
    return walk + "    os.chdir('d')\nprint(open('leaf.txt').read(), end='')\n"
                  "print(oct(os.stat('leaf.txt').st_mode & 0o777))\n";
  }
  return walk + "    os.mkdir('d'); os.chdir('d')\n"
                "open('leaf.txt', 'w').write('at the bottom\\n')\n";
}

} // namespace

TEST_CASE("transfer scale: a 3,000-deep directory made in the view lands with ws apply") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("python3 -c " + q(deep_script(false))).status == 0);
  w.in_view("echo top >> README.md");

  Run st = w.ws("status");
  CHECK_MESSAGE(st.status == 0, st.err);
  CHECK(st.out.find("/leaf.txt") != npos);
  Run d = w.ws("diff --no-pager --color=never");
  CHECK_MESSAGE(d.status == 0, d.err);
  CHECK(d.out.find("+at the bottom") != npos);
  // The short forms and the machines' too: one line per file, the deep one's name whole.
  Run stat = w.ws("diff --stat --no-pager --color=never");
  CHECK_MESSAGE(stat.status == 0, stat.err);
  CHECK(stat.out.find("2 files changed, 2 insertions(+)") != npos);
  Run names = w.ws("diff --name-status --no-pager");
  CHECK_MESSAGE(names.status == 0, names.err);
  CHECK(names.out.find("M\tREADME.md\n") != npos);
  CHECK(names.out.find("A\td/d/d/") != npos);
  CHECK(names.out.find("/d/leaf.txt\n") != npos);
  CHECK(names.out.size() > 6000); // the name whole: 3,000 "d/" and the leaf
  Run json = w.ws("status --json");
  CHECK_MESSAGE(json.status == 0, json.err);
  CHECK(json.out.find("/d/leaf.txt\"") != npos);
  Run check = w.ws("apply --check");
  CHECK_MESSAGE(check.status == 0, check.err);
  CHECK(check.out.find("would apply cleanly: 2 changes") != npos);
  Run a = w.ws("apply");
  CHECK_MESSAGE(a.status == 0, a.err);

  Run real = sh("python3 -c " + q(deep_script(true)), repo.path());
  CHECK_MESSAGE(real.status == 0, real.err);
  CHECK(real.out.rfind("at the bottom\n", 0) == 0);
  CHECK(sh("cat README.md", repo.path()).out.find("top\n") != npos);
  Run after = w.ws("status");
  CHECK(after.out.empty()); // landed: no longer a change of the workspace
}

TEST_CASE("transfer scale: a 3,000-deep change below a symlinked real directory is refused") {
  TestRepo repo;
  MountedWorkspace w(repo);
  REQUIRE(w.in_view("python3 -c " + q(deep_script(false))).status == 0);
  // The person (or anything) turns the top of the chain into a symlink to a directory
  // outside the project meanwhile: a walk that follows it would write there.
  TempDir outside;
  fs::create_directory(outside.path() / "d");
  fs::create_directory_symlink(outside.path() / "d", repo.path() / "d");
  Run a = w.ws("apply");
  CHECK(a.status != 0);
  // Listed as any conflict (as ws apply --commits and ws review list it too), nothing landed.
  CHECK_MESSAGE(a.err.find("CONFLICT d is a symlink in the real tree, and this apply does not "
                           "delete it") != npos,
                a.err);
  CHECK(a.err.find("nothing was applied") != npos);
  CHECK(fs::is_empty(outside.path() / "d"));
}

TEST_CASE("transfer scale: 20,000 new files land under RLIMIT_NOFILE 1024") {
  TestRepo repo;
  MountedWorkspace w(repo);
  // 200 directories of 100 files: more directories than a walk could hold open at once, too.
  std::string make = "import os\nfor i in range(" + std::to_string(k_files) +
                     "):\n"
                     "    d = 'gen/m%d' % (i // 100)\n"
                     "    if i % 100 == 0: os.makedirs(d)\n"
                     "    open('%s/f%d.txt' % (d, i), 'w').write('file %d\\n' % i)\n";
  REQUIRE(w.in_view("python3 -c " + q(make)).status == 0);

  Run st = ws_limited(repo, w, "status", 1024);
  CHECK_MESSAGE(st.status == 0, st.err);
  // A person's report fits a screen: the plain new files fold into their top directory.
  CHECK(st.out.rfind("A gen/  (" + std::to_string(k_files) + " new files)\n", 0) == 0);
  CHECK(std::count(st.out.begin(), st.out.end(), '\n') == 2);
  Run all = ws_limited(repo, w, "status --verbose", 1024);
  CHECK(static_cast<int>(std::count(all.out.begin(), all.out.end(), '\n')) == k_files);
  Run check = ws_limited(repo, w, "apply --check", 1024);
  CHECK_MESSAGE(check.status == 0, check.err);
  CHECK(check.out.find("would apply cleanly: " + std::to_string(k_files) + " changes") != npos);
  Run a = ws_limited(repo, w, "apply", 1024);
  CHECK_MESSAGE(a.status == 0, a.err);
  CHECK(a.out.find("applied " + std::to_string(k_files) + " changes") != npos);

  Run count = sh("find gen -type f | wc -l && cat gen/m0/f0.txt gen/m199/f19999.txt", repo.path());
  CHECK(count.out == std::to_string(k_files) + "\nfile 0\nfile 19999\n");
  Run left = sh("ls -a | grep -c '^.ws-apply' || true", repo.path());
  CHECK(left.out == "0\n");
}
