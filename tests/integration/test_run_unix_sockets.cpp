// The sandbox's pid 1 supervises the agent's connect(), sendto() with an address, sendmsg()
// and sendmmsg() (src/run/socket_supervisor.hpp): a pathname unix socket made outside the
// sandbox is refused however the agent names it and whenever it was made, and everything
// else works as without ws: the agent's own servers and clients, datagrams, descriptors
// passed over sockets, python's multiprocessing, node's IPC, git's credential cache. Real
// programs through the real binary, as root and as an unprivileged user.
#include "tests/integration/run_escapes_common.hpp"

#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <string>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

/// Sends a datagram saying TAG to PATH with sendto and with sendmsg: to=OK|errno, msg=OK|errno.
const std::string k_send_datagrams =
    "import errno, socket, sys\n"
    "path, tag = sys.argv[1], sys.argv[2].encode()\n"
    "def result(f):\n"
    "    try:\n"
    "        f()\n"
    "        return 'OK'\n"
    "    except OSError as e:\n"
    "        return errno.errorcode.get(e.errno, '?')\n"
    "s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)\n"
    "print('to=' + result(lambda: s.sendto(tag + b' sendto', path)))\n"
    "print('msg=' + result(lambda: s.sendmsg([tag + b' sendmsg'], [], 0, path)))\n";

void check_datagram_socket(const std::string& user) {
  Person p(user);
  OutsideDir dir({"/srv", "/var/lib", "/opt"});
  // Bound by a relative name, as postfix binds: ws's /dev/null cover cannot see where.
  HostService service(dir.path(), "dgram.sock", "dgram");
  REQUIRE(service.ready());
  std::string sock = (dir.path() / "dgram.sock").string();
  // The control: both of the person's datagrams arrive. Each names its sender: the service
  // may still be reading the host's second one when the agent's session starts.
  Run host = p.sh_as(py() + " -c " + q(k_send_datagrams) + " " + q(sock) + " host");
  INFO("as " << p.label() << ": from the host: " << host.out << host.err);
  REQUIRE(field(host.out, "to") == "OK");
  REQUIRE(field(host.out, "msg") == "OK");
  REQUIRE_MESSAGE(service.wait_notes("host sendto\nhost sendmsg\n"), service.notes());
  Run r = p.ws("run --network=off -- " + py() + " -c " + q(k_send_datagrams) + " " + q(sock) +
               " agent");
  INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
  CHECK(r.status == 0);
  CHECK(field(r.out, "to") == "ECONNREFUSED");
  CHECK(field(r.out, "msg") == "ECONNREFUSED");
  ::usleep(500 * 1000);
  CHECK_MESSAGE(service.notes() == "host sendto\nhost sendmsg\n",
                "a datagram from inside reached the host service: " << service.notes());
}

/// Writes the file STARTED, waits for PATH to appear (made on the host afterwards), connects:
/// svc=OK or the errno name.
const std::string k_connect_later = "import errno, os, socket, sys, time\n"
                                    "path, started = sys.argv[1:3]\n"
                                    "open(started, 'w').close()\n"
                                    "end = time.time() + 120\n"
                                    "while not os.path.exists(path) and time.time() < end:\n"
                                    "    time.sleep(0.05)\n"
                                    "s = socket.socket(socket.AF_UNIX)\n"
                                    "try:\n"
                                    "    s.connect(path)\n"
                                    "    print('svc=OK')\n"
                                    "except OSError as e:\n"
                                    "    print('svc=' + errno.errorcode.get(e.errno, '?'))\n";

void check_socket_made_later(const std::string& user) {
  Person p(user);
  OutsideDir dir({"/srv", "/var/lib", "/opt"});
  std::string sock = (dir.path() / "later.sock").string();
  fs::path started = p.scratch() / "started";
  // ws covers the host's sockets it finds when the session starts: this one is not there yet.
  auto session = std::async(std::launch::async, [&] {
    return p.ws("run --network=off --writable " + q(p.scratch().string()) + " -- " + py() + " -c " +
                q(k_connect_later) + " " + q(sock) + " " + q(started.string()));
  });
  bool is_running = wait_for(started, 600);
  HostService service(dir.path(), sock);
  Run r = session.get();
  INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
  REQUIRE(is_running);
  REQUIRE(service.ready());
  CHECK(r.status == 0);
  CHECK(field(r.out, "svc") == "ECONNREFUSED");
  CHECK_MESSAGE(!service.reached(), "the host service got a connection from inside");
  // The control: the person reaches it.
  Run host =
      p.sh_as(py() + " -c " + q(k_connect_later) + " " + q(sock) + " " + q(started.string()));
  CHECK(field(host.out, "svc") == "OK");
}

/// Inside: the agent's own sockets, every way it may use them: KEY=OK each, or KEY=error.
const std::string k_own_sockets =
    "import array, multiprocessing as mp, os, socket, sys, threading\n"
    "def check(key, f):\n"
    "    try:\n"
    "        r = f()\n"
    "        print(key + '=' + ('OK' if r else 'wrong'))\n"
    "    except Exception as e:\n"
    "        print(key + '=' + repr(e))\n"
    "def serve(path):\n"
    "    l = socket.socket(socket.AF_UNIX)\n"
    "    l.bind(path)\n"
    "    l.listen(8)\n"
    "    def loop():\n"
    "        while True:\n"
    "            c, _ = l.accept()\n"
    "            c.sendall(c.recv(100).upper())\n"
    "            c.close()\n"
    "    threading.Thread(target=loop, daemon=True).start()\n"
    "def ask(path):\n"
    "    c = socket.socket(socket.AF_UNIX)\n"
    "    c.connect(path)\n"
    "    c.sendall(b'ping')\n"
    "    return c.recv(100) == b'PING'\n"
    "serve('view.sock')\n" // in the project: a file of the view (FUSE)
    "check('view', lambda: ask('view.sock'))\n"
    "os.unlink('view.sock')\n"
    "os.makedirs('/tmp/s/' + 'd' * 100, exist_ok=True)\n"
    "serve('/tmp/s/own.sock')\n"
    "check('absolute', lambda: ask('/tmp/s/own.sock'))\n"
    "os.chdir('/tmp/s')\n"
    "check('relative', lambda: ask('own.sock'))\n"
    "os.chdir('/tmp/s/' + 'd' * 100)\n"
    "serve('long.sock')\n" // its whole path is past sun_path's 108 bytes
    "check('long', lambda: ask('long.sock'))\n"
    "check('missing', lambda: ask('/tmp/s/none.sock'))\n"
    "serve('\\0ws-own-' + str(os.getpid()))\n"
    "check('abstract', lambda: ask('\\0ws-own-' + str(os.getpid())))\n"
    "d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)\n"
    "d.bind('/tmp/s/d.sock')\n"
    "e = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)\n"
    "check('sendto', lambda: e.sendto(b'one', '/tmp/s/d.sock') == 3 and d.recv(9) == b'one')\n"
    "check('sendmsg', lambda: e.sendmsg([b't', b'wo'], [], 0, '/tmp/s/d.sock') == 3 and "
    "d.recv(9) == b'two')\n"
    "a, b = socket.socketpair()\n"
    "r, w = os.pipe()\n"
    "def pass_fd():\n"
    "    a.sendmsg([b'f'], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array('i', [w]))])\n"
    "    _, fds, _, _ = socket.recv_fds(b, 1, 1)\n"
    "    os.write(fds[0], b'through')\n"
    "    return os.read(r, 20) == b'through'\n"
    "check('fds', pass_fd)\n"
    // Larger than the socket's buffer on a blocking socket: sent whole, as without ws.
    "def big():\n"
    "    got = []\n"
    "    def reader():\n"
    "        n = 0\n"
    "        while n < 4000000:\n"
    "            n += len(b.recv(1 << 20))\n"
    "        got.append(n)\n"
    "    t = threading.Thread(target=reader)\n"
    "    t.start()\n"
    "    sent = a.sendmsg([b'z' * 4000000])\n"
    "    t.join()\n"
    "    return sent == 4000000 and got == [4000000]\n"
    "check('big', big)\n"
    "mp.set_start_method('forkserver')\n"
    "with mp.Pool(2) as pool:\n"
    "    check('multiprocessing', lambda: pool.map(abs, [-1, -2, -3]) == [1, 2, 3])\n";

void check_own_sockets(const std::string& user) {
  Person p(user);
  Run r = p.ws("run --network=off -- " + py() + " -c " + q(k_own_sockets));
  INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
  CHECK(r.status == 0);
  for (const char* key : {"view", "absolute", "relative", "long", "abstract", "sendto", "sendmsg",
                          "fds", "big", "multiprocessing"}) {
    CHECK_MESSAGE(field(r.out, key) == "OK", key);
  }
  CHECK(field(r.out, "missing").find("FileNotFoundError") != npos);
  CHECK(r.err.find("ws: refused") == npos);
}

/// node: a child forked with an IPC channel, messages both ways and a server handle passed to
/// it (SCM_RIGHTS over the channel).
const std::string k_node_ipc =
    "const cp = require('child_process'), net = require('net');\n"
    "if (process.argv[2] === 'child') {\n"
    "  process.on('message', (m, handle) => {\n"
    "    if (handle) { process.send({server: typeof handle.listen}); process.exit(0); }\n"
    "    else process.send({echo: m.n * 2});\n"
    "  });\n"
    "} else {\n"
    "  const c = cp.fork(process.argv[1], ['child']);\n"
    "  const server = net.createServer().listen('/tmp/node.sock', () => {\n"
    "    c.send({n: 21});\n"
    "    c.on('message', (m) => {\n"
    "      if (m.echo) { console.log('ipc=' + (m.echo === 42 ? 'OK' : 'wrong')); "
    "c.send('handle', server); }\n"
    "      else { console.log('handle=' + (m.server === 'function' ? 'OK' : 'wrong')); "
    "server.close(); }\n"
    "    });\n"
    "  });\n"
    "}\n";

void check_node_and_git(const std::string& user) {
  Person p(user);
  std::ofstream(p.scratch() / "ipc.js") << k_node_ipc;
  p.own(p.scratch());
  std::string script = (p.scratch() / "ipc.js").string();
  Run r = p.ws("run --network=off --read " + q(script) + " -- sh -c " +
               q("node " + script +
                 "; git status --short >/dev/null && echo git=OK; "
                 "printf 'protocol=https\\nhost=example.test\\nusername=u\\npassword=pw\\n\\n' | "
                 "git credential-cache --timeout=30 store && "
                 "printf 'protocol=https\\nhost=example.test\\n\\n' | git credential-cache get | "
                 "grep -q password=pw && echo credential_cache=OK; git credential-cache exit"));
  INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
  CHECK(field(r.out, "ipc") == "OK");
  CHECK(field(r.out, "handle") == "OK");
  CHECK(field(r.out, "git") == "OK");
  CHECK(field(r.out, "credential_cache") == "OK");
}

/// What would step around the supervision: io_uring (its connect and sendmsg never pass
/// through seccomp) and a seccomp listener of the agent's own (the newest listener gets the
/// call, and its "continue" would skip pid 1's).
const std::string k_bypasses =
    "import ctypes, errno, os\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "libc.syscall.restype = ctypes.c_long\n"
    "L = ctypes.c_long\n"
    "params = ctypes.create_string_buffer(120)\n"
    "fd = libc.syscall(L(425), L(8), params)\n" // io_uring_setup
    "print('io_uring=' + ('OK' if fd >= 0 else errno.errorcode[ctypes.get_errno()]))\n"
    "allow = (ctypes.c_ubyte * 8)(6, 0, 0, 0, 0, 0, 0xff, 0x7f)\n" // BPF_RET|K, ALLOW
    "class Prog(ctypes.Structure):\n"
    "    _fields_ = [('len', ctypes.c_ushort), ('filter', ctypes.c_void_p)]\n"
    "prog = Prog(1, ctypes.cast(allow, ctypes.c_void_p))\n"
    // seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog)
    "fd = libc.syscall(L(317), L(1), L(8), ctypes.byref(prog))\n"
    "print('listener=' + ('OK' if fd >= 0 else errno.errorcode[ctypes.get_errno()]))\n"
    // A sendmsg whose ancillary data claims to be larger than it is: pid 1 reads that
    // length, and must refuse it as the kernel does (EINVAL), not follow it.
    "import socket, struct\n"
    "a, b = socket.socketpair()\n"
    "control = ctypes.create_string_buffer(struct.pack('QiiI', 1 << 20, 1, 1, 0), 24)\n"
    "data = ctypes.create_string_buffer(b'x')\n"
    "iov = (ctypes.c_uint64 * 2)(ctypes.addressof(data), 1)\n"
    "msg = (ctypes.c_uint64 * 7)(0, 0, ctypes.addressof(iov), 1, ctypes.addressof(control), "
    "24, 0)\n"
    "n = libc.syscall(L(46), L(a.fileno()), msg, L(0))\n" // sendmsg
    "print('cmsg=' + ('OK' if n >= 0 else errno.errorcode[ctypes.get_errno()]))\n"
    "a.sendmsg([b'after'])\n"
    "print('after=' + ('OK' if b.recv(9) == b'after' else 'wrong'))\n";

} // namespace

TEST_CASE("run unix sockets: a host socket made after the session started is out of reach") {
  if (::geteuid() != 0) {
    MESSAGE("not root: no directory outside the private ones to listen in");
    return;
  }
  as_each(check_socket_made_later);
}

TEST_CASE("run unix sockets: a host datagram socket is out of reach of sendto and sendmsg") {
  if (::geteuid() != 0) {
    MESSAGE("not root: no directory outside the private ones to listen in");
    return;
  }
  as_each(check_datagram_socket);
}

TEST_CASE("run unix sockets: the agent's own sockets, descriptors and multiprocessing work") {
  as_each(check_own_sockets);
}

TEST_CASE("run unix sockets: node's IPC and git's credential cache work inside") {
  as_each(check_node_and_git);
}

TEST_CASE("run unix sockets: io_uring, a seccomp listener of the agent's and a lying sendmsg are "
          "refused") {
  Person p("");
  Run r = p.ws("run --network=off -- " + py() + " -c " + q(k_bypasses));
  INFO("ws run " << r.status << "\n" << r.out << r.err);
  CHECK(field(r.out, "io_uring") == "ENOSYS");
  CHECK(field(r.out, "listener") == "EPERM");
  CHECK(field(r.out, "cmsg") == "EINVAL");
  CHECK(field(r.out, "after") == "OK"); // pid 1 still serves
}
