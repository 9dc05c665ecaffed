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

void check_config_symlink(const std::string& user) {
  Person p(user);
  fs::path host = host_config(p, "home-git");
  REQUIRE(p.ws("run -- true").status == 0); // the workspace and its private git
  REQUIRE(p.view_file(".git/config").find("[core]") != npos);

  Run plant = p.ws("run -- sh -c " + q("rm .git/config && ln -s " + q(host.string()) +
                                       " .git/config && readlink .git/config"));
  INFO("as " << p.label() << ": the agent's symlink: " << plant.status << "\n"
             << plant.out << plant.err);
  REQUIRE(plant.status == 0);
  REQUIRE(plant.out == host.string() + "\n");

  remount(p);
  CHECK(slurp(host) == k_host_config);
  // And a session after it: ws run mounts the view again the same way.
  CHECK(p.ws("run -- true").status == 0);
  CHECK(slurp(host) == k_host_config);
}

void check_git_dir_symlink(const std::string& user) {
  Person p(user);
  fs::path host = host_config(p, "other-repo.git");
  REQUIRE(p.ws("run -- true").status == 0);

  Run plant = p.ws("run -- sh -c " + q("mv .git .git-agent && ln -s " +
                                       q(host.parent_path().string()) + " .git && readlink .git"));
  INFO("as " << p.label() << ": the agent's .git symlink: " << plant.status << "\n"
             << plant.out << plant.err);
  if (plant.status != 0) {
    // The view keeps its .git a directory: then there is nothing to follow.
    Run still = p.sh_as("test -d .git && ! test -L .git", p.view());
    CHECK_MESSAGE(still.status == 0, "the view refused the plant, but .git is not its directory");
  } else {
    CHECK(plant.out == host.parent_path().string() + "\n");
  }

  remount(p);
  CHECK(slurp(host) == k_host_config);
  CHECK(p.ws("run -- true").status == 0);
  CHECK(slurp(host) == k_host_config);
}

} // namespace

TEST_CASE("agent git: a .git/config symlinked to a person's file is not written at a remount") {
  as_each(check_config_symlink);
}

TEST_CASE("agent git: a .git symlinked to a person's directory is not written at a remount") {
  as_each(check_git_dir_symlink);
}
