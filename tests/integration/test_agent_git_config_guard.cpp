// A mount re-applies the workspace's private git config (core.fsmonitor, core.untrackedCache)
// to upper/.git/config while no daemon runs (src/workspace/agent_git_state.cpp). The agent
// owns that file: if it makes `.git/config`, or `.git` itself, a symlink to a file of the
// person's, the next mount must not write through it. Real `ws run`, real remounts, as root
// and as an unprivileged user (docs/agent-git.md).
#include "tests/integration/run_escapes_common.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

/// What a person's own git config looks like: the file a planted symlink aims at.
const std::string k_host_config = "[user]\n\tname = Host Person\n\temail = host@example.com\n";

/// A file of the person's outside the project (and outside /tmp): `dir`/config.
fs::path host_config(const Person& p, const std::string& dir) {
  fs::path d = p.scratch() / dir;
  fs::create_directories(d);
  std::ofstream(d / "config") << k_host_config;
  p.own(d);
  return d / "config";
}

/// The view's remount: the mount re-applies the private git config (no daemon runs then).
void remount(const Person& p) {
  Run u = p.ws("umount");
  INFO("ws umount: " << u.err);
  REQUIRE(u.status == 0);
  Run m = p.ws("mount");
  INFO("ws mount: " << m.err);
  CHECK(m.status == 0);
}

/// The agent plants with `script` (which prints what it planted: `planted`); then the view
/// is remounted, and a session runs in it: `host` must be as it was after each. A view may
/// refuse a plant where `refused` holds in it afterwards (a shell test).
void plant_then_remount(const Person& p, const fs::path& host, const std::string& script,
                        const std::string& planted, const std::string& refused = "false") {
  REQUIRE(p.ws("run -- true").status == 0); // the workspace and its private git
  REQUIRE(p.view_file(".git/config").find("[core]") != npos);
  Run plant = p.ws("run -- sh -c " + q(script));
  INFO("as " << p.label() << ": the agent planted: " << plant.status << "\n"
             << plant.out << plant.err);
  if (plant.status != 0) {
    CHECK_MESSAGE(p.sh_as(refused, p.view()).status == 0, "the plant failed, but not as refused");
  } else {
    CHECK(plant.out == planted + "\n");
  }

  remount(p);
  CHECK(slurp(host) == k_host_config);
  // ws run mounts the view again the same way.
  CHECK(p.ws("run -- true").status == 0);
  CHECK(slurp(host) == k_host_config);
}

void check_config_symlink(const std::string& user) {
  Person p(user);
  fs::path host = host_config(p, "home-git");
  plant_then_remount(p, host,
                     "rm .git/config && ln -s " + q(host.string()) +
                         " .git/config && readlink .git/config",
                     host.string());
}

void check_git_dir_symlink(const std::string& user) {
  Person p(user);
  fs::path host = host_config(p, "other-repo.git");
  fs::path dir = host.parent_path();
  plant_then_remount(p, host,
                     "mv .git .git-agent && ln -s " + q(dir.string()) + " .git && readlink .git",
                     dir.string(), "test -d .git && ! test -L .git");
}

/// git writes a config through `config.lock`, renamed over it: a lock planted as a symlink
/// must not be written through either.
void check_config_lock_symlink(const std::string& user) {
  Person p(user);
  fs::path host = host_config(p, "home-git");
  plant_then_remount(p, host,
                     "ln -s " + q(host.string()) + " .git/config.lock && readlink .git/config.lock",
                     host.string());
}

} // namespace

TEST_CASE("agent git: a .git/config symlinked to a person's file is not written at a remount") {
  as_each(check_config_symlink);
}

TEST_CASE("agent git: a .git symlinked to a person's directory is not written at a remount") {
  as_each(check_git_dir_symlink);
}

TEST_CASE("agent git: a .git/config.lock symlinked to a person's file is not written at a "
          "remount") {
  as_each(check_config_lock_symlink);
}
