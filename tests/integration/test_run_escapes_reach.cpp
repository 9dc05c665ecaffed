// ws run escape tests, escape 5: sockets, environment, private directories, network, home.
// Known ways out of `ws run`'s sandbox, each tried for real through the real binary and real
// bubblewrap, as root and as an unprivileged user ("nobody" when these tests run as root).
// "escape N:" follows the numbered list of what the sandbox must hold (docs/run.md); what the
// test asserts is what a person would check afterwards: files on the host, exit codes,
// messages.
#include "tests/integration/run_escapes_common.hpp"

#include <doctest/doctest.h>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace ws::test;
namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// 5. Sockets, environment, private directories, network, home.

namespace {

void check_unix_sockets(const std::string& user) {
  Person p(user);
  std::vector<std::pair<std::string, std::string>> socks{
      {"home", (p.home() / "agent.sock").string()}, {"abstract", "@ws-test-" + unique()}};
  std::unique_ptr<OutsideDir> run_dir, world_dir;
  if (::geteuid() == 0) {
    run_dir = std::make_unique<OutsideDir>(std::vector<std::string>{"/run"});
    socks.emplace_back("run", (run_dir->path() / "service.sock").string());
    world_dir = std::make_unique<OutsideDir>(std::vector<std::string>{"/srv", "/var/lib"});
  } else {
    MESSAGE("not root: no listener in /run");
  }
  fs::path world = world_dir ? world_dir->path() : p.base() / "shared";
  fs::create_directories(world);
  ::chmod(world.c_str(), 0755);
  socks.emplace_back("world", (world / "service.sock").string());
  UnixListeners listeners(socks);
  REQUIRE(listeners.ready());
  std::string args;
  for (const auto& entry : socks) {
    // Named copies, not structured bindings: clang 14 cannot capture those in
    // doctest's message lambdas.
    const auto& name = entry.first;
    const auto& addr = entry.second;
    args += " " + q(name + "=" + addr);
  }
  // From the host, this person reaches every one of them (so a refusal inside is the sandbox's).
  Run host = p.sh_as(py() + " -c " + q(k_unix_connect) + args, p.scratch());
  INFO("as " << p.label() << ": from the host: " << host.out << host.err);
  for (const auto& entry : socks) {
    REQUIRE(field(host.out, entry.first) == "OK");
  }
  // The listeners note a connection after accepting it: wait until each noted the host's,
  // or a late note would pass for one from inside.
  std::string seen;
  for (int i = 0; i < 100; ++i) {
    seen = listeners.accepted();
    bool all = std::all_of(socks.begin(), socks.end(), [&](const auto& entry) {
      return seen.find(entry.first + "\n") != std::string::npos;
    });
    if (all) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  for (const std::string net : {"on", "off"}) {
    Run r = p.ws("run --network=" + net + " -- " + py() + " -c " + q(k_unix_connect) + args);
    INFO("--network=" << net << ": ws run " << r.status << "\n" << r.out << r.err);
    CHECK(r.status == 0);
    for (const auto& entry : socks) {
      // Named copies, not structured bindings: clang 14 cannot capture those in
      // doctest's message lambdas.
      const auto& name = entry.first;
      const auto& addr = entry.second;
      CHECK_MESSAGE(field(r.out, name) != "<missing>", name);
      CHECK_MESSAGE(field(r.out, name) != "OK", name << " (" << addr << ") was reachable");
    }
  }
  CHECK_MESSAGE(listeners.accepted() == seen, "a listener got a connection from inside");
}

/// Prints NAME=VALUE for each NAME (arguments) that is set.
const std::string k_env = "import os, sys\n"
                          "for k in sys.argv[1:]:\n"
                          "    if k in os.environ:\n"
                          "        print(k + '=' + os.environ[k])\n";

void check_environment(const std::string& user) {
  Person p(user);
  const std::vector<std::string> secrets{"SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS", "DOCKER_HOST",
                                         "GITHUB_TOKEN",  "AWS_SECRET_ACCESS_KEY",    "MY_API_KEY",
                                         "FOO_TOKEN"};
  std::string env = "SSH_AUTH_SOCK=/run/user/1000/ssh-agent.sock "
                    "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus "
                    "DOCKER_HOST=unix:///var/run/docker.sock GITHUB_TOKEN=ghp_testtoken "
                    "AWS_SECRET_ACCESS_KEY=aws-test-secret MY_API_KEY=my-test-key "
                    "FOO_TOKEN=foo-test-token TERM=xterm-256color LANG=C.UTF-8";
  std::string names = "PATH HOME TERM LANG BAR";
  for (const auto& s : secrets) {
    names += " " + s;
  }
  Run r = p.ws("run -- " + py() + " -c " + q(k_env) + " " + names, env);
  INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
  CHECK(r.status == 0);
  for (const auto& s : secrets) {
    CHECK_MESSAGE(field(r.out, s) == "<missing>", s << " reached the agent");
  }
  CHECK(field(r.out, "PATH") != "<missing>");
  CHECK(field(r.out, "HOME") == p.home().string());
  CHECK(field(r.out, "TERM") != "<missing>"); // (the agent's own terminal may be another type)
  CHECK(field(r.out, "LANG") != "<missing>");

  Run chosen =
      p.ws("run --env FOO_TOKEN --env BAR=baz -- " + py() + " -c " + q(k_env) + " " + names, env);
  INFO("with --env: ws run " << chosen.status << "\n" << chosen.out << chosen.err);
  CHECK(chosen.status == 0);
  CHECK(field(chosen.out, "FOO_TOKEN") == "foo-test-token");
  CHECK(field(chosen.out, "BAR") == "baz");
  CHECK(field(chosen.out, "GITHUB_TOKEN") == "<missing>");
}

/// KEY=PATH arguments: prints KEY=True or KEY=False (whether PATH exists).
const std::string k_exists = "import os, sys\n"
                             "for a in sys.argv[1:]:\n"
                             "    k, path = a.split('=', 1)\n"
                             "    print(k + '=' + str(os.path.lexists(path)))\n";

void check_private_dirs(const std::string& user) {
  Person p(user);
  std::vector<std::pair<std::string, fs::path>> files;
  std::vector<std::string> dirs{"/tmp", "/var/tmp", "/dev/shm"};
  if (::geteuid() == 0) {
    dirs.push_back("/run");
  } else {
    MESSAGE("not root: no host file in /run");
  }
  for (const auto& d : dirs) {
    std::string t = d + "/ws-host-file-XXXXXX";
    int fd = ::mkstemp(t.data());
    REQUIRE_MESSAGE(fd >= 0, "cannot make a file in " << d);
    ::close(fd);
    ::chmod(t.c_str(), 0644);
    files.emplace_back(d, t);
  }
  files.emplace_back("XDG_RUNTIME_DIR", p.runtime() / "host-file");
  std::ofstream(p.runtime() / "host-file") << "host\n";
  p.own(p.runtime());
  Finally cleanup{[&files] {
    for (const auto& entry : files) {
      std::error_code ec;
      fs::remove(entry.second, ec);
    }
  }};
  std::string args;
  for (const auto& entry : files) {
    // Named copies, not structured bindings: clang 14 cannot capture those in
    // doctest's message lambdas.
    const auto& d = entry.first;
    const auto& f = entry.second;
    args += " " + q(d + "=" + f.string());
  }
  Run r = p.ws("run -- " + py() + " -c " + q(k_exists) + args);
  INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
  CHECK(r.status == 0);
  for (const auto& entry : files) {
    // Named copies, not structured bindings: clang 14 cannot capture those in
    // doctest's message lambdas.
    const auto& d = entry.first;
    const auto& f = entry.second;
    CHECK_MESSAGE(field(r.out, d) == "False", d << ": the host's " << f << " is visible inside");
  }
}

/// The network as the agent sees it: its interfaces, then HOST=hello or the error's name for a
/// TCP connection to each HOST:PORT (arguments: PORT HOST...).
const std::string k_net =
    "import errno, socket, sys\n"
    "print('ifaces=' + ','.join(sorted(n for _, n in socket.if_nameindex())))\n"
    "for host in sys.argv[2:]:\n"
    "    try:\n"
    "        c = socket.create_connection((host, int(sys.argv[1])), timeout=3)\n"
    "        print(host + '=' + c.recv(5).decode())\n"
    "    except OSError as e:\n"
    "        print(host + '=' + errno.errorcode.get(e.errno or 0, 'timeout'))\n";

/// An HTTPS GET of the npm registry: npm=STATUS or npm=ERROR.
const std::string k_npm = "import urllib.request\n"
                          "try:\n"
                          "    r = urllib.request.urlopen('https://registry.npmjs.org/', "
                          "timeout=5)\n"
                          "    print('npm=' + str(r.status))\n"
                          "except Exception as e:\n"
                          "    print('npm=' + type(e).__name__)\n";

void check_network(const std::string& user) {
  Person p(user);
  LoopbackServer server;
  REQUIRE(!server.port.empty());
  // The server answers on the host (so silence inside is the sandbox's doing).
  Run host = sh(py() + " -c " + q(k_net) + " " + server.port + " 127.0.0.1");
  REQUIRE(field(host.out, "127.0.0.1") == "hello");
  int clients = server.clients();

  Run off =
      p.ws("run --network=off -- " + py() + " -c " + q(k_net) + " " + server.port + " 127.0.0.1");
  INFO("as " << p.label() << ": --network=off: " << off.status << "\n" << off.out << off.err);
  CHECK(off.status == 0);
  CHECK(field(off.out, "ifaces") == "lo");
  CHECK(field(off.out, "127.0.0.1") != "hello");

  Run on = p.ws("run --network=on -- " + py() + " -c " + q(k_net) + " " + server.port +
                " 127.0.0.1 10.0.2.2");
  INFO("--network=on: " << on.status << "\n" << on.out << on.err);
  CHECK(on.status == 0);
  std::string ifaces = field(on.out, "ifaces");
  CHECK(ifaces != "<missing>");
  CHECK_MESSAGE(ifaces != "lo", "no way out with --network=on");
  CHECK_MESSAGE(field(on.out, "127.0.0.1") != "hello", "the host's 127.0.0.1 is reachable");
  CHECK_MESSAGE(field(on.out, "10.0.2.2") != "hello", "the host's loopback is reachable at "
                                                      "10.0.2.2");
  CHECK(server.clients() == clients);

  // The way out works for what agents need (a package registry), if the host has it.
  Run host_npm = sh(py() + " -c " + q(k_npm));
  if (field(host_npm.out, "npm").rfind("2", 0) != 0) {
    MESSAGE("registry.npmjs.org is not reachable from the host (" << host_npm.out
                                                                  << "): not checked inside");
    return;
  }
  Run npm = p.ws("run --network=on -- " + py() + " -c " + q(k_npm));
  INFO("npm inside: " << npm.out << npm.err);
  CHECK(field(npm.out, "npm").rfind("2", 0) == 0);
}

/// The home as the agent sees it. Arguments: secret paths relative to $HOME.
const std::string k_home =
    "import errno, os, sys\n"
    "home = os.environ['HOME']\n"
    "print('home=' + home)\n"
    "for rel in sys.argv[1:]:\n"
    "    print('secret ' + rel + '=' + str(os.path.lexists(os.path.join(home, rel))))\n"
    "def write(key, path, mode='a'):\n"
    "    try:\n"
    "        with open(path, mode) as f:\n"
    "            f.write('agent\\n')\n"
    "        print(key + '=OK')\n"
    "    except OSError as e:\n"
    "        print(key + '=' + errno.errorcode.get(e.errno, '?'))\n"
    "try:\n"
    "    print('gitconfig=' + open(home + '/.gitconfig').read().replace('\\n', '|'))\n"
    "except OSError as e:\n"
    "    print('gitconfig=' + errno.errorcode.get(e.errno, '?'))\n"
    "write('gitconfig_write', home + '/.gitconfig')\n"
    "write('home_write', home + '/agent-was-here.txt', 'w')\n";

void check_home(const std::string& user) {
  Person p(user);
  const std::vector<std::string> secrets{".ssh/id_rsa",
                                         ".aws/credentials",
                                         ".netrc",
                                         ".git-credentials",
                                         ".bash_history",
                                         ".config/gh/hosts.yml",
                                         ".docker/config.json",
                                         ".kube/config",
                                         ".claude/.credentials.json",
                                         ".gnupg/x",
                                         "notes/n.txt"};
  for (const auto& s : secrets) {
    fs::create_directories((p.home() / s).parent_path());
    std::ofstream(p.home() / s) << "secret of " << s << "\n";
  }
  const std::string gitconfig = "[user]\n\tname = Person\n\temail = person@example.com\n";
  std::ofstream(p.home() / ".gitconfig") << gitconfig;
  p.own(p.home());
  std::string args;
  for (const auto& s : secrets) {
    args += " " + q(s);
  }
  Run r = p.ws("run -- " + py() + " -c " + q(k_home) + args);
  INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
  CHECK(r.status == 0);
  CHECK(field(r.out, "home") == p.home().string()); // the same path...
  for (const auto& s : secrets) {
    CHECK_MESSAGE(field(r.out, "secret " + s) == "False", "~/" << s << " is visible inside");
  }
  std::string shown = gitconfig;
  std::replace(shown.begin(), shown.end(), '\n', '|');
  CHECK(field(r.out, "gitconfig") == shown);
  CHECK(refused(field(r.out, "gitconfig_write")));
  CHECK(slurp(p.home() / ".gitconfig") == gitconfig);
  // ...but private: what the agent writes there stays in the session.
  CHECK(field(r.out, "home_write") == "OK");
  CHECK(!fs::exists(p.home() / "agent-was-here.txt"));
  Run again = p.ws("run -- sh -c 'test -e \"$HOME/agent-was-here.txt\"; echo again=$?'");
  CHECK(field(again.out, "again") == "1");
  CHECK(!fs::exists(p.home() / "agent-was-here.txt"));

  // --read shows one more path, read-only.
  fs::path notes = p.home() / "notes";
  Run read = p.ws("run --read " + q(notes.string()) + " -- " + py() + " -c " +
                  q("import errno, sys\n"
                    "print('note=' + open(sys.argv[1] + '/n.txt').read().strip())\n"
                    "try:\n"
                    "    open(sys.argv[1] + '/n.txt', 'a').write('agent')\n"
                    "    print('write=OK')\n"
                    "except OSError as e:\n"
                    "    print('write=' + errno.errorcode.get(e.errno, '?'))\n") +
                  " " + q(notes.string()));
  INFO("--read: ws run " << read.status << "\n" << read.out << read.err);
  CHECK(read.status == 0);
  CHECK(field(read.out, "note") == "secret of notes/n.txt");
  CHECK(field(read.out, "write") == "EROFS");
  CHECK(slurp(notes / "n.txt") == "secret of notes/n.txt\n");
}

} // namespace

TEST_CASE("escape 5: no unix socket of the host is reachable, by path or abstract name") {
  as_each(check_unix_sockets);
}

TEST_CASE("escape 5: secrets in the environment stay outside - --env passes one on purpose") {
  as_each(check_environment);
}

TEST_CASE("escape 5: /tmp, /var/tmp, /run, /dev/shm and $XDG_RUNTIME_DIR hold nothing of the "
          "host's") {
  as_each(check_private_dirs);
}

TEST_CASE("escape 5: the network namespace is private - the host's loopback is out of reach") {
  as_each(check_network);
}

TEST_CASE("escape 5: the home is private: secrets absent, .gitconfig read-only, --read adds a "
          "path") {
  as_each(check_home);
}
namespace {

/// The agent is a script straight in the home: it runs, and shows it alone, not the home.
void check_program_in_home(const std::string& user) {
  Person p(user);
  std::ofstream(p.home() / ".netrc") << "machine example.com password secret\n";
  fs::path agent = p.home() / "agent.sh";
  std::ofstream(agent) << "#!/bin/sh\n"
                          "echo ran=yes\n"
                          "test -e \"$HOME/.netrc\" && echo netrc=visible || echo netrc=absent\n";
  ::chmod(agent.c_str(), 0755);
  p.own(p.home());
  Run r = p.ws("run -- " + q(agent.string()));
  INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
  CHECK(r.status == 0);
  CHECK(field(r.out, "ran") == "yes");
  CHECK_MESSAGE(field(r.out, "netrc") == "absent", "the agent's program showed the whole home");
}

} // namespace

TEST_CASE("escape 5: an agent program straight in the home shows itself, not the home") {
  as_each(check_program_in_home);
}
