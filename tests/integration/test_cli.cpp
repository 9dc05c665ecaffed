// The CLI as a person meets it: messages, exit codes, and running as another user.
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <unistd.h>

#include <chrono>
#include <thread>

using namespace ws::test;

namespace {
Run ws_in(const std::filesystem::path& dir, const std::string& args) {
  return sh(q(ws_binary().string()) + " " + args, dir);
}
} // namespace

TEST_CASE("cli: outside a git repository: a clear error + exit 1") {
  TempDir dir;
  Run r = ws_in(dir.path(), "status");
  CHECK(r.status == 1);
  CHECK(r.err.find("ws: error: not a git repository") != std::string::npos);
  CHECK(r.err.find("hint: ") != std::string::npos);
  Run c = ws_in(dir.path(), "-C /nonexistent status");
  CHECK(c.status == 1);
  CHECK(c.err.find("cannot change to '/nonexistent'") != std::string::npos);
}

TEST_CASE("cli: new twice + unknown workspaces + bad names") {
  TestRepo repo;
  TempDir state;
  std::string env = "XDG_DATA_HOME=" + q((state.path() / "d").string()) +
                    " XDG_RUNTIME_DIR=" + q((state.path() / "r").string()) + " ";
  auto run = [&](const std::string& args) {
    return sh(env + q(ws_binary().string()) + " " + args, repo.path());
  };
  CHECK(run("new").status == 0);
  Run again = run("new");
  CHECK(again.status == 1);
  CHECK(again.err.find("workspace 'default' already exists") != std::string::npos);
  Run missing = run("-w nope mount");
  CHECK(missing.status == 1);
  CHECK(missing.err.find("no workspace 'nope'") != std::string::npos);
  CHECK(missing.err.find("ws new nope") != std::string::npos);
  Run bad = run("new ../evil");
  CHECK(bad.status == 1);
  CHECK(bad.err.find("invalid workspace name") != std::string::npos);
  Run env_name = sh(env + "WS_WORKSPACE=second " + q(ws_binary().string()) + " new", repo.path());
  CHECK(env_name.err.find("created workspace 'second'") != std::string::npos);
  CHECK(run("list").out == "* default          not mounted          0 changed paths\n"
                           "  second           not mounted          0 changed paths\n");
  CHECK(run("status").out == "");
  Run unknown = run("frobnicate");
  CHECK(unknown.status != 0);
}

TEST_CASE("cli: ws run from inside the view finds its workspace") {
  TestRepo repo;
  MountedWorkspace w(repo, "inner");
  REQUIRE(w.in_view("echo x > x.txt").status == 0);
  Run st = sh(q(ws_binary().string()) + " status", w.view() / "src");
  CHECK(st.status == 0);
  CHECK(st.out == "A x.txt\n");
  Run log = sh(q(ws_binary().string()) + " log --path ../x.txt", w.view() / "src");
  CHECK(log.out.find("create    x.txt") != std::string::npos);
}

TEST_CASE("cli: no /dev/fuse - a clear error naming the fix") {
  if (::geteuid() != 0 || sh("command -v unshare").status != 0) {
    return; // needs a private mount namespace to hide /dev/fuse from this one command
  }
  TestRepo repo;
  TempDir state;
  std::string env = "XDG_DATA_HOME=" + q((state.path() / "d").string()) +
                    " XDG_RUNTIME_DIR=" + q((state.path() / "r").string()) + " ";
  std::string ws = q(ws_binary().string());
  Run r = sh("unshare -m sh -c 'mount -t tmpfs none /dev && " + env + ws + " new 2>/dev/null; " +
                 env + ws + " mount'",
             repo.path());
  CHECK(r.status == 1);
  CHECK(r.err.find("ws: error: FUSE is not available: /dev/fuse does not exist") !=
        std::string::npos);
  CHECK(r.err.find("hint: load the module (modprobe fuse)") != std::string::npos);
}

TEST_CASE("cli: umount of a busy view says why - --force detaches it") {
  TestRepo repo;
  MountedWorkspace w(repo);
  Run busy = w.ws("umount & sleep 0.3; wait"); // nothing busy: this one succeeds
  CHECK(busy.status == 0);
  w.mount();
  // A process holding a directory of the view open makes it busy.
  Run held = sh("cd " + q(w.view().string()) + " && (sleep 3 &) && sleep 0.2 && " +
                    q(ws_binary().string()) + " -C " + q(repo.path().string()) + " umount",
                "/");
  CHECK(held.status == 1);
  CHECK(held.err.find("cannot unmount the view") != std::string::npos);
  CHECK(held.err.find("--force") != std::string::npos);
  CHECK(w.ws("umount --force").status == 0);
  // The detached daemon serves the sleep until it ends, then exits; a mount before that is
  // refused (test_lifecycle_small.cpp checks it), which a loaded machine reached here.
  bool exited = false;
  for (int i = 0; i < 200 && !exited; ++i) {
    exited = w.ws("list").out.find("not mounted") != std::string::npos;
    if (!exited) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  CHECK(exited);
  w.mount();
}

TEST_CASE("permissions: root serves other users as ext4 would - their new files are theirs") {
  if (::geteuid() != 0) {
    return;
  }
  TestRepo repo;
  sh("chmod 755 " + q(repo.path().parent_path().string()) +
         " && echo secret > secret.txt && chmod 600 secret.txt",
     repo.path());
  MountedWorkspace w(repo);
  // Open the way to the mountpoint for others, without descending into the view itself.
  sh("chmod 755 " + q(w.state_root().string()) + " && find " +
     q((w.state_root() / "run").string()) + " -xdev -maxdepth 2 -type d -exec chmod a+rx {} +");
  REQUIRE(sh("stat -c %a secret.txt", w.view()).out == "600\n");
  REQUIRE(w.in_view("mkdir shared && chmod 777 shared").status == 0);
  Run made =
      sh("runuser -u nobody -- sh -c 'echo mine > shared/n.txt && stat -c %U:%a shared/n.txt'",
         w.view());
  CHECK(made.out == "nobody:644\n");
  Run denied = sh("runuser -u nobody -- cat secret.txt", w.view());
  CHECK(denied.status != 0);
  CHECK(denied.err.find("Permission denied") != std::string::npos);
  Run write_denied = sh("runuser -u nobody -- sh -c 'echo x >> README.md'", w.view());
  CHECK(write_denied.status != 0);
  CHECK(sh("stat -c %U shared/n.txt", w.view()).out == "nobody\n");
}

TEST_CASE("permissions: a normal user mounts through fusermount3") {
  if (::geteuid() != 0) {
    return; // this test creates the unprivileged user's environment as root
  }
  TestRepo repo;
  TempDir home;
  sh("chmod 755 " + q(repo.path().parent_path().string()) + " && chown -R nobody " +
     q(home.path().string()) + " " + q(repo.path().string()) + " && chmod 755 " +
     q(home.path().string()));
  std::string env = "env HOME=" + q(home.path().string()) +
                    " XDG_DATA_HOME=" + q((home.path() / "d").string()) +
                    " XDG_RUNTIME_DIR=" + q((home.path() / "r").string()) + " ";
  std::string ws = q(ws_binary().string());
  Run r =
      sh("runuser -u nobody -- " + env + "sh -c '" + "mkdir -p -m 700 " +
             (home.path() / "r").string() + " && " + ws + " new 2>/dev/null && m=$(" + ws +
             " mount) && echo agent > \"$m/agent.txt\" && " + ws + " status && " + ws + " umount'",
         repo.path());
  CHECK(r.err == "");
  CHECK(r.status == 0);
  CHECK(r.out == "A agent.txt\n");
  CHECK(!std::filesystem::exists(repo.path() / "agent.txt"));
}
