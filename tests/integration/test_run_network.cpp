// ws run --network=allow:, off and host, through the real binary, real bubblewrap and a real
// HTTP server on the host's loopback under made-up names (WS_NETWORK_RESOLVE maps them for
// the proxy, as curl's --resolve would): nothing leaves the machine. As root and as an
// unprivileged user. The proxy's parsing and matching are unit-tested in tests/unit/network/.
#include "tests/integration/run_escapes_common.hpp"

#include <doctest/doctest.h>

#include <signal.h>

#include <chrono>
#include <string>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

/// An HTTP server on the host's 127.0.0.1 standing for a model API: answers every request
/// "model-ok PATH" and notes "METHOD PATH HOST BODY" per request and "conn" per connection.
/// Stops itself after two minutes.
class FakeModelServer {
public:
  FakeModelServer() {
    static const std::string k_server =
        "import http.server, os, socketserver, sys\n"
        "log = sys.argv[2]\n"
        "class H(http.server.BaseHTTPRequestHandler):\n"
        "    protocol_version = 'HTTP/1.1'\n"
        "    def setup(self):\n"
        "        open(log, 'a').write('conn\\n')\n"
        "        super().setup()\n"
        "    def answer(self):\n"
        "        n = int(self.headers.get('Content-Length') or 0)\n"
        "        body = self.rfile.read(n) if n else b''\n"
        "        open(log, 'a').write('%s %s %s %s\\n' % (self.command, self.path,\n"
        "                             self.headers.get('Host'), body.decode()))\n"
        "        out = ('model-ok ' + self.path).encode()\n"
        "        # /keep-alive...: reads a next request on the connection whatever the\n"
        "        # client said, as some servers do: only the proxy keeps it from coming.\n"
        "        keep = self.path.startswith('/keep-alive')\n"
        "        self.send_response(200)\n"
        "        self.send_header('Content-Length', str(len(out)))\n"
        "        if not keep:\n"
        "            self.send_header('Connection', 'close')\n"
        "        self.end_headers()\n"
        "        self.wfile.write(out)\n"
        "        self.close_connection = not keep\n"
        "    do_GET = do_POST = answer\n"
        "    def log_message(self, *a): pass\n"
        "class S(socketserver.ThreadingMixIn, http.server.HTTPServer):\n"
        "    daemon_threads = True\n"
        "s = S(('127.0.0.1', 0), H)\n"
        "s.timeout = 120\n"
        "open(sys.argv[1] + '.tmp', 'w').write(str(s.server_address[1]))\n"
        "os.rename(sys.argv[1] + '.tmp', sys.argv[1])\n"
        "import threading; threading.Timer(120, os._exit, [0]).start()\n"
        "s.serve_forever()\n";
    fs::path portfile = m_dir.path() / "port";
    m_log = m_dir.path() / "log";
    Run r = sh(py() + " -c " + q(k_server) + " " + q(portfile.string()) + " " + q(m_log.string()) +
               " >/dev/null 2>&1 </dev/null & echo $!");
    m_pid = std::atoi(r.out.c_str());
    if (wait_for(portfile, 50)) {
      port = slurp(portfile);
    }
  }
  ~FakeModelServer() {
    if (m_pid > 0) {
      ::kill(m_pid, SIGKILL);
    }
  }
  FakeModelServer(const FakeModelServer&) = delete;
  FakeModelServer& operator=(const FakeModelServer&) = delete;
  std::string port;
  /// What it has seen so far.
  std::string log() const { return slurp(m_log); }

private:
  TempDir m_dir;
  pid_t m_pid = 0;
  fs::path m_log;
};

/// The agent's side: helpers to talk to the proxy its environment names, then the checks
/// named in argv[2:] (argv[1] is the fake server's port). Prints KEY=VALUE lines.
const std::string k_client = R"PY(
import errno, os, socket, subprocess, sys, time, urllib.request
P = sys.argv[1]
proxy = os.environ.get('HTTPS_PROXY', 'http://127.0.0.1:3128').rsplit(':', 1)
PROXY = ('127.0.0.1', int(proxy[1]))
def ask(raw, then=b'', timeout=20):
    # Sends raw bytes to the proxy; returns (status line, everything after it) until close.
    s = socket.create_connection(PROXY, timeout=timeout)
    s.sendall(raw)
    data = b''
    if then:
        while b'\r\n\r\n' not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
        if data.startswith(b'HTTP/1.1 200'):
            s.sendall(then)
    while True:
        try:
            chunk = s.recv(65536)
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    s.close()
    line, _, rest = data.partition(b'\r\n')
    return line.decode(errors='replace'), rest.decode(errors='replace')
def show(key, status, rest=''):
    print(key + '=' + status.replace('\n', ' '))
    if rest:
        print(key + '_body=' + rest.replace('\r\n', ' ').replace('\n', ' '))
def connect(host):
    return b'CONNECT ' + host.encode() + b' HTTP/1.1\r\nHost: ' + host.encode() + b'\r\n\r\n'
def get(host, path):
    return ('GET ' + path + ' HTTP/1.1\r\nHost: ' + host + '\r\nConnection: close\r\n\r\n').encode()
def err(e):
    return errno.errorcode.get(getattr(e, 'errno', None) or 0, type(e).__name__)
for check in sys.argv[2:]:
    if check == 'tunnel':
        h = 'api.fake-model.test:' + P
        st, rest = ask(connect(h), get(h, '/tunnel'))
        show('tunnel', st, rest)
    elif check == 'forward':
        try:
            r = urllib.request.urlopen('http://x.svc.fake-model.test:' + P + '/forward', timeout=20)
            print('forward=' + r.read().decode())
        except Exception as e:
            print('forward=' + repr(e))
    elif check == 'curl':
        r = subprocess.run(['curl', '-sS', '--max-time', '20', '--proxytunnel',
                            'http://api.fake-model.test:' + P + '/curl'],
                           capture_output=True, text=True)
        print('curl=' + (r.stdout or r.stderr).strip().replace('\n', ' '))
    elif check == 'evil':
        show('evil', *ask(connect('api.evil.test:443')))
    elif check == 'port':
        show('port', *ask(connect('api.fake-model.test:22')))
    elif check == 'ip':
        show('ip', *ask(connect('127.0.0.1:' + P)))
    elif check == 'ip22':
        show('ip22', *ask(connect('127.0.0.1:22')))
    elif check == 'ip6':
        show('ip6', *ask(connect('[::1]:' + P)))
    elif check == 'localhost':
        show('localhost', *ask(connect('localhost:' + P)))
    elif check == 'numeric':
        show('numeric', *ask(connect('2130706433:' + P)))
    elif check == 'host_mismatch':
        show('host_mismatch', *ask(b'CONNECT api.fake-model.test:' + P.encode() +
                                   b' HTTP/1.1\r\nHost: evil.test:' + P.encode() + b'\r\n\r\n'))
    elif check == 'forward_mismatch':
        show('forward_mismatch', *ask(b'GET http://api.fake-model.test:' + P.encode() +
                                      b'/mismatch HTTP/1.1\r\nHost: evil.test\r\n\r\n'))
    elif check == 'pipelined':
        h = 'api.fake-model.test:' + P
        show('pipelined', *ask(('GET http://' + h + '/keep-alive HTTP/1.1\r\nHost: ' + h +
                                '\r\n\r\nGET http://evil.test/second HTTP/1.1\r\n'
                                'Host: evil.test\r\n\r\n').encode(), timeout=3))
        show('post_pipelined', *ask(('POST http://' + h + '/keep-alive-post HTTP/1.1\r\nHost: ' +
                                     h + '\r\nContent-Length: 4\r\n\r\nbodyGET /third '
                                     'HTTP/1.1\r\nHost: evil.test\r\n\r\n').encode(), timeout=3))
    elif check == 'smuggle':
        h = 'api.fake-model.test:' + P
        show('smuggle', *ask(('POST http://' + h + '/smuggle HTTP/1.1\r\nHost: ' + h +
                              '\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n'
                              '0\r\n\r\nGET /hidden HTTP/1.1\r\n\r\n').encode()))
    elif check == 'huge':
        show('huge', *ask(b'CONNECT api.fake-model.test:' + P.encode() + b' HTTP/1.1\r\nX: ' +
                          b'a' * 40000 + b'\r\n\r\n'))
    elif check == 'garbage':
        show('garbage', *ask(b'\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03hello\r\n\r\n'))
    elif check == 'origin_form':
        show('origin_form', *ask(b'GET /x HTTP/1.1\r\nHost: api.fake-model.test\r\n\r\n'))
    elif check == 'many':
        socks = []
        refused = 0
        for i in range(320):
            try:
                socks.append(socket.create_connection(PROXY, timeout=5))
            except OSError:
                refused += 1
        time.sleep(1)
        for s in socks:
            s.setblocking(False)
            try:
                d = s.recv(100)
                if d.startswith(b'HTTP/1.1 503') or d == b'':
                    refused += 1
            except BlockingIOError:
                pass
            except OSError:
                refused += 1
        for s in socks:
            s.close()
        print('many_refused=' + str(refused))
        time.sleep(1)
        h = 'api.fake-model.test:' + P
        st, rest = ask(connect(h), get(h, '/after-many'))
        show('after_many', st, rest)
    elif check == 'slow':
        s = socket.create_connection(PROXY, timeout=30)
        s.sendall(b'CONNECT api.fake-model.test:' + P.encode() + b' HTTP/1.1\r\n')
        t0 = time.time()
        data = b''
        while True:
            try:
                c = s.recv(4096)
            except OSError:
                break
            if not c:
                break
            data += c
        print('slow=' + data.split(b'\r\n')[0].decode() + ' after ' + str(int(time.time() - t0)))
    elif check == 'direct':
        for name, addr in (('direct_loopback', ('127.0.0.1', int(P))),
                           ('direct_out', ('203.0.113.1', 443))):
            try:
                socket.create_connection(addr, timeout=3)
                print(name + '=connected')
            except OSError as e:
                print(name + '=' + err(e))
    elif check == 'dns':
        try:
            socket.getaddrinfo('api.fake-model.test', 443)
            print('dns=resolved')
        except OSError as e:
            print('dns=' + type(e).__name__)
    elif check == 'https_off':
        try:
            urllib.request.urlopen('https://api.anthropic.com/v1/messages', timeout=20)
            print('https_off=reached')
        except Exception as e:
            print('https_off=' + str(e).replace('\n', ' '))
    elif check == 'dns_off':
        try:
            socket.getaddrinfo('api.openai.com', 443)
            print('dns_off=resolved')
        except OSError as e:
            print('dns_off=' + type(e).__name__)
    elif check == 'env':
        for k in ('HTTPS_PROXY', 'http_proxy', 'NO_PROXY'):
            print(k + '=' + os.environ.get(k, '<unset>'))
)PY";

/// `ws run` as `p` with `network`, the client doing `checks` against `server`.
Run run_client(const Person& p, const FakeModelServer& server, const std::string& network,
               const std::string& checks) {
  std::string env =
      "WS_NETWORK_RESOLVE=" + q("api.fake-model.test=127.0.0.1,x.svc.fake-model.test=127.0.0.1");
  return p.ws("run --network=" + q(network) + " -- " + py() + " -c " + q(k_client) + " " +
                  server.port + " " + checks,
              env);
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

const std::string k_forbidden = "HTTP/1.1 403 Forbidden";
const std::string k_bad_request = "HTTP/1.1 400 Bad Request";

/// Each KEY the client printed has the value wanted.
void check_fields(const std::string& out,
                  std::initializer_list<std::pair<const char*, std::string>> want) {
  for (const auto& kv : want) {
    const char* key = kv.first; // not a structured binding: INFO captures it in a lambda
    INFO("field " << key);
    CHECK(field(out, key) == kv.second);
  }
}

void check_allowlist(const std::string& user) {
  Person p(user);
  FakeModelServer server;
  REQUIRE(!server.port.empty());
  std::string list = "api.fake-model.test:" + server.port + ",*.svc.fake-model.test:" + server.port;
  Run r = run_client(p, server, "allow:" + list, "env tunnel forward curl evil port ip direct dns");
  INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
  CHECK(r.status == 0);
  check_fields(r.out, {{"HTTPS_PROXY", "http://127.0.0.1:3128"},
                       {"http_proxy", "http://127.0.0.1:3128"},
                       {"NO_PROXY", "localhost,127.0.0.1,::1"},
                       // The listed host, by CONNECT (raw, and curl's), and by plain HTTP
                       // proxying (*.domain).
                       {"tunnel", "HTTP/1.1 200 Connection established"},
                       {"forward", "model-ok /forward"},
                       {"curl", "model-ok /curl"},
                       // Anything else: refused, with the reason and the flag that would
                       // allow it.
                       {"evil", k_forbidden},
                       {"port", k_forbidden},
                       {"ip", k_forbidden},
                       // No way around the proxy: no route out, no host loopback, no name
                       // service.
                       {"direct_loopback", "ECONNREFUSED"},
                       {"direct_out", "ENETUNREACH"},
                       {"dns", "gaierror"}});
  CHECK(field(r.out, "tunnel_body").find("model-ok /tunnel") != npos);
  CHECK(field(r.out, "evil_body")
            .find("ws: refused api.evil.test:443: not in --network=allow:" + list) != npos);
  CHECK(field(r.out, "evil_body")
            .find("hint: ws run --network=allow:" + list +
                  ",api.evil.test "
                  "would allow it") != npos);
  CHECK(field(r.out, "ip_body").find("an IP address not in") != npos);
  // The server saw exactly the allowed requests, by the names the client used.
  std::string seen = server.log();
  CHECK(seen.find("GET /tunnel api.fake-model.test:" + server.port) != npos);
  CHECK(seen.find("GET /forward x.svc.fake-model.test:" + server.port) != npos);
  CHECK(seen.find("GET /curl api.fake-model.test:" + server.port) != npos);
  CHECK(count(seen, "conn\n") == 3);
  // The summary explains the refusals.
  CHECK(r.err.find("ws: refused connection: api.evil.test:443: not in --network=allow:" + list +
                   "; allow it with --network=allow:" + list + ",api.evil.test\n") != npos);
  CHECK(r.err.find("ws: refused connection: api.fake-model.test:22: port not in") != npos);
  CHECK(r.err.find("ws: the agent looked up api.fake-model.test itself") != npos);
  // ws log shows every one, with the host, in the session.
  std::string session = session_of(r.err);
  Run log = p.ws("log --session " + q(session));
  INFO("ws log: " << log.out << log.err);
  CHECK(log.status == 0);
  CHECK(count(log.out, " connect ") == 3);
  CHECK(log.out.find("api.fake-model.test:" + server.port + "  [CONNECT: via 127.0.0.1]") != npos);
  CHECK(log.out.find("x.svc.fake-model.test:" + server.port + "  [GET: via 127.0.0.1]") != npos);
  CHECK(log.out.find("refuse    api.evil.test:443  [CONNECT: not in --network=allow:") != npos);
  CHECK(log.out.find("refuse    127.0.0.1:" + server.port) != npos);
  CHECK(log.out.find("lookup    api.fake-model.test") != npos);
}

void check_attacks(const std::string& user) {
  Person p(user);
  FakeModelServer server;
  REQUIRE(!server.port.empty());
  // localhost is listed, but nobody mapped it: it resolves to this machine, and is refused.
  std::string list = "api.fake-model.test:" + server.port + ",localhost:" + server.port;
  Run r = run_client(p, server, "allow:" + list,
                     "localhost ip22 ip6 numeric host_mismatch forward_mismatch pipelined "
                     "smuggle huge garbage origin_form many");
  INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
  CHECK(r.status == 0);
  check_fields(r.out, {{"localhost", k_forbidden},
                       {"ip22", k_forbidden},
                       {"ip6", k_forbidden},
                       {"numeric", k_bad_request},
                       {"host_mismatch", k_bad_request},
                       {"forward_mismatch", k_bad_request},
                       // One request per upstream connection: the second, for another host,
                       // never leaves.
                       {"pipelined", "HTTP/1.1 200 OK"},
                       {"post_pipelined", "HTTP/1.1 200 OK"},
                       {"smuggle", k_bad_request},
                       {"huge", "HTTP/1.1 431 Request Header Fields Too Large"},
                       {"garbage", k_bad_request},
                       {"origin_form", k_bad_request}});
  CHECK(field(r.out, "localhost_body")
            .find("(loopback); map the name with WS_NETWORK_RESOLVE=localhost=") != npos);
  CHECK(field(r.out, "forward_mismatch_body").find("names another host") != npos);
  // Many connections at once: the ones past the bound are turned away, and the proxy
  // serves again once they are gone.
  CHECK(std::atoi(field(r.out, "many_refused").c_str()) > 0);
  CHECK(field(r.out, "after_many") == "HTTP/1.1 200 Connection established");
  std::string seen = server.log();
  INFO("server: " << seen);
  CHECK(seen.find("GET /keep-alive api.fake-model.test:" + server.port) != npos);
  CHECK(seen.find("POST /keep-alive-post api.fake-model.test:" + server.port + " body\n") != npos);
  CHECK(seen.find("/second") == npos);
  CHECK(seen.find("/third") == npos);
  CHECK(seen.find("/hidden") == npos);
  CHECK(seen.find("/smuggle") == npos);
  CHECK(seen.find("/mismatch") == npos);
  CHECK(seen.find("GET /after-many") != npos);
  CHECK(count(seen, "conn\n") == 3);
  CHECK(r.err.find("ws: refused localhost:" + server.port + ": localhost resolves to") != npos);
}

} // namespace

TEST_CASE("run --network=allow: only listed hosts, through ws's proxy, and ws log and the summary "
          "say what was refused") {
  as_each(check_allowlist);
}

TEST_CASE("run --network=allow: the proxy holds against a hostile client") {
  as_each(check_attacks);
}

TEST_CASE("run --network=allow: a client that never finishes its request is cut off") {
  Person p("");
  FakeModelServer server;
  REQUIRE(!server.port.empty());
  auto t0 = std::chrono::steady_clock::now();
  Run r = run_client(p, server, "allow:api.fake-model.test:" + server.port, "slow");
  auto took = std::chrono::steady_clock::now() - t0;
  INFO("ws run " << r.status << "\n" << r.out << r.err);
  CHECK(field(r.out, "slow").find("HTTP/1.1 408 Request Timeout after 1") == 0);
  CHECK(took < std::chrono::seconds(30));
  CHECK(r.err.find("no complete request head within 10 s") != npos);
}

TEST_CASE("run --network=off: the proxy refuses everything, and the summary says the network was "
          "off and which flag allows it") {
  as_each([](const std::string& user) {
    Person p(user);
    FakeModelServer server;
    Run r = run_client(p, server, "off", "https_off dns_off direct");
    INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
    CHECK(r.status == 0);
    CHECK(field(r.out, "https_off").find("403") != npos);
    CHECK(field(r.out, "dns_off") == "gaierror");
    CHECK(field(r.out, "direct_out") == "ENETUNREACH");
    CHECK(r.err.find("ws: the network was off (--network=off): the agent tried "
                     "api.anthropic.com:443; allow it with --network=allow:api.anthropic.com\n") !=
          npos);
    CHECK(r.err.find("ws: the network was off (--network=off): the agent looked up "
                     "api.openai.com; allow it with --network=allow:api.openai.com") != npos);
    // It exited 0 and did nothing: the summary does not leave it at "no changes".
    CHECK(r.err.find("ws: the agent exited 0 and changed nothing, after the network refusals "
                     "above") != npos);
  });
}

TEST_CASE("run --network=host: the host's network, said loudly") {
  as_each([](const std::string& user) {
    Person p(user);
    LoopbackServer server;
    REQUIRE(!server.port.empty());
    const std::string connect = "import socket, sys\n"
                                "c = socket.create_connection(('127.0.0.1', int(sys.argv[1])), "
                                "timeout=5)\n"
                                "print('net=' + c.recv(5).decode())\n";
    Run r = p.ws("run --network=host -- " + py() + " -c " + q(connect) + " " + server.port);
    INFO("as " << p.label() << ": ws run " << r.status << "\n" << r.out << r.err);
    CHECK(r.status == 0);
    CHECK(field(r.out, "net") == "hello");
    CHECK(r.err.find("ws: WARNING: --network=host: the agent shares this machine's network") !=
          npos);
  });
}

TEST_CASE("run --network: a mode ws does not know, or a bad host, fails before anything runs") {
  Person p("");
  for (const std::string bad : {"yes", "allow:bad host", "allow:*", "allow:a.test:99999"}) {
    Run r = p.ws("run --network=" + q(bad) + " -- true");
    INFO(bad << ": " << r.status << "\n" << r.out << r.err);
    CHECK(r.status == 1);
    CHECK(r.err.find("ws: error: --network=") != npos);
    CHECK(r.err.find("hint: ") != npos);
    CHECK(r.err.find("session") == npos);
  }
  Run r = p.ws("run --network=allow:a.test -- true", "WS_NETWORK_RESOLVE=a.test");
  CHECK(r.status == 1);
  CHECK(r.err.find("ws: error: WS_NETWORK_RESOLVE: 'a.test' is not NAME=ADDRESS") != npos);
}
