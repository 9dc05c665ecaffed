// The pure parts of ws run's sandbox plan: environment allowlist, path checks, guarded agent
// config, the bwrap command line's order. The escapes themselves are tested for real in
// tests/integration/test_run_escapes.cpp.
#include "src/cli/error.hpp"
#include "src/run/agent_config_guard.hpp"
#include "src/run/path_guard.hpp"
#include "src/run/read_only_scan.hpp"
#include "src/run/sandbox.hpp"
#include "src/run/sandbox_env.hpp"
#include "src/run/trusted_program.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>

using namespace ws;
namespace fs = std::filesystem;

namespace {

std::string value_of(const EnvList& env, const std::string& name) {
  for (const auto& [k, v] : env) {
    if (k == name) {
      return v;
    }
  }
  return "<unset>";
}

/// The message of the Error `f` throws, or "" if it does not.
template <class F> std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

ptrdiff_t index_of(const std::vector<std::string>& argv, std::initializer_list<std::string> seq) {
  auto it = std::search(argv.begin(), argv.end(), seq.begin(), seq.end());
  return it == argv.end() ? -1 : it - argv.begin();
}

} // namespace

TEST_CASE("sandbox_environment passes the allowlist and what is named, nothing else") {
  ::setenv("SSH_AUTH_SOCK", "/tmp/ssh-x/agent.1", 1);
  ::setenv("GITHUB_TOKEN", "ghp_secret", 1);
  ::setenv("DOCKER_HOST", "unix:///run/docker.sock", 1);
  ::setenv("LC_TIME", "C", 1);
  ::setenv("TERM", "xterm-256color", 1);
  EnvList env =
      sandbox_environment({"GITHUB_TOKEN", "EXTRA=1", "NOT_SET_ANYWHERE"}, {{"WS_SESSION", "s1"}});
  CHECK(value_of(env, "SSH_AUTH_SOCK") == "<unset>");
  CHECK(value_of(env, "DOCKER_HOST") == "<unset>");
  CHECK(value_of(env, "GITHUB_TOKEN") == "ghp_secret"); // named on purpose
  CHECK(value_of(env, "EXTRA") == "1");
  CHECK(value_of(env, "NOT_SET_ANYWHERE") == "<unset>");
  CHECK(value_of(env, "LC_TIME") == "C");
  CHECK(value_of(env, "TERM") == "xterm-256color");
  CHECK(value_of(env, "WS_SESSION") == "s1");
  EnvList plain = sandbox_environment({}, {});
  CHECK(value_of(plain, "GITHUB_TOKEN") == "<unset>");
  CHECK(error_of([] { sandbox_environment({"=x"}, {}); }).find("not a variable name") !=
        std::string::npos);
  ::unsetenv("SSH_AUTH_SOCK");
  ::unsetenv("GITHUB_TOKEN");
  ::unsetenv("DOCKER_HOST");
}

TEST_CASE("checked_sandbox_path refuses what is, contains, lies in or aliases a protected path") {
  test::TempDir t;
  fs::path root = fs::canonical(t.path());
  fs::create_directories(root / "home/src/project/.git");
  fs::create_directories(root / "home/cache");
  fs::create_directories(root / "state/ws");
  fs::create_directory_symlink(root / "home/src", root / "link-to-src");
  std::vector<ProtectedPath> protect{{root / "home/src/project", "the project", true},
                                     {root / "state/ws", "the workspace state", true}};
  auto refusal = [&](const fs::path& p) {
    return error_of([&] { checked_sandbox_path("--writable", p.string(), protect); });
  };
  CHECK(refusal(root / "home/src/project").find("is the project") != std::string::npos);
  CHECK(refusal(root / "home/src").find("contains the project") != std::string::npos);
  CHECK(refusal(root / "home").find("contains the project") != std::string::npos);
  CHECK(refusal(root).find("contains") != std::string::npos);
  CHECK(refusal(root / "home/src/project/.git").find("lies inside the project") !=
        std::string::npos);
  CHECK(refusal(root / "link-to-src").find("contains the project") != std::string::npos);
  CHECK(refusal(root / "state").find("contains the workspace state") != std::string::npos);
  CHECK(refusal(root / "missing").find("No such file") != std::string::npos);
  CHECK(checked_sandbox_path("--read", (root / "home/cache").string(), protect) ==
        root / "home/cache");
}

TEST_CASE("guarded_paths keeps an agent's code-running config read-only or watched") {
  test::TempDir t;
  fs::path claude = fs::canonical(t.path()) / ".claude";
  fs::create_directories(claude / "projects");
  std::ofstream(claude / "settings.json") << "{}";
  GuardedPaths g = guarded_paths({claude});
  auto has = [](const std::vector<fs::path>& v, const fs::path& p) {
    return std::find(v.begin(), v.end(), p) != v.end();
  };
  CHECK(has(g.existing, claude / "settings.json"));
  CHECK(has(g.absent, claude / "hooks"));
  CHECK(has(g.absent, claude / "settings.local.json"));
  CHECK(!has(g.existing, claude / "projects"));
  CHECK(!has(g.absent, claude / "projects"));
  // Planted after the plan was made: moved aside, never deleted.
  fs::create_directories(claude / "hooks");
  std::ofstream(claude / "hooks" / "x") << "evil";
  std::vector<fs::path> moved = quarantine_planted(g, "s1");
  CHECK(moved == std::vector<fs::path>{claude / "hooks"});
  CHECK(!fs::exists(claude / "hooks"));
  CHECK(fs::exists(claude / "hooks.ws-quarantine-s1" / "x"));
}

TEST_CASE("quarantine_planted follows no symlink the agent put on the way") {
  test::TempDir t;
  fs::path w = fs::canonical(t.path()) / "w";
  fs::path real = fs::canonical(t.path()) / "real";
  fs::create_directories(w / ".claude");
  fs::create_directories(real);
  std::ofstream(real / "settings.json") << "{}";
  GuardedPaths g = guarded_paths({w});
  // The agent swaps the guarded file's directory for a symlink to the person's real one.
  fs::remove(w / ".claude");
  fs::create_directory_symlink(real, w / ".claude");
  std::vector<fs::path> moved = quarantine_planted(g, "s1");
  CHECK(moved == std::vector<fs::path>{w / ".claude"});
  CHECK(fs::exists(real / "settings.json"));
  CHECK(fs::is_symlink(w / ".claude.ws-quarantine-s1"));
}

TEST_CASE("guarded_paths guards the hooks and config of nested repositories") {
  test::TempDir t;
  fs::path w = fs::canonical(t.path());
  fs::create_directories(w / ".git/modules/sub/hooks");
  std::ofstream(w / ".git/modules/sub/config") << "";
  fs::create_directories(w / "a/b/.git");
  std::ofstream(w / "a/b/.git/config") << "";
  fs::create_directories(w / "a/b/c/d/e/.git"); // deeper than looked for
  fs::create_directories(w / "node_modules/x/.git");
  GuardedPaths g = guarded_paths({w});
  auto has = [](const std::vector<fs::path>& v, const fs::path& p) {
    return std::find(v.begin(), v.end(), p) != v.end();
  };
  CHECK(has(g.existing, w / ".git/modules/sub/hooks"));
  CHECK(has(g.existing, w / ".git/modules/sub/config"));
  CHECK(has(g.existing, w / "a/b/.git/config"));
  CHECK(has(g.absent, w / "a/b/.git/hooks"));
  CHECK(!has(g.absent, w / "a/b/c/d/e/.git/hooks"));
  CHECK(!has(g.absent, w / "node_modules/x/.git/hooks"));
}

TEST_CASE("untrusted_because names a program ws must not run outside the sandbox") {
  CHECK(untrusted_because("/bin/sh") == "");
  test::TempDir t;
  fs::path fake = t.path() / "bwrap";
  std::ofstream(fake) << "#!/bin/sh\n";
  ::chmod(fake.c_str(), 0777);
  std::string why = untrusted_because(fake.string());
  CHECK(!why.empty());
  CHECK(untrusted_because("/nonexistent/bwrap").find("No such file") != std::string::npos);
}

TEST_CASE("bwrap_command: namespaces always, the view last, state hidden after writable paths") {
  SandboxSpec spec;
  spec.project = "/home/u/project";
  spec.view = "/run/user/1000/ws/p/default";
  spec.cwd = spec.project;
  spec.hidden = {"/home/u/.local/share/ws"};
  spec.writable = {"/home/u/.cache"};
  spec.host.private_dirs = {"/home", "/tmp", "/run"};
  spec.host.masked = {"/srv/sock", "/run/dbus/system_bus_socket", "/home/u/project/x.sock"};
  spec.command = {"agent", "--flag"};
  spec.init = "/usr/bin/ws";
  spec.env = {{"PATH", "/usr/bin"}};
  std::vector<std::string> a = bwrap_command("/usr/bin/bwrap", spec, 3, 4, {5, 6}, -1);
  for (const char* flag : {"--unshare-user", "--unshare-net", "--unshare-pid", "--disable-userns",
                           "--new-session", "--as-pid-1", "--clearenv", "--die-with-parent"}) {
    CHECK_MESSAGE(index_of(a, {flag}) >= 0, flag);
  }
  CHECK(index_of(a, {"--cap-drop", "ALL"}) >= 0);
  CHECK(index_of(a, {"--ro-bind", "/proc/sys", "/proc/sys"}) > index_of(a, {"--proc", "/proc"}));
  auto writable = index_of(a, {"--bind", "/home/u/.cache", "/home/u/.cache"});
  auto hidden = index_of(a, {"--tmpfs", "/home/u/.local/share/ws"});
  auto view = index_of(a, {"--bind", spec.view.string(), spec.project.string()});
  CHECK(writable > index_of(a, {"--tmpfs", "/home"}));
  CHECK(hidden > writable);
  CHECK(view > hidden);
  CHECK(index_of(a, {"--ro-bind", "/dev/null", "/srv/sock"}) >= 0);
  CHECK(index_of(a, {"--ro-bind", "/dev/null", "/run/dbus/system_bus_socket"}) < 0); // private
  CHECK(index_of(a, {"--ro-bind", "/dev/null", "/home/u/project/x.sock"}) < 0);      // the view
  // The agent runs under ws's own pid 1, its command verbatim after "--".
  CHECK(index_of(a, {"/run/ws/init", "__exec"}) >= 0);
  CHECK(index_of(a, {"--sync", "5,6"}) >= 0);
  CHECK(std::vector<std::string>(a.end() - 3, a.end()) ==
        std::vector<std::string>{"--", "agent", "--flag"});
  // The probe runs /bin/true the same way, without ws's pid 1.
  std::vector<std::string> p = bwrap_command("/usr/bin/bwrap", spec, 3, -1, {}, -1, true);
  CHECK(p.back() == "/bin/true");
  CHECK(index_of(p, {"--as-pid-1"}) < 0);
}

TEST_CASE("bwrap_command: host sockets covered under --network=host only, and only while there") {
  ws::test::TempDir dir;
  fs::path live = dir.path() / "live.sock";
  fuse::UniqueFd listener(::socket(AF_UNIX, SOCK_STREAM, 0));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, live.c_str(), sizeof addr.sun_path - 1);
  REQUIRE(::bind(listener.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  SandboxSpec spec;
  spec.project = "/home/u/project";
  spec.view = "/run/user/1000/ws/p/default";
  spec.cwd = spec.project;
  spec.host.host_sockets = {live, dir.path() / "gone.sock"};
  spec.command = {"agent"};
  spec.init = "/usr/bin/ws";
  // Its own network namespace: pid 1 refuses them all; a cover would only risk the start.
  std::vector<std::string> own = bwrap_command("/usr/bin/bwrap", spec, 3, 4, {5, 6}, -1);
  CHECK(index_of(own, {"--ro-bind", "/dev/null", live.string()}) < 0);
  spec.host_network = true;
  std::vector<std::string> host = bwrap_command("/usr/bin/bwrap", spec, 3, 4, {5, 6}, -1);
  CHECK(index_of(host, {"--ro-bind", "/dev/null", live.string()}) >= 0);
  // A socket its service removed since the scan: bwrap could not make the mountpoint.
  CHECK(index_of(host, {"--ro-bind", "/dev/null", (dir.path() / "gone.sock").string()}) < 0);
}

TEST_CASE("sandbox: the paths an agent's output says were read-only") {
  ws::ReadOnlyScan scan;
  std::string out = "sh: 1: cannot create /etc/a: Read-only file system\n"
                    "bash: line 1: /etc/b: Read-only file system\r\n"
                    "touch: cannot touch '/etc/c': Read-only file system\n"
                    "mkdir: cannot create directory \u2018/usr/d\u2019: Read-only file system\n"
                    "Error: EROFS: read-only file system, open '/opt/e'\n"
                    "OSError: [Errno 30] Read-only file system: '/srv/f'\n"
                    "failed to initialize: Read-only file system (os error 30)\n"
                    "sh: 1: cannot create /etc/a: Read-only file system\n"
                    "an unrelated line naming /etc/g\n";
  // Fed in pieces, as a pipe delivers it.
  for (size_t at = 0; at < out.size(); at += 7) {
    scan.feed(out.data() + at, std::min<size_t>(7, out.size() - at));
  }
  CHECK(scan.paths() ==
        std::vector<std::string>{"/etc/a", "/etc/b", "/etc/c", "/usr/d", "/opt/e", "/srv/f"});
}
