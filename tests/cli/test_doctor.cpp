// `ws doctor` on a machine that lacks one thing at a time: each is faked for ws only (a private
// mount namespace, a private user namespace, a small tmpfs), never for the machine, and the
// doctor must name it, print the exact fix and exit 1 (a warning alone: the usual status).
#include "tests/support/harness.hpp"
#include "tests/support/text_checks.hpp"

#include <doctest/doctest.h>

#include <unistd.h>

using namespace ws::test;

namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// Root with these programs, or a message saying why the test is skipped.
bool root_with(const std::string& programs) {
  if (::geteuid() != 0 || sh("command -v " + programs).status != 0) {
    MESSAGE("needs root and " << programs << ", to fake a missing precondition: skipped");
    return false;
  }
  return true;
}

/// Environment words for a user whose home, state and views are in `home`.
std::string env_in(const TempDir& home) {
  return "env HOME=" + q(home.path().string()) +
         " XDG_DATA_HOME=" + q((home.path() / "d").string()) +
         " XDG_RUNTIME_DIR=" + q((home.path() / "r").string()) + " ";
}

/// Runs `inner` (a shell script) in a private mount namespace: its mounts vanish with it.
Run in_mount_namespace(const std::string& inner, const std::filesystem::path& cwd = {}) {
  return sh("unshare -m sh -c " + q(inner), cwd);
}

} // namespace

TEST_CASE("doctor: fusermount3 without its setuid bit: the chown and chmod, and ws mount says "
          "doctor") {
  if (!root_with("unshare runuser") || sh("id nobody").status != 0) {
    return;
  }
  std::string fusermount = sh("command -v fusermount3").out;
  if (fusermount.empty()) {
    MESSAGE("fusermount3 is not installed: skipped");
    return;
  }
  TestRepo repo;
  TempDir home, copy;
  // The user's own repository and home; /usr/bin/fusermount3 as a plain copy (mode 0755).
  REQUIRE(sh("chmod 755 " + q(repo.path().parent_path().string()) + " " + q(home.path().string()) +
             " && chown -R nobody " + q(repo.path().string()) + " " + q(home.path().string()) +
             " && cp /usr/bin/fusermount3 " + q((copy.path() / "fusermount3").string()) +
             " && chmod 0755 " + q((copy.path() / "fusermount3").string()))
              .status == 0);
  std::string ws = "runuser -u nobody -- " + env_in(home) + q(ws_binary().string());
  Run r =
      in_mount_namespace("mount --bind " + (copy.path() / "fusermount3").string() +
                             " /usr/bin/fusermount3 && " + ws + " doctor; echo rc=$?; " + ws +
                             " new 2>/dev/null; " + ws + " mount; " + ws + " umount 2>/dev/null",
                         repo.path());
  check_has_all(r.out,
                {"FAIL  fusermount3        /usr/bin/fusermount3 is not setuid root (mode 0755)",
                 "needed by ws mount (as a normal user); fix: sudo chown root:root "
                 "/usr/bin/fusermount3 && sudo chmod 4755 /usr/bin/fusermount3\n",
                 "rc=1"});
  check_has_all(r.err, {"ws: error: cannot mount the view at ",
                        ": fusermount3: mount failed: Operation not permitted\n",
                        "'ws doctor' checks everything ws needs on this machine"});
  CHECK(sh("stat -c %a /usr/bin/fusermount3").out == "4755\n"); // the machine's is untouched
}

TEST_CASE("doctor: bubblewrap not installed, or not root's: how to install it, and ws run says "
          "doctor") {
  if (!root_with("unshare bwrap git slirp4netns")) {
    return;
  }
  TestRepo repo;
  TempDir state, bin;
  // /usr/bin as a machine without bubblewrap has it: only what the doctor runs.
  std::string stage = (bin.path() / "usr-bin").string();
  REQUIRE(sh("mkdir -m 755 " + q(stage) + " && cp -p /usr/bin/git /usr/bin/slirp4netns " +
             "/usr/bin/true " + q(stage) + " && { cp -p /usr/bin/fusermount3 " + q(stage) +
             " 2>/dev/null || true; }")
              .status == 0);
  // No env(1) either: plain assignments, which the shell makes itself.
  std::string ws =
      "HOME=" + q(state.path().string()) + " XDG_DATA_HOME=" + q((state.path() / "d").string()) +
      " XDG_RUNTIME_DIR=" + q((state.path() / "r").string()) + " " + q(ws_binary().string());
  Run missing =
      in_mount_namespace("mount --bind " + stage + " /usr/bin && " + ws + " doctor; echo rc=$?; " +
                             ws + " new 2>/dev/null; " + ws + " run -- true",
                         repo.path());
  check_has_all(missing.out,
                {"FAIL  bubblewrap         bwrap is not installed (looked in /usr/bin, /bin)\n",
                 "needed by ws run; fix: install it (Debian: apt-get install bubblewrap), or "
                 "run unconfined on purpose with 'ws run --no-confine'\n",
                 "FAIL  sandbox            not tried: no trusted bubblewrap", "rc=1"});
  check_has_all(missing.err, {"ws: error: cannot confine the agent: bwrap is not installed",
                              "'ws doctor' checks everything ws needs on this machine"});

  // One the user put there: not root's, so not trusted to run outside the sandbox.
  std::string own = (bin.path() / "bwrap").string();
  REQUIRE(sh("cp /usr/bin/bwrap " + q(own) + " && chown nobody " + q(own)).status == 0);
  Run untrusted = in_mount_namespace("mount --bind " + own + " /usr/bin/bwrap && " + ws +
                                     " doctor; echo rc=$?");
  check_has_all(untrusted.out,
                {"FAIL  bubblewrap         bwrap is not trusted (/usr/bin/bwrap is not owned by "
                 "root)\n",
                 "fix: ws runs bwrap only from a root-owned, non-writable place; install it "
                 "(Debian: apt-get install bubblewrap)",
                 "rc=1"});
}

TEST_CASE("doctor: user namespaces turned off: the sysctl that turns them on") {
  if (!root_with("python3") || sh("id nobody").status != 0) {
    return;
  }
  TempDir home;
  REQUIRE(sh("chmod 755 " + q(home.path().string()) + " && chown nobody " + q(home.path().string()))
              .status == 0);
  // A user namespace of its own whose user.max_user_namespaces is 0 (the sysctl is per user
  // namespace, and limits nest): there nobody cannot make one, as on a machine set so.
  const char* off = R"(
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
go_r, go_w = os.pipe(); ready_r, ready_w = os.pipe()
pid = os.fork()
if pid == 0:
    if libc.unshare(0x10000000) != 0:  # CLONE_NEWUSER
        os._exit(90)
    os.write(ready_w, b'x'); os.read(go_r, 1)
    with open('/proc/sys/user/max_user_namespaces', 'w') as f:
        f.write('0')
    os.setgroups([]); os.setresgid(65534, 65534, 65534); os.setresuid(65534, 65534, 65534)
    os.execvp(sys.argv[1], sys.argv[1:])
os.read(ready_r, 1)
for m in ('uid_map', 'gid_map'):
    with open('/proc/%d/%s' % (pid, m), 'w') as f:
        f.write('0 0 65536')
os.write(go_w, b'x')
sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
)";
  std::string before = sh("cat /proc/sys/user/max_user_namespaces").out;
  Run r = sh("python3 -c " + q(off) + " " + env_in(home) + q(ws_binary().string()) +
             " doctor; echo rc=$?");
  check_has_all(r.out, {"FAIL  user namespaces    unshare(CLONE_NEWUSER): No space left on "
                        "device; user.max_user_namespaces = 0\n",
                        "needed by ws run; fix: sudo sysctl -w user.max_user_namespaces=15000   "
                        "(to keep it after a reboot, put the same setting in "
                        "/etc/sysctl.d/50-ws.conf)\n",
                        "rc=1"});
  CHECK(sh("cat /proc/sys/user/max_user_namespaces").out == before); // the machine's: untouched
}

TEST_CASE("doctor: a nearly full disk where the state lives fails, a low one warns: where to move "
          "it") {
  if (!root_with("unshare")) {
    return;
  }
  TempDir home;
  std::string small = (home.path() / "small").string();
  REQUIRE(sh("mkdir " + q(small)).status == 0);
  std::string ws = "XDG_DATA_HOME=" + q(small + "/d") +
                   " XDG_RUNTIME_DIR=" + q((home.path() / "r").string()) + " " +
                   q(ws_binary().string());
  std::string fix = "fix: free space there, or keep workspaces on a larger disk: export "
                    "XDG_DATA_HOME=/path/on/larger/disk\n";
  Run full = in_mount_namespace("mount -t tmpfs -o size=16m none " + small + " && " + ws +
                                " doctor; echo rc=$?");
  check_has_all(full.out, {"FAIL  disk space         16.0 MiB free at " + small +
                               ": the agent's writes will soon fail with ENOSPC\n",
                           fix, "rc=1"});
  // Low but not full: a warning, which leaves the exit status as it was.
  Run usual = sh(ws + " doctor; echo rc=$?");
  Run low = in_mount_namespace("mount -t tmpfs -o size=2g none " + small + " && " + ws +
                               " doctor; echo rc=$?");
  check_has_all(low.out, {"warn  disk space         2.0 GiB free at " + small +
                              ": little room for the agent's writes\n",
                          fix});
  CHECK(low.out.substr(low.out.rfind("rc=")) == usual.out.substr(usual.out.rfind("rc=")));
  CHECK(!has(low.out, "FAIL  disk space"));
}
