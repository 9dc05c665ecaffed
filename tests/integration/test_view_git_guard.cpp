// The person's git, run on the host in the agent's view, never runs what the agent planted in
// .git (config, hooks, gitdir redirects): processes outside every `ws run` session see the
// real tree's version of those paths, read-only. Real `ws run`, real git, as root and as an
// unprivileged user (docs/filesystem.md, "The agent's .git and the person's git").
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <future>
#include <string>
#include <vector>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

constexpr auto npos = std::string::npos;

/// A directory outside /tmp (a private tmpfs inside the sandbox), for homes that must show
/// inside: under /home or /srv as root, under $HOME otherwise. World-traversable.
class OutsideTmp {
public:
  OutsideTmp() {
    std::vector<std::string> bases{"/home", "/srv", "/opt", "/var/lib"};
    if (::geteuid() != 0) {
      const char* home = std::getenv("HOME");
      bases = {home ? home : "/nonexistent"};
    }
    for (const auto& b : bases) {
      std::string t = b + "/ws-guard-test-XXXXXX";
      if (::mkdtemp(t.data())) {
        m_path = t;
        ::chmod(t.c_str(), 0755);
        return;
      }
    }
    throw std::runtime_error("no writable directory outside /tmp");
  }
  ~OutsideTmp() {
    std::error_code ec;
    sh("chmod -R u+rwX " + q(m_path.string()) + " 2>/dev/null");
    fs::remove_all(m_path, ec);
  }
  const fs::path& path() const { return m_path; }

private:
  fs::path m_path;
};

/// One person at the keyboard, as `user` ("" = this process's user): runs ws (whose `run`
/// is the confined agent) and their own commands on the host, unconfined.
class Person {
public:
  explicit Person(const std::string& user) : m_user(user) {
    fs::create_directories(runtime());
    fs::create_directories(home() / ".local" / "share");
    ::chmod(runtime().c_str(), 0700);
    ::chmod(m_markers.path().c_str(), 0777); // where a planted command would leave a trace
    if (!user.empty()) {
      REQUIRE(sh("chmod 755 " + q(m_repo.path().parent_path().string()) + " && chown -R " + user +
                 " " + q(home().string()) + " " + q(m_repo.path().string()))
                  .status == 0);
    }
    Run n = ws("new");
    REQUIRE_MESSAGE(n.status == 0, n.err);
    Run m = ws("mount");
    REQUIRE_MESSAGE(m.status == 0, m.err);
    m_view = m.out.substr(0, m.out.find('\n'));
  }
  ~Person() { ws("umount --force 2>/dev/null"); }
  Person(const Person&) = delete;
  Person& operator=(const Person&) = delete;

  const TestRepo& repo() const { return m_repo; }
  const fs::path& view() const { return m_view; }
  fs::path markers() const { return m_markers.path(); }
  bool marker(const std::string& name) const { return lexists(markers() / name); }

  /// `ws ARGS` in the real repository.
  Run ws(const std::string& args) const { return as_user(q(ws_binary().string()) + " " + args); }
  /// The agent: `script` confined by `ws run`, in the project (its view).
  Run agent(const std::string& script) const { return ws("run -- sh -c " + q(script)); }
  /// The person's own shell, on the host, in the view.
  Run host(const std::string& script) const {
    return as_user("sh -c " + q("cd " + q(m_view.string()) + " && " + script));
  }

private:
  fs::path home() const { return m_base.path() / "home"; }
  fs::path runtime() const { return home() / ".run"; }
  Run as_user(const std::string& cmd) const {
    // A fixed identity for commits; no global or system git config to interfere.
    std::string env = "env HOME=" + q(home().string()) +
                      " XDG_DATA_HOME=" + q((home() / ".local" / "share").string()) +
                      " XDG_RUNTIME_DIR=" + q(runtime().string()) +
                      " GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=P GIT_AUTHOR_EMAIL=p@example.com"
                      " GIT_COMMITTER_NAME=P GIT_COMMITTER_EMAIL=p@example.com ";
    return sh(m_user.empty() ? env + cmd : "runuser -u " + m_user + " -- " + env + cmd,
              m_repo.path());
  }

  std::string m_user;
  OutsideTmp m_base;
  TempDir m_markers; // under the host's /tmp: the sandbox cannot even see it
  TestRepo m_repo;
  fs::path m_view;
};

/// Skips the unprivileged run where it cannot be set up; "" = this process's user.
bool usable_user(const std::string& user) {
  if (user.empty()) {
    return true;
  }
  if (::geteuid() != 0 ||
      sh("id " + user + " && command -v runuser && command -v fusermount3").status != 0) {
    MESSAGE("cannot run as '" << user << "': not root, or no runuser or fusermount3");
    return false;
  }
  return true;
}

std::string marker_cmd(const Person& p, const std::string& name) {
  return "touch " + (p.markers() / name).string();
}

/// The agent plants a core.fsmonitor command, an alias and a pre-commit hook; the person's
/// git on the host runs none of them, and the agent's git still sees all of them.
void check_config_and_hooks(const std::string& user) {
  Person p(user);
  std::string plant = "printf '#!/bin/sh\\n" + marker_cmd(p, "fsmonitor") +
                      "\\n' > evil.sh && chmod +x evil.sh && "
                      "git config core.fsmonitor ./evil.sh && "
                      "git config alias.ci " +
                      q("!" + marker_cmd(p, "alias")) + " && printf '#!/bin/sh\\n" +
                      marker_cmd(p, "hook") +
                      "\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && "
                      "echo agent >> README.md && git config core.fsmonitor";
  Run planted = p.agent(plant);
  INFO("agent: " << planted.out << planted.err);
  REQUIRE(planted.status == 0);
  CHECK(planted.out.find("./evil.sh\n") != npos);

  std::string real_config = p.repo().read(".git/config");
  Run cfg = p.host("cat .git/config");
  CHECK(cfg.status == 0);
  CHECK(cfg.out == real_config); // the real tree's version, not the agent's
  // The person sees the real hooks directory, which has no pre-commit.
  Run hook = p.host("cat .git/hooks/pre-commit");
  CHECK(hook.status != 0);
  CHECK_MESSAGE(hook.err.find("No such file or directory") != npos, hook.err);
  Run hooks = p.host("ls .git/hooks");
  CHECK(hooks.out.find("pre-commit.sample\n") != npos);
  CHECK(hooks.out.find("pre-commit\n") == npos);

  Run status = p.host("git status --porcelain");
  INFO("person's git status: " << status.out << status.err);
  CHECK(status.status == 0);
  CHECK(status.out.find(" M README.md") != npos); // the agent's work is there to see
  Run alias = p.host("git ci");
  CHECK(alias.status != 0);
  CHECK(alias.err.find("'ci' is not a git command") != npos);
  // The commit works: the real tree has no hook to run, and the agent's is not seen.
  Run commit = p.host("git commit -q -am x && git log -1 --format=%s");
  INFO("person's git commit: " << commit.out << commit.err);
  CHECK(commit.status == 0);
  CHECK(commit.out == "x\n");
  CHECK(!p.marker("fsmonitor"));
  CHECK(!p.marker("alias"));
  CHECK(!p.marker("hook"));

  // The person cannot edit the agent's planted files in place either.
  Run write =
      p.host("/usr/bin/python3 -c \"with open('.git/config', 'a') as f: f.write('[core]')\"");
  CHECK(write.status != 0);
  CHECK_MESSAGE(write.err.find("PermissionError") != npos, write.err);
  Run config = p.host("git config user.name someone");
  CHECK(config.status != 0);

  // The agent's view is unchanged: its git reads back what it wrote.
  Run back = p.agent("git config core.fsmonitor && git config alias.ci && "
                     "cat .git/hooks/pre-commit && git log -1 --format=%s");
  INFO("agent again: " << back.out << back.err);
  CHECK(back.status == 0);
  CHECK(back.out.find("./evil.sh\n!touch ") == 0);
  CHECK(back.out.find(marker_cmd(p, "hook")) != npos);
  CHECK(back.out.find("\nx\n") != npos); // the person's commit, in the shared view
  CHECK(!p.marker("fsmonitor"));
  CHECK(!p.marker("hook"));
}

/// The agent replaces .git by a `gitdir:` file pointing at a git directory of its own (and
/// plants one in a subdirectory): the person's git never uses the agent's git directory.
void check_gitdir_redirect(const std::string& user) {
  Person p(user);
  std::string plant =
      "cp -a .git evilgit && git --git-dir=evilgit config core.fsmonitor ./evil.sh && "
      "printf '#!/bin/sh\\n" +
      marker_cmd(p, "fsmonitor") +
      "\\n' > evil.sh && chmod +x evil.sh && "
      "printf '#!/bin/sh\\n" +
      marker_cmd(p, "hook") +
      "\\n' > evilgit/hooks/pre-commit && chmod +x evilgit/hooks/pre-commit && "
      "rm -rf .git && echo 'gitdir: evilgit' > .git && mkdir -p sub && "
      "echo 'gitdir: ../evilgit' > sub/.git && echo agent >> README.md && "
      "git rev-parse --git-dir | xargs basename && git config core.fsmonitor";
  Run planted = p.agent(plant);
  INFO("agent: " << planted.out << planted.err);
  REQUIRE(planted.status == 0);
  CHECK(planted.out == "evilgit\n./evil.sh\n");

  // The person sees the real .git (a directory), read-only.
  Run kind = p.host("test -d .git && echo dir");
  CHECK(kind.out == "dir\n");
  Run status = p.host("git status --porcelain && git -C sub rev-parse --show-toplevel");
  INFO("person's git status: " << status.out << status.err);
  CHECK(status.status == 0);
  CHECK(status.out.find(" M README.md") != npos);
  CHECK(status.out.find(p.view().string() + "\n") != npos); // sub/.git is not followed
  Run commit = p.host("git commit -q -am x");
  INFO("person's git commit: " << commit.out << commit.err);
  CHECK(commit.status != 0); // the real .git is shown read-only: git says where it failed
  CHECK(commit.err.find("index.lock") != npos);
  CHECK(commit.err.find("Permission denied") != npos);
  CHECK(!p.marker("fsmonitor"));
  CHECK(!p.marker("hook"));

  Run back =
      p.agent("git rev-parse --git-dir | xargs basename && git config core.fsmonitor && cat .git");
  CHECK(back.status == 0);
  CHECK(back.out == "evilgit\n./evil.sh\ngitdir: evilgit\n");
  CHECK(!p.marker("fsmonitor"));
}

} // namespace

TEST_CASE("git guard: the person's git ignores the agent's config, alias and hook (root)") {
  check_config_and_hooks("");
}

TEST_CASE("git guard: the person's git ignores the agent's config, alias and hook (nobody)") {
  std::string user = ::geteuid() == 0 ? "nobody" : "";
  if (usable_user(user)) {
    check_config_and_hooks(user);
  }
}

TEST_CASE("git guard: a gitdir redirect planted by the agent is not followed (root)") {
  check_gitdir_redirect("");
}

TEST_CASE("git guard: a gitdir redirect planted by the agent is not followed (nobody)") {
  std::string user = ::geteuid() == 0 ? "nobody" : "";
  if (usable_user(user)) {
    check_gitdir_redirect(user);
  }
}

TEST_CASE("git guard: a config renamed into place is never served to the person") {
  Person p("");
  REQUIRE(p.agent("git config core.bare false").status == 0);
  std::string real_config = p.repo().read(".git/config");
  // The agent renames its config into place again and again (git's own lock-and-rename),
  // while the person reads .git/config: every read is the real one, or refused.
  auto agent = std::async(std::launch::async, [&] {
    return p.agent("i=0; while [ $i -lt 300 ]; do "
                   "printf '[core]\\n\\tfsmonitor = evil\\n' > .git/config.tmp && "
                   "mv .git/config.tmp .git/config; i=$((i+1)); done");
  });
  static const std::string k_reader = "import sys, time\n"
                                      "seen = set()\n"
                                      "end = time.time() + 60\n"
                                      "while time.time() < end:\n"
                                      "    try:\n"
                                      "        seen.add(open('.git/config').read())\n"
                                      "    except OSError as e:\n"
                                      "        seen.add('error %d' % e.errno)\n"
                                      "    if len(seen) > 1 and 'evil' in ''.join(seen): break\n"
                                      "    if open(sys.argv[1]).read() == 'done': break\n"
                                      "for s in seen: print(repr(s))\n";
  TempDir flag;
  fs::path done = flag.path() / "done";
  sh("printf no > " + q(done.string()));
  auto reader = std::async(std::launch::async, [&] {
    return p.host("/usr/bin/python3 -c " + q(k_reader) + " " + q(done.string()));
  });
  Run a = agent.get();
  sh("printf done > " + q(done.string()));
  Run r = reader.get();
  INFO("agent: " << a.err << "\nperson read: " << r.out << r.err);
  CHECK(a.status == 0);
  CHECK(r.status == 0);
  CHECK(r.out.find("evil") == npos);
  CHECK(p.host("cat .git/config").out == real_config);
  CHECK(p.agent("git config core.fsmonitor").out == "evil\n");
}

TEST_CASE("git guard: a symlink cannot be renamed into .git - the person sees the real tree") {
  Person p("");
  Run r = p.agent("mkdir -p evilmod && ln -s ../evilmod .git/ln && "
                  "/usr/bin/python3 -c \"import os; os.symlink('../evilmod', 'l'); os.rename('l', "
                  "'.git/modules')\" 2>&1 | tail -1; if [ -L l ]; then mv l .git/modules; fi; "
                  "readlink .git/modules");
  INFO(r.out << r.err);
  CHECK(r.out.find("Invalid cross-device link") != npos); // rename(2) says EXDEV...
  CHECK(r.out.find("../evilmod\n") != npos);              // ...and mv copies it instead
  Run host = p.host("ls -d .git/modules .git/ln 2>&1; ls .git/hooks");
  CHECK(host.out.find("Permission denied") != npos);
  CHECK(host.out.find("pre-commit.sample") != npos);
}
