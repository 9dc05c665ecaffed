// Red team against --network=on's way out. slirp4netns makes the agent's connections from the
// host itself, so a service of the host's answers the agent at any address of the host's, or
// on a network only the host reaches (a container bridge), and sees the connection come from
// the host. ws fences them off with unreachable routes in the sandbox's network namespace
// (src/network/host_fence.hpp). Each case attacks for real, through the real binary, as root
// and as an unprivileged user, and checks what the host's listeners saw.
#include "tests/integration/run_escapes_common.hpp"

#include <doctest/doctest.h>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

/// TCP servers, each NAME=ADDRESS on a port of its own ("::" listens on IPv4 too), and a UDP
/// one on every address: greet each TCP client with "hello"; note every client and datagram
/// ("tcp NAME PEER", "udp PEER DATA") in NOTE; write NAME=PORT lines (and udp=PORT) to
/// NOTE.ports when listening. 90 s at most.
const std::string k_server =
    "import os, select, socket, sys, time\n"
    "note = sys.argv[1]\n"
    "def listener(addr, kind):\n"
    "    fam = socket.AF_INET6 if ':' in addr else socket.AF_INET\n"
    "    s = socket.socket(fam, kind)\n"
    "    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
    "    if fam == socket.AF_INET6:\n"
    "        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)\n"
    "    s.bind((addr, 0))\n"
    "    if kind == socket.SOCK_STREAM:\n"
    "        s.listen(16)\n"
    "    return s\n"
    "tcp, ports = {}, []\n"
    "for spec in sys.argv[2:]:\n"
    "    name, addr = spec.split('=', 1)\n"
    "    s = listener(addr, socket.SOCK_STREAM)\n"
    "    tcp[s] = name\n"
    "    ports.append(name + '=' + str(s.getsockname()[1]))\n"
    "try:\n"
    "    udp = listener('::', socket.SOCK_DGRAM)\n"
    "except OSError:\n"
    "    udp = listener('0.0.0.0', socket.SOCK_DGRAM)\n"
    "udp.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)\n"
    "ports.append('udp=' + str(udp.getsockname()[1]))\n"
    "open(note + '.tmp', 'w').write('\\n'.join(ports) + '\\n')\n"
    "os.rename(note + '.tmp', note + '.ports')\n"
    "end = time.time() + 90\n"
    "while time.time() < end:\n"
    "    ready, _, _ = select.select(list(tcp) + [udp], [], [], 0.5)\n"
    "    for s in ready:\n"
    "        if s is udp:\n"
    "            data, peer = s.recvfrom(256)\n"
    "            open(note, 'a').write('udp %s %s\\n' % (peer[0], data.decode(errors='replace')))\n"
    "            continue\n"
    "        c, peer = s.accept()\n"
    "        open(note, 'a').write('tcp %s %s\\n' % (tcp[s], peer[0]))\n"
    "        c.sendall(b'hello')\n"
    "        c.close()\n";

/// Each argument KIND,ADDRESS,PORT[,HOW] (KIND tcp, udp or open: connect only), one line per
/// argument: ARGUMENT=hello, =open, =sent or the errno's name. HOW: plain; dev (bound to tap0
/// with SO_BINDTODEVICE: the kernel then assumes a destination without a route is on the
/// link); uif (IP_UNICAST_IF, the same per socket); pktinfo (UDP, the interface per datagram);
/// mapped (the IPv4 address as ::ffff:A.B.C.D on an IPv6 socket).
const std::string k_probe =
    "import errno, socket, struct, sys\n"
    "names = [n for _, n in socket.if_nameindex()]\n"
    "tap = socket.if_nametoindex('tap0') if 'tap0' in names else 0\n"
    "for arg in sys.argv[1:]:\n"
    "    kind, addr, port, how = (arg.split(',') + ['plain'])[:4]\n"
    "    port = int(port)\n"
    "    fam = socket.AF_INET6 if ':' in addr else socket.AF_INET\n"
    "    if how == 'mapped':\n"
    "        fam, addr = socket.AF_INET6, '::ffff:' + addr\n"
    "    s = socket.socket(fam, socket.SOCK_DGRAM if kind == 'udp' else socket.SOCK_STREAM)\n"
    "    s.settimeout(5)\n"
    "    try:\n"
    "        if how == 'dev':\n"
    "            s.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, b'tap0')\n"
    "        if how == 'uif':\n"
    "            s.setsockopt(socket.IPPROTO_IP, 50, struct.pack('!I', tap))\n"
    "        if kind == 'udp':\n"
    "            s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)\n"
    "            data = ('agent ' + arg).encode()\n"
    "            if how == 'pktinfo':\n"
    "                info = struct.pack('I4s4s', tap, bytes(4), bytes(4))\n"
    "                s.sendmsg([data], [(socket.IPPROTO_IP, 8, info)], 0,\n"
    "                          (addr, port))\n"
    "            else:\n"
    "                s.sendto(data, (addr, port))\n"
    "            print(arg + '=sent')\n"
    "        else:\n"
    "            s.connect((addr, port))\n"
    "            print(arg + '=' + ('open' if kind == 'open' else s.recv(5).decode()))\n"
    "    except OSError as e:\n"
    "        print(arg + '=' + errno.errorcode.get(e.errno or 0, 'timeout'))\n";

/// The host's addresses but loopback and link-local (IPv4 and IPv6), from `ip`; not those of
/// a Bridge another test may be making and removing meanwhile.
std::vector<std::string> host_addresses() {
  Run r = sh("ip -o addr show | awk '$2 !~ /^wsfence/ && ($3 == \"inet\" || $3 == \"inet6\") "
             "{print $4}' | cut -d/ -f1");
  std::vector<std::string> out;
  std::istringstream lines(r.out);
  for (std::string a; std::getline(lines, a);) {
    if (!a.empty() && a.rfind("127.", 0) != 0 && a != "::1" && a.rfind("fe80:", 0) != 0) {
      out.push_back(a);
    }
  }
  return out;
}

bool is_v6(const std::string& a) {
  return a.find(':') != std::string::npos;
}

/// The host's listeners of k_server, stopped at the end.
class HostServer {
public:
  /// `listeners`: NAME=ADDRESS each. `wrap`: a command the server runs under (e.g.
  /// "unshare --net"), empty for the host's own network.
  explicit HostServer(const std::vector<std::string>& listeners, const std::string& wrap = "") {
    std::string args;
    for (const auto& l : listeners) {
      args += " " + q(l);
    }
    Run r = sh(wrap + " " + py() + " -c " + q(k_server) + " " + q(note().string()) + args +
               " >/dev/null 2>&1 </dev/null & echo $!");
    m_pid = std::atoi(r.out.c_str());
    fs::path ports = note();
    ports += ".ports";
    if (wait_for(ports, 50)) {
      m_ports = slurp(ports);
    }
  }
  ~HostServer() {
    if (m_pid > 0) {
      ::kill(m_pid, SIGKILL);
    }
  }
  HostServer(const HostServer&) = delete;
  HostServer& operator=(const HostServer&) = delete;
  pid_t pid() const { return m_pid; }
  bool ready() const { return !m_ports.empty(); }
  std::string port(const std::string& name) const { return field(m_ports, name); }
  /// What it saw so far, one line each.
  std::string seen() const { return slurp(note()); }
  int lines() const {
    std::string s = seen();
    return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
  }

private:
  fs::path note() const { return m_dir.path() / "note"; }
  TempDir m_dir;
  pid_t m_pid = 0;
  std::string m_ports;
};

/// "KIND,ADDRESS,PORT,HOW" as k_probe reads it.
std::string target(const std::string& kind, const std::string& addr, const std::string& port,
                   const std::string& how = "plain") {
  return kind + "," + addr + "," + port + "," + how;
}

std::string args_of(const std::vector<std::string>& targets) {
  std::string out;
  for (const auto& t : targets) {
    out += " " + q(t);
  }
  return out;
}

/// True if the host itself reaches registry.npmjs.org:443 (a public address through DNS).
bool host_has_outside() {
  static const bool has = [] {
    Run r = sh(py() + " -c " + q(k_probe) + " " + q("open,registry.npmjs.org,443"));
    return r.out.find("=open") != npos;
  }();
  return has;
}

} // namespace

// Attack that did not work (kept closed): a service of the host's on 0.0.0.0 and ::, and
// one bound to the host's own address, tried at every address of the host's (IPv4 and IPv6),
// by TCP and UDP, with the interface forced (SO_BINDTODEVICE, IP_UNICAST_IF, IP_PKTINFO: the
// kernel then skips an unreachable route and assumes the address is on the link), as an
// IPv4-mapped IPv6 address, and by broadcast and multicast. The outside still works.
TEST_CASE("redteam network: --network=on reaches no address of the host's, however it asks") {
  std::vector<std::string> addresses = host_addresses();
  if (addresses.empty()) {
    MESSAGE("no address on this host but loopback: skipped");
    return;
  }
  std::string v4;
  for (const auto& a : addresses) {
    if (!is_v6(a)) {
      v4 = a;
      break;
    }
  }
  std::vector<std::string> listeners{"any=::"};
  if (!v4.empty()) {
    listeners.push_back("own=" + v4);
  }
  HostServer server(listeners);
  REQUIRE(server.ready());
  std::string any = server.port("any"), udp = server.port("udp");
  std::vector<std::string> plain;
  for (const auto& a : addresses) {
    plain.push_back(target("tcp", a, any));
  }
  if (!v4.empty()) {
    plain.push_back(target("tcp", v4, server.port("own")));
  }
  // From the host, every one answers (so silence inside is the sandbox's doing).
  Run host = sh(py() + " -c " + q(k_probe) + args_of(plain));
  for (const auto& t : plain) {
    REQUIRE_MESSAGE(field(host.out, t) == "hello", t << " from the host: " << host.out);
  }
  int seen_before = server.lines();

  std::vector<std::string> attacks = plain;
  for (const auto& a : addresses) {
    attacks.push_back(target("udp", a, udp));
  }
  if (!v4.empty()) {
    for (const std::string how : {"dev", "uif", "mapped"}) {
      attacks.push_back(target("tcp", v4, any, how));
    }
    attacks.push_back(target("udp", v4, udp, "pktinfo"));
  }
  for (const std::string a : {"255.255.255.255", "224.0.0.1"}) {
    attacks.push_back(target("udp", a, udp));
    attacks.push_back(target("udp", a, udp, "pktinfo"));
  }
  std::string outside = "open,registry.npmjs.org,443";
  attacks.push_back(outside);
  as_each([&](const std::string& user) {
    Person p(user);
    Run r = p.ws("run --network=on -- " + py() + " -c " + q(k_probe) + args_of(attacks));
    INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
    CHECK(r.status == 0);
    for (const auto& t : attacks) {
      if (t == outside) {
        continue;
      }
      CHECK_MESSAGE(field(r.out, t) != "<missing>", t);
      CHECK_MESSAGE(field(r.out, t) != "hello", "the host answered the agent: " << t);
    }
    CHECK_MESSAGE(server.lines() == seen_before, "the host's services saw the agent:\n"
                                                     << server.seen());
    if (host_has_outside()) {
      CHECK_MESSAGE(field(r.out, outside) == "open", "the outside is cut off too");
    } else {
      MESSAGE("registry.npmjs.org is not reachable from the host: the outside not checked");
    }
  });
}

namespace {

/// As root: a network only this host reaches, as a docker or podman bridge is: a veth pair
/// into a new network namespace, where a k_server listens on 0.0.0.0 (a container's
/// service, unpublished). The host's side is PREFIX.1/24, the container's PREFIX.2. Removed
/// at the end (the namespace dies with the server, and the pair with it).
class Bridge {
public:
  Bridge() : m_link("wsfence" + std::to_string(::getpid() % 100000)) {
    // A /24 the host has no route for but its default one.
    std::mt19937 rng(std::random_device{}());
    for (int i = 0; i < 20 && m_prefix.empty(); ++i) {
      std::string p = "10." + std::to_string(200 + rng() % 50) + "." + std::to_string(rng() % 250);
      Run routes = sh("ip -o route show match " + p + ".0/24 | grep -v '^default'");
      if (routes.out.empty()) {
        m_prefix = p;
      }
    }
    if (m_prefix.empty()) {
      return;
    }
    m_server = std::make_unique<HostServer>(std::vector<std::string>{"container=0.0.0.0"},
                                            "unshare --net");
    if (!m_server->ready()) {
      return;
    }
    std::string pid = std::to_string(m_server->pid());
    Run up =
        sh("set -e; ip link add " + m_link + "a type veth peer name " + m_link + "b; " +
           "ip link set " + m_link + "b netns " + pid + "; ip addr add " + m_prefix + ".1/24 dev " +
           m_link + "a; ip link set " + m_link + "a up; nsenter -t " + pid + " -n sh -c " +
           q("ip addr add " + m_prefix + ".2/24 dev " + m_link + "b && ip link set " + m_link +
             "b up && ip link set lo up"));
    m_up = up.status == 0;
    m_why = up.err;
  }
  ~Bridge() {
    m_server.reset();
    sh("ip link del " + m_link + "a 2>/dev/null");
  }
  Bridge(const Bridge&) = delete;
  Bridge& operator=(const Bridge&) = delete;
  bool up() const { return m_up; }
  const std::string& why() const { return m_why; }
  std::string container() const { return m_prefix + ".2"; }
  const HostServer& server() const { return *m_server; }

private:
  std::string m_link;
  std::string m_prefix;
  std::unique_ptr<HostServer> m_server;
  bool m_up = false;
  std::string m_why;
};

} // namespace

// Attack that did not work (kept closed): a container's service on a bridge of the host's
// (docker0, podman, libvirt), unpublished, which only the host reaches: slirp4netns would
// connect to it from the host.
TEST_CASE("redteam network: --network=on does not reach a network only the host reaches") {
  if (::geteuid() != 0) {
    MESSAGE("not root: cannot make a bridge for the test");
    return;
  }
  Bridge bridge;
  REQUIRE_MESSAGE(bridge.up(), bridge.why());
  std::string port = bridge.server().port("container");
  std::string service = target("tcp", bridge.container(), port);
  Run host = sh(py() + " -c " + q(k_probe) + " " + q(service));
  REQUIRE_MESSAGE(field(host.out, service) == "hello", "from the host: " << host.out << host.err);
  int seen_before = bridge.server().lines();
  as_each([&](const std::string& user) {
    Person p(user);
    Run r = p.ws("run --network=on -- " + py() + " -c " + q(k_probe) + " " + q(service) + " " +
                 q(target("tcp", bridge.container(), port, "dev")));
    INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
    CHECK(r.status == 0);
    CHECK(field(r.out, service) != "<missing>");
    CHECK(field(r.out, service) != "hello");
    CHECK(r.out.find("=hello") == npos);
    CHECK_MESSAGE(bridge.server().lines() == seen_before, bridge.server().seen());
  });
}

// Attack that did not work (kept closed): the same network, made while the session runs
// (`docker compose up` making a new bridge, a new DHCP lease, a VPN brought up): ws watches
// the host's address and route changes and fences each within milliseconds.
TEST_CASE("redteam network: a network the host gains during the session is fenced too") {
  if (::geteuid() != 0) {
    MESSAGE("not root: cannot make a bridge for the test");
    return;
  }
  as_each([&](const std::string& user) {
    Person p(user);
    // The agent says it waits (a file in its view), then probes once told to (another). It
    // waits long: making the bridge can take many seconds on a loaded machine, and a probe
    // that gave up before being told would test nothing.
    std::unique_ptr<Bridge> bridge;
    std::string script = "touch waiting; i=0; while [ ! -e go ] && [ $i -lt 4000 ]; do sleep 0.1; "
                         "i=$((i+1)); done; exec " +
                         py() + " -c " + q(k_probe) + " $(cat go)";
    // Made and mounted before the session: the test looks into it meanwhile.
    REQUIRE(p.ws("new").status == 0);
    fs::path view = p.view();
    Run r;
    std::thread session([&] { r = p.ws("run --network=on -- sh -c " + q(script)); });
    // However the test ends, the agent is told to go on (to nothing), and the session ends.
    Finally join{[&] {
      p.sh_as("[ -e go ] || echo > go", view);
      session.join();
    }};
    bool waiting = p.wait_in_view("waiting", 20);
    REQUIRE_MESSAGE(waiting, "the agent did not start: " << r.status << "\n" << r.out << r.err);
    auto made = std::chrono::steady_clock::now();
    bridge = std::make_unique<Bridge>();
    REQUIRE_MESSAGE(bridge->up(), bridge->why());
    std::string port = bridge->server().port("container");
    std::string service = target("tcp", bridge->container(), port);
    Run host = sh(py() + " -c " + q(k_probe) + " " + q(service));
    REQUIRE_MESSAGE(field(host.out, service) == "hello", "from the host: " << host.out);
    int seen_before = bridge->server().lines();
    REQUIRE(p.sh_as("echo " + q(service) + " > go.tmp && mv go.tmp go", view).status == 0);
    auto told = std::chrono::duration<double>(std::chrono::steady_clock::now() - made).count();
    session.join();
    join.fn = [] {};
    INFO("as " << p.label() << ": the agent was told after " << told << " s; ws run " << r.status
               << "\n"
               << r.out << r.err);
    CHECK(r.status == 0);
    CHECK(field(r.out, service) != "<missing>");
    CHECK(field(r.out, service) != "hello");
    CHECK_MESSAGE(bridge->server().lines() == seen_before, bridge->server().seen());
  });
}

namespace {

/// Deletes the route to ARGV[1]/32 over a raw NETLINK_ROUTE socket (what `ip route del`
/// sends): netlink_del=OK or the errno's name.
const std::string k_netlink_del =
    "import errno, socket, struct, sys\n"
    "s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)\n"
    "for kind in (7, 1):\n" // RTN_UNREACHABLE, then RTN_UNICAST
    "    rtm = struct.pack('BBBBBBBBI', socket.AF_INET, 32, 0, 0, 254, 0, 0, kind, 0)\n"
    "    body = rtm + struct.pack('HH', 8, 1) + socket.inet_aton(sys.argv[1])\n"
    "    s.send(struct.pack('IHHII', 16 + len(body), 25, 5, kind, 0) + body)\n" // DELROUTE
    "    err = struct.unpack('i', s.recv(4096)[16:20])[0]\n"
    "    print('netlink_del=' + (errno.errorcode.get(-err, str(err)) if err else 'OK'))\n";

} // namespace

// Attack that did not work (kept closed): the agent takes the fence down. The routes live in
// the sandbox's network namespace, owned by bwrap's outer user namespace; the agent runs in a
// nested one with no capability there, so `ip route del`, `ip route flush` and a raw netlink
// RTM_DELROUTE all get EPERM, and the host's address stays unreachable.
TEST_CASE("redteam network: the agent cannot take the fence around the host down") {
  std::string v4;
  for (const auto& a : host_addresses()) {
    if (!is_v6(a)) {
      v4 = a;
      break;
    }
  }
  if (v4.empty()) {
    MESSAGE("no IPv4 address on this host but loopback: skipped");
    return;
  }
  HostServer server({"any=0.0.0.0"});
  REQUIRE(server.ready());
  std::string service = target("tcp", v4, server.port("any"));
  as_each([&](const std::string& user) {
    Person p(user);
    std::string script =
        "if command -v ip >/dev/null; then ip route del unreachable " + v4 +
        "/32 2>&1; echo ip_del=$?; ip route flush table main 2>&1; echo ip_flush=$?; "
        "ip route show | grep -c unreachable | sed 's/^/unreachable_routes=/'; fi; " +
        py() + " -c " + q(k_netlink_del) + " " + v4 + "; " + py() + " -c " + q(k_probe) + " " +
        q(service);
    Run r = p.ws("run --network=on -- sh -c " + q(script));
    INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
    CHECK(r.status == 0);
    CHECK(r.out.find("netlink_del=OK") == npos);
    CHECK(field(r.out, "netlink_del") == "EPERM");
    if (field(r.out, "ip_del") != "<missing>") {
      CHECK(field(r.out, "ip_del") != "0");
      CHECK(field(r.out, "ip_flush") != "0");
      CHECK(field(r.out, "unreachable_routes") != "0");
    }
    CHECK(field(r.out, service) != "<missing>");
    CHECK(field(r.out, service) != "hello");
    CHECK(server.lines() == 0);
  });
}
