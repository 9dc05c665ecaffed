// Installing ws as a person would: cmake --install into a prefix (here ~/.local of a fresh
// home), then ws, its man pages and its completions work from there; and the .deb.
#include "tests/cli/cli_surface.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {
bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}
} // namespace

TEST_CASE("install: cmake --install --prefix ~/.local puts ws, man pages and completions there") {
  TempDir home;
  fs::path prefix = home.path() / ".local";
  Run install =
      sh(q(WS_CMAKE) + " --install " + q(WS_BUILD_DIR) + " --prefix " + q(prefix.string()));
  REQUIRE_MESSAGE(install.status == 0, (install.out + install.err));
  CHECK(fs::exists(prefix / "bin" / "ws"));
  CHECK(fs::exists(prefix / "bin" / "ws-init"));
  CHECK(fs::exists(prefix / "bin" / "ws-fsmonitor"));
  CHECK(fs::exists(prefix / "share" / "man" / "man1" / "ws.1"));
  CHECK(fs::exists(prefix / "share" / "man" / "man1" / "ws-profile.1"));
  CHECK(fs::exists(prefix / "share" / "man" / "man1" / "ws-run.1"));
  CHECK(fs::exists(prefix / "share" / "bash-completion" / "completions" / "ws"));
  CHECK(fs::exists(prefix / "share" / "zsh" / "site-functions" / "_ws"));
  CHECK(fs::exists(prefix / "share" / "fish" / "vendor_completions.d" / "ws.fish"));

  // What the person then types, with ~/.local/bin on PATH (Debian's ~/.profile adds it).
  std::string env = "HOME=" + q(home.path().string()) + " PATH=" + q((prefix / "bin").string()) +
                    ":/usr/sbin:/usr/bin:/sbin:/bin ";
  Run version = sh(env + "ws --version");
  CHECK(version.status == 0);
  CHECK(version.out.rfind("ws 0.", 0) == 0);
  Run doctor = sh(env + "ws doctor");
  CHECK((doctor.status == 0 || doctor.status == 1));
  CHECK(has(doctor.out, "FUSE mount"));
  // The view's git asks the installed ws-fsmonitor what changed (docs/fsmonitor.md).
  TestRepo repo;
  REQUIRE(sh(env + "ws new", repo.path()).status == 0);
  fs::path hook = prefix / "bin" / "ws-fsmonitor";
  CHECK(sh("grep -rqF " + q(hook.string()) + " " + q((prefix / "share" / "ws").string())).status ==
        0);
  if (sh("command -v man").status == 0) {
    Run where = sh(env + "man -w ws-status");
    CHECK(where.out == (prefix / "share" / "man" / "man1" / "ws-status.1").string() + "\n");
    Run page = sh(env + "MANWIDTH=100 man ws 2>&1");
    CHECK(has(page.out, "ws - hand a git project to an AI agent"));
  }
}

TEST_CASE("install: bash-completion finds ws's completion in ~/.local on Tab") {
  if (sh("command -v tmux").status != 0 ||
      !fs::exists("/usr/share/bash-completion/bash_completion")) {
    MESSAGE("tmux or bash-completion is not installed: skipped");
    return;
  }
  TempDir home;
  fs::path prefix = home.path() / ".local";
  REQUIRE(sh(q(WS_CMAKE) + " --install " + q(WS_BUILD_DIR) + " --prefix " + q(prefix.string()) +
             " >/dev/null")
              .status == 0);
  // An interactive bash as Debian starts one: bash-completion loaded, nothing of ws's
  // sourced by hand.
  std::string rc = (home.path() / ".bashrc").string();
  REQUIRE(
      sh("printf '%s\\n' '. /usr/share/bash-completion/bash_completion' \"PS1='$ '\" > " + q(rc))
          .status == 0);
  Terminal t("env -i HOME=" + q(home.path().string()) +
             " TERM=xterm PATH=" + q((prefix / "bin").string()) + ":/usr/bin:/bin bash -i");
  t.keys("'ws chec' Tab", "$ ws checkpoint");
  t.keys("C-u 'ws diff --no-p' Tab '-w ' Tab", "$ ws diff --no-pager -w");
}

TEST_CASE("install: the .deb holds ws, its man pages and completions, with its dependencies") {
  if (sh("command -v dpkg-deb && command -v dpkg-shlibdeps").status != 0) {
    MESSAGE("dpkg-dev is not installed: skipped");
    return;
  }
  TempDir out;
  Run pack = sh(q(WS_CPACK) + " -G DEB -B " + q(out.path().string()) + " --config " +
                q((fs::path(WS_BUILD_DIR) / "CPackConfig.cmake").string()));
  REQUIRE_MESSAGE(pack.status == 0, (pack.out + pack.err));
  Run deb = sh("ls " + q(out.path().string()) + "/*.deb");
  REQUIRE(deb.status == 0);
  std::string file = deb.out.substr(0, deb.out.find('\n'));
  Run depends = sh("dpkg-deb -f " + q(file) + " Depends");
  for (const char* d : {"fuse3", "bubblewrap", "slirp4netns", "git", "libfuse3-3", "libgit2-1.5",
                        "libsqlite3-0", "libseccomp2", "libc6"}) {
    CAPTURE(d);
    CHECK(has(depends.out, d));
  }
  Run files = sh("dpkg-deb -c " + q(file));
  for (const char* f :
       {"./usr/bin/ws", "./usr/bin/ws-init", "./usr/bin/ws-fsmonitor", "./usr/share/man/man1/ws.1",
        "./usr/share/man/man1/ws-run.1", "./usr/share/bash-completion/completions/ws",
        "./usr/share/zsh/vendor-completions/_ws",
        "./usr/share/fish/vendor_completions.d/ws.fish"}) {
    CAPTURE(f);
    CHECK(has(files.out, f));
  }
}
