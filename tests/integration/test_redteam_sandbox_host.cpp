// Red team against `ws run`'s sandbox, the host's services: unix sockets bound by a relative
// path or in another network namespace, FIFOs and device nodes outside /dev, services on the
// host's own address, abstract sockets under --network=host. As in test_redteam_sandbox.cpp:
// each case does what an attacker would, for real, as root and as an unprivileged user, and
// checks what the host's listener saw.
#include "tests/integration/run_escapes_common.hpp"

#include <doctest/doctest.h>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

/// A service outside /run, /tmp and the homes (as postfix's master in /var/spool/postfix):
/// `prefix` starts it; it binds DIR/service.sock by that relative name (`relative`) or by its
/// whole path. The agent must not connect.
void check_host_socket(const std::string& user, const std::string& prefix, bool relative) {
  if (::geteuid() != 0) {
    MESSAGE("not root: no directory outside the private ones to listen in");
    return;
  }
  Person p(user);
  OutsideDir dir({"/srv", "/var/lib", "/opt"});
  std::string sock = (dir.path() / "service.sock").string();
  HostService listener(dir.path(), relative ? "service.sock" : sock, "stream", prefix);
  REQUIRE(listener.ready());
  Run host = p.sh_as(py() + " -c " + q(k_unix_connect) + " " + q("svc=" + sock));
  INFO("as " << p.label() << ": from the host: " << host.out << host.err);
  REQUIRE(field(host.out, "svc") == "OK");
  // The service notes a connection after accepting it, a moment after the client's connect()
  // returned: wait for the host's own note before forgetting it, or it lands later and reads
  // as the agent's.
  REQUIRE(listener.wait_reached());
  listener.forget();
  Run r =
      p.ws("run --network=off -- " + py() + " -c " + q(k_unix_connect) + " " + q("svc=" + sock));
  INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
  CHECK(r.status == 0);
  CHECK(field(r.out, "svc") != "<missing>");
  CHECK_MESSAGE(field(r.out, "svc") != "OK", sock << " was reachable from inside");
  CHECK_MESSAGE(!listener.reached(), "the host service got a connection from inside");
  // The person is told, once the session ends.
  CHECK(r.err.find("ws: refused the agent's connection to " + sock) != npos);
}

void check_relative_socket(const std::string& user) {
  check_host_socket(user, "", true);
}

void check_other_netns_socket(const std::string& user) {
  check_host_socket(user, "unshare -n", false);
}

} // namespace

// Attack that did not work (kept closed): a host service that binds its socket by a relative
// path (postfix's master binds "public/pickup", "private/..." in /var/spool/postfix) shows in
// /proc/net/unix without a leading '/', so ws's /dev/null cover cannot find it. The sandbox's
// pid 1 performs every connect() itself and refuses a pathname socket not bound in the
// sandbox's network namespace (ECONNREFUSED; Landlock ABI 9 does the same in the kernel).
TEST_CASE("redteam sandbox: a host socket bound by a relative path is out of reach") {
  as_each([](const std::string& user) {
    // The listener binds "service.sock" in its directory: what /proc/net/unix shows is
    // relative.
    check_relative_socket(user);
  });
}

// Attack that did not work (kept closed): a socket bound by a process in another network
// namespace (a container, another sandbox, anything started with unshare -n) is not in the
// host's /proc/net/unix at all, and connect() to a pathname socket crosses network
// namespaces. Refused by pid 1's socket supervision, as above.
TEST_CASE("redteam sandbox: a host socket bound in another network namespace is out of reach") {
  as_each(check_other_netns_socket);
}

namespace {

void check_host_fifo(const std::string& user) {
  if (::geteuid() != 0) {
    MESSAGE("not root: no directory outside the private ones for a FIFO");
    return;
  }
  Person p(user);
  OutsideDir dir({"/srv", "/var/lib", "/opt"});
  fs::path fifo = dir.path() / "command.fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0666) == 0);
  ::chmod(fifo.c_str(), 0666);
  TempDir t;
  fs::path got = t.path() / "got";
  // The host service: reads commands from its FIFO (as nagios reads its command file).
  Run reader =
      sh("timeout 60 cat " + q(fifo.string()) + " > " + q(got.string()) + " 2>/dev/null & echo $!");
  pid_t pid = std::atoi(reader.out.c_str());
  Finally stop{[pid] {
    if (pid > 0) {
      ::kill(pid, SIGKILL);
    }
  }};
  Run r = p.ws("run --network=off -- sh -c " +
               q("timeout 10 sh -c " + q("echo '[1] RESTART_PROGRAM' > " + q(fifo.string())) +
                 " 2>/dev/null && echo fifo=OK || echo fifo=refused"));
  INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
  CHECK(field(r.out, "fifo") != "<missing>");
  CHECK_MESSAGE(field(r.out, "fifo") != "OK", fifo << " was writable from inside");
  ::usleep(300 * 1000);
  CHECK_MESSAGE(slurp(got).find("RESTART_PROGRAM") == npos,
                "the host service read a command the agent wrote");
}

} // namespace

// Attack that did not work (kept closed): writing into a host FIFO outside the private
// directories, where a host service reads commands (nagios' rw/nagios.cmd under /var/lib). A
// read-only mount does not stop it (the kernel refuses writes on a read-only mount to regular
// files, directories and links only); pid 1's Landlock rules do: a file opens for writing
// only beneath the view, the private tmpfs, --writable paths, /dev and /proc (EACCES).
TEST_CASE("redteam sandbox: a host FIFO outside the private directories is out of reach") {
  as_each(check_host_fifo);
}

// Attack that did not work (kept closed): a device node on the host outside /dev (a
// container's or chroot's rootfs) opened from inside. Mounts made in the sandbox's user
// namespace are nodev, whatever the node's mode.
TEST_CASE("redteam sandbox: a host device node outside /dev cannot be opened") {
  if (::geteuid() != 0) {
    MESSAGE("not root: cannot make a device node");
    return;
  }
  OutsideDir dir({"/srv", "/var/lib", "/opt"});
  fs::path node = dir.path() / "zero";
  REQUIRE(sh("mknod -m 0666 " + q(node.string()) + " c 1 5").status == 0);
  REQUIRE(sh("head -c 4 " + q(node.string()) + " | wc -c").out == "4\n"); // the host opens it
  as_each([&](const std::string& user) {
    Person p(user);
    Run r = p.ws("run --network=off -- sh -c " + q("head -c 4 " + q(node.string()) +
                                                   " >/dev/null 2>&1 && echo dev=OK || echo "
                                                   "dev=refused"));
    INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
    CHECK(field(r.out, "dev") == "refused");
  });
}

namespace {

/// The host's first IPv4 address that is not loopback, or "".
std::string host_address() {
  Run r = sh("ip -4 -o addr show scope global | awk '{print $4}' | cut -d/ -f1 | head -1");
  return trim(r.out);
}

/// A TCP server on 0.0.0.0:PORT (a database, a dev server, a published container port): greets
/// each client and notes it in NOTE; NOTE.ready once listening; 60 s at most.
const std::string k_any_server = "import socket, sys, time\n"
                                 "port, note = int(sys.argv[1]), sys.argv[2]\n"
                                 "s = socket.socket()\n"
                                 "s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
                                 "s.bind(('0.0.0.0', port))\n"
                                 "s.listen(8)\n"
                                 "s.settimeout(0.5)\n"
                                 "open(note + '.ready', 'w').close()\n"
                                 "end = time.time() + 60\n"
                                 "while time.time() < end:\n"
                                 "    try:\n"
                                 "        c, a = s.accept()\n"
                                 "    except socket.timeout:\n"
                                 "        continue\n"
                                 "    open(note, 'a').write('client\\n')\n"
                                 "    c.sendall(b'hello\\n')\n"
                                 "    c.close()\n";

void check_host_service_by_address(const std::string& user) {
  std::string address = host_address();
  if (address.empty()) {
    MESSAGE("no global IPv4 address on this host: skipped");
    return;
  }
  Person p(user);
  TempDir t;
  fs::path note = t.path() / "note";
  std::string port = std::to_string(40000 + ::getpid() % 20000);
  Run server = sh(py() + " -c " + q(k_any_server) + " " + port + " " + q(note.string()) +
                  " >/dev/null 2>&1 & echo $!");
  pid_t pid = std::atoi(server.out.c_str());
  Finally stop{[pid] {
    if (pid > 0) {
      ::kill(pid, SIGKILL);
    }
  }};
  fs::path ready = note;
  ready += ".ready";
  REQUIRE(wait_for(ready, 50));
  const std::string client = "import socket, sys\n"
                             "try:\n"
                             "    s = socket.create_connection((sys.argv[1], int(sys.argv[2])), "
                             "timeout=5)\n"
                             "    print('tcp=' + s.recv(16).decode().strip())\n"
                             "except OSError as e:\n"
                             "    print('tcp=refused ' + str(e))\n";
  Run r = p.ws("run --network=on -- " + py() + " -c " + q(client) + " " + address + " " + port);
  INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
  CHECK(field(r.out, "tcp") != "<missing>");
  CHECK_MESSAGE(field(r.out, "tcp") != "hello",
                "a host service on 0.0.0.0 answered the agent at " << address << ":" << port);
  CHECK_MESSAGE(!fs::exists(note), "the host service got a connection from inside");
}

} // namespace

// Attack that did not work (kept closed): with --network=on (the default) slirp4netns makes
// the agent's connections from the host itself, so a service of the host's that listens on
// 0.0.0.0 or its own address (a dev database, Jupyter, a container's published port) would
// answer the agent at the host's address. ws makes every address of the host's unreachable
// in the sandbox (more attacks: test_redteam_network.cpp).
TEST_CASE("redteam sandbox: --network=on does not reach the host's own services at its address") {
  as_each(check_host_service_by_address);
}

// Attack that did not work (kept closed): with --network=host the agent shares the host's
// network namespace, and so its abstract unix socket namespace: Landlock's scope (ABI 6)
// refuses connecting to a host listener there.
TEST_CASE("redteam sandbox: --network=host still keeps the host's abstract unix sockets out") {
  Run abi = sh(py() + " -c " +
               q("import ctypes\n"
                 "libc = ctypes.CDLL(None, use_errno=True)\n"
                 "print(libc.syscall(ctypes.c_long(444), None, ctypes.c_long(0), "
                 "ctypes.c_long(1)))\n"));
  if (std::atoi(abi.out.c_str()) < 6) {
    MESSAGE("Landlock ABI " << abi.out << "< 6: no scopes on this kernel, skipped");
    return;
  }
  as_each([](const std::string& user) {
    Person p(user);
    std::string name = "ws-redteam-" + unique();
    UnixListeners listeners({{"abstract", "@" + name}});
    REQUIRE(listeners.ready());
    Run r = p.ws("run --network=host -- " + py() + " -c " + q(k_unix_connect) + " " +
                 q("abstract=@" + name));
    INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
    CHECK(field(r.out, "abstract") != "<missing>");
    CHECK(field(r.out, "abstract") != "OK");
    CHECK(listeners.accepted().empty());
  });
}
