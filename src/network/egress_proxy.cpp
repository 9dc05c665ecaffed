// The proxy's loop (egress_proxy.hpp): accept, read a request head, decide, resolve,
// connect, relay; every step bounded in bytes and time.
#include "src/network/egress_proxy.hpp"

#include "src/cli/error.hpp"
#include "src/network/byte_queue.hpp"
#include "src/network/dns_query.hpp"
#include "src/network/http_request.hpp"
#include "src/network/resolver.hpp"

#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <unordered_map>

#include <netinet/in.h>

namespace ws::network {

namespace {

using Clock = std::chrono::steady_clock;

// epoll data: the fixed sockets, then 2*id (client) and 2*id+1 (upstream) of connections.
constexpr uint64_t k_stop = 1, k_listener = 2, k_resolver = 3, k_dns = 4, k_first_id = 8;

constexpr uint32_t k_unregistered = ~0u;

enum class Phase {
  Head,       ///< reading the request head
  Resolving,  ///< waiting for the resolver
  Connecting, ///< non-blocking connect to addresses[next - 1]
  Relay,      ///< bytes both ways
  Closing,    ///< an answer to the client, then its close
};

struct Connection {
  uint64_t id = 0;
  fuse::UniqueFd client, upstream;
  uint32_t client_events = k_unregistered, upstream_events = k_unregistered;
  Phase phase = Phase::Head;
  Clock::time_point deadline;
  std::string head; ///< Head: what came so far (at most k_max_head)
  ProxyRequest request;
  std::string method;
  std::vector<Address> addresses;
  size_t next = 0;
  std::optional<ByteQueue> up, down; ///< Relay: to upstream, to the client
  std::string answer;                ///< Closing: what the client still gets
  bool answered = false;             ///< Closing: the answer is out, draining until EOF
  bool client_eof = false;           ///< the client sent all it will
  bool body_done = false;            ///< Forward: the request's body is complete; more is dropped
  bool upstream_eof = false;         ///< upstream sent all it will
  bool upstream_shut = false, client_shut = false; ///< our FIN went out
  bool upstream_hup = false; ///< upstream is closed both ways: only reading what is left
  size_t drained = 0;        ///< Closing: bytes read and dropped
};

std::string answer_text(int status, const std::string& message) {
  std::string body = message + "\n";
  return "HTTP/1.1 " + std::to_string(status) + " " + status_text(status) +
         "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\nConnection: close\r\nProxy-Agent: ws\r\n\r\n" + body;
}

} // namespace

class EgressProxy::Loop {
public:
  Loop(fuse::UniqueFd listener, fuse::UniqueFd dns, ProxyPolicy policy, Sink sink,
       ProxyLimits limits)
      : m_listener(std::move(listener)), m_dns(std::move(dns)), m_policy(std::move(policy)),
        m_sink(std::move(sink)), m_limits(limits) {
    m_epoll.reset(::epoll_create1(EPOLL_CLOEXEC));
    m_stop.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    if (!m_epoll || !m_stop) {
      throw Error(std::string("cannot start the network proxy: ") + std::strerror(errno));
    }
    add(m_stop.get(), k_stop, EPOLLIN);
    add(m_listener.get(), k_listener, EPOLLIN);
    add(m_resolver.notify_fd(), k_resolver, EPOLLIN);
    if (m_dns) {
      add(m_dns.get(), k_dns, EPOLLIN);
    }
  }

  void stop() {
    uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(m_stop.get(), &one, sizeof one);
  }

  void run();

private:
  void add(int fd, uint64_t key, uint32_t events) {
    epoll_event ev{};
    ev.events = events;
    ev.data.u64 = key;
    ::epoll_ctl(m_epoll.get(), EPOLL_CTL_ADD, fd, &ev);
  }
  /// Registers `fd` for `events` (or changes its registration) only when they change.
  void watch(int fd, uint64_t key, uint32_t& registered, uint32_t events) {
    if (fd < 0 || registered == events) {
      return;
    }
    epoll_event ev{};
    ev.events = events;
    ev.data.u64 = key;
    ::epoll_ctl(m_epoll.get(), registered == k_unregistered ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd,
                &ev);
    registered = events;
  }

  void accept_clients();
  void answer_dns();
  void on_client(Connection& c, uint32_t events);
  void on_upstream(Connection& c, uint32_t events);
  void on_resolved(Resolver::Result& r);
  void read_head(Connection& c);
  void decide(Connection& c);
  void connect_next(Connection& c, const std::string& last_error);
  void connected(Connection& c);
  void relay_client(Connection& c, uint32_t events);
  void relay_upstream(Connection& c, uint32_t events);
  void refuse(Connection& c, Outcome outcome, int status, const std::string& why);
  void report(const Connection& c, Outcome outcome, const std::string& detail);
  void update(Connection& c);
  void close(uint64_t id);
  void expire();

  fuse::UniqueFd m_listener, m_dns, m_epoll, m_stop;
  ProxyPolicy m_policy;
  Sink m_sink;
  ProxyLimits m_limits;
  Resolver m_resolver;
  std::unordered_map<uint64_t, std::unique_ptr<Connection>> m_connections;
  uint64_t m_next_id = k_first_id;
  std::vector<uint64_t> m_closing;                    ///< closed at the end of the current round
  std::map<std::string, Clock::time_point> m_lookups; ///< DNS: last report per name
  bool m_running = true;
  bool m_accept_paused = false; ///< the listener is out of epoll until m_accept_again
  Clock::time_point m_accept_again;
};

void EgressProxy::Loop::run() {
  epoll_event events[64];
  while (m_running) {
    int n = ::epoll_wait(m_epoll.get(), events, 64, 500);
    for (int i = 0; i < n; ++i) {
      uint64_t key = events[i].data.u64;
      uint32_t ev = events[i].events;
      // Nothing a client does may end ws run (the session and its summary with it): a
      // failure here (memory, the journal) ends that client's connection only.
      try {
        if (key == k_stop) {
          m_running = false;
        } else if (key == k_listener) {
          accept_clients();
        } else if (key == k_dns) {
          answer_dns();
        } else if (key == k_resolver) {
          for (auto& r : m_resolver.take()) {
            on_resolved(r);
          }
        } else if (auto it = m_connections.find(key / 2); it != m_connections.end()) {
          Connection& c = *it->second;
          if (key % 2 == 0) {
            on_client(c, ev);
          } else {
            on_upstream(c, ev);
          }
          if (m_connections.count(key / 2)) {
            update(c);
          }
        }
      } catch (const std::exception&) {
        if (key >= k_first_id) {
          m_closing.push_back(key / 2);
        }
      }
    }
    if (m_accept_paused && Clock::now() >= m_accept_again) {
      m_accept_paused = false;
      add(m_listener.get(), k_listener, EPOLLIN);
    }
    try {
      expire();
    } catch (const std::exception&) {
      // a record that could not be made; the deadlines are checked again next round
    }
    for (uint64_t id : m_closing) {
      close(id);
    }
    m_closing.clear();
  }
}

void EgressProxy::Loop::accept_clients() {
  for (int i = 0; i < 64; ++i) {
    int fd = ::accept4(m_listener.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // Out of descriptors: the listener would stay readable and spin the loop. The
        // backlog waits a moment for a free one.
        ::epoll_ctl(m_epoll.get(), EPOLL_CTL_DEL, m_listener.get(), nullptr);
        m_accept_paused = true;
        m_accept_again = Clock::now() + std::chrono::milliseconds(200);
      }
      return;
    }
    if (m_connections.size() >= m_limits.max_connections) {
      std::string a = answer_text(503, "ws: too many connections through the proxy at once");
      [[maybe_unused]] ssize_t n = ::send(fd, a.data(), a.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      ::close(fd);
      ProxyEvent e;
      e.outcome = Outcome::TooMany;
      e.detail = "more than " + std::to_string(m_limits.max_connections) +
                 " connections through the proxy at once";
      m_sink(e);
      continue;
    }
    auto c = std::make_unique<Connection>();
    c->id = m_next_id++;
    c->client.reset(fd);
    c->deadline = Clock::now() + m_limits.head;
    Connection& ref = *c;
    m_connections.emplace(c->id, std::move(c));
    update(ref);
  }
}

void EgressProxy::Loop::answer_dns() {
  for (int i = 0; i < 64; ++i) {
    char buf[4096];
    sockaddr_storage from{};
    socklen_t len = sizeof from;
    ssize_t n =
        ::recvfrom(m_dns.get(), buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &len);
    if (n < 0) {
      return;
    }
    std::string_view packet(buf, static_cast<size_t>(n));
    std::optional<DnsQuestion> q = parse_dns_query(packet);
    if (!q) {
      continue;
    }
    std::string reply = dns_refused(packet, *q);
    ::sendto(m_dns.get(), reply.data(), reply.size(), MSG_DONTWAIT,
             reinterpret_cast<sockaddr*>(&from), len);
    // One report per name every few seconds: a resolver asks for A and AAAA, and retries.
    Clock::time_point now = Clock::now();
    auto it = m_lookups.find(q->name);
    if (it != m_lookups.end() && now - it->second < std::chrono::seconds(5)) {
      continue;
    }
    if (m_lookups.size() > 4096) {
      m_lookups.clear();
    }
    m_lookups[q->name] = now;
    ProxyEvent e;
    e.outcome = Outcome::DirectLookup;
    e.host = q->name;
    e.method = "DNS";
    e.detail = refusal_reason(Outcome::DirectLookup, m_policy);
    m_sink(e);
  }
}

void EgressProxy::Loop::on_client(Connection& c, uint32_t events) {
  switch (c.phase) {
  case Phase::Head:
    if (events & (EPOLLERR | EPOLLHUP)) {
      if (!(events & EPOLLIN)) {
        m_closing.push_back(c.id);
        return;
      }
    }
    read_head(c);
    return;
  case Phase::Resolving:
  case Phase::Connecting:
    if (events & (EPOLLERR | EPOLLHUP)) {
      m_closing.push_back(c.id); // the client gave up
    } else if (events & EPOLLRDHUP) {
      c.client_eof = true; // it sent all it will; the tunnel passes that on
    }
    return;
  case Phase::Relay:
    relay_client(c, events);
    return;
  case Phase::Closing:
    if (events & EPOLLERR) {
      m_closing.push_back(c.id);
      return;
    }
    if (!c.answered && (events & EPOLLOUT)) {
      ssize_t n = ::send(c.client.get(), c.answer.data(), c.answer.size(), MSG_NOSIGNAL);
      if (n > 0) {
        c.answer.erase(0, static_cast<size_t>(n));
      } else if (n < 0 && errno != EAGAIN) {
        m_closing.push_back(c.id);
        return;
      }
      if (c.answer.empty()) {
        // Our FIN, then what the client still sends is read and dropped until its own: a
        // close with unread bytes would reset the connection and could lose the answer.
        c.answered = true;
        ::shutdown(c.client.get(), SHUT_WR);
      }
    }
    if (events & (EPOLLIN | EPOLLHUP)) {
      char sink[4096];
      ssize_t n = ::read(c.client.get(), sink, sizeof sink);
      if (n > 0) {
        c.drained += static_cast<size_t>(n);
      }
      if ((n == 0 || (n < 0 && errno != EAGAIN) || c.drained > (1u << 20)) && c.answered) {
        m_closing.push_back(c.id);
      } else if (n == 0 && !c.answered) {
        c.client_eof = true; // no more to read; still answer
      }
    }
    return;
  }
}

void EgressProxy::Loop::read_head(Connection& c) {
  char buf[4096];
  size_t want = std::min(sizeof buf, k_max_head + 1 - c.head.size());
  ssize_t n = ::read(c.client.get(), buf, want);
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
    m_closing.push_back(c.id); // closed before asking anything: nothing to report
    return;
  }
  if (n < 0) {
    return;
  }
  c.head.append(buf, static_cast<size_t>(n));
  HeadParse p = parse_request_head(c.head);
  if (p.state == HeadParse::State::Incomplete) {
    return;
  }
  if (p.state == HeadParse::State::Invalid) {
    refuse(c, Outcome::BadRequest, p.status, p.why);
    return;
  }
  c.method = p.head.method;
  auto r = interpret_request(p.head);
  if (auto* bad = std::get_if<BadRequest>(&r)) {
    // The target, if it names one, so the record says where the client meant to go.
    if (std::optional<Target> t = parse_authority(p.head.target, uint16_t{443})) {
      c.request.target = *t;
    }
    refuse(c, Outcome::BadRequest, bad->status, bad->why);
    return;
  }
  c.request = std::move(std::get<ProxyRequest>(r));
  c.head.erase(0, p.length); // what follows the head: the start of a tunnel or a body
  decide(c);
}

void EgressProxy::Loop::decide(Connection& c) {
  const Target& t = c.request.target;
  if (m_policy.off) {
    refuse(c, Outcome::NetworkOff, 403, refusal_reason(Outcome::NetworkOff, m_policy));
    return;
  }
  Allowlist::Decision d = m_policy.allow.decide(t);
  if (!d.allowed) {
    Outcome o = d.why == Refusal::PortNotListed ? Outcome::PortNotListed
                : d.why == Refusal::IpLiteral   ? Outcome::IpLiteral
                                                : Outcome::NotListed;
    refuse(c, o, 403, refusal_reason(o, m_policy));
    return;
  }
  c.deadline = Clock::now() + m_limits.connect;
  if (t.is_ip) {
    c.addresses = {address_of(t.host, t.port)}; // listed as an address: the person's choice
  } else {
    c.addresses = m_policy.resolve.lookup(t.host, t.port);
  }
  if (!c.addresses.empty()) {
    connect_next(c, "");
    return;
  }
  c.phase = Phase::Resolving;
  m_resolver.lookup(c.id, t.host, t.port);
}

void EgressProxy::Loop::on_resolved(Resolver::Result& r) {
  auto it = m_connections.find(r.id);
  if (it == m_connections.end() || it->second->phase != Phase::Resolving) {
    return; // the client left meanwhile
  }
  Connection& c = *it->second;
  const std::string& host = c.request.target.host;
  if (r.addresses.empty()) {
    refuse(c, Outcome::Unreachable, 502, "cannot resolve " + host + ": " + r.error);
    update(c);
    return;
  }
  // A name the person listed may still point at this machine or the LAN (by mistake, or on
  // purpose: DNS rebinding). Checked here, on the very addresses connected to below.
  for (const auto& a : r.addresses) {
    std::string kind = non_public_kind(a);
    if (!kind.empty()) {
      refuse(c, Outcome::NonPublic, 403,
             host + " resolves to " + a.text() + " (" + kind +
                 "); map the name with WS_NETWORK_RESOLVE=" + host + "=" + a.text() +
                 " if you mean it");
      update(c);
      return;
    }
  }
  c.addresses = std::move(r.addresses);
  connect_next(c, "");
  if (m_connections.count(c.id)) {
    update(c);
  }
}

void EgressProxy::Loop::connect_next(Connection& c, const std::string& last_error) {
  if (c.upstream) {
    ::epoll_ctl(m_epoll.get(), EPOLL_CTL_DEL, c.upstream.get(), nullptr);
    c.upstream.reset();
    c.upstream_events = k_unregistered;
  }
  while (c.next < c.addresses.size()) {
    const Address& a = c.addresses[c.next++];
    fuse::UniqueFd fd(::socket(a.storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!fd) {
      continue;
    }
    if (::connect(fd.get(), a.get(), a.length) == 0 || errno == EINPROGRESS) {
      c.upstream = std::move(fd);
      c.phase = Phase::Connecting;
      return;
    }
  }
  refuse(c, Outcome::Unreachable, 502,
         "cannot connect to " + c.request.target.text() +
             (last_error.empty() ? std::string() : ": " + last_error));
}

void EgressProxy::Loop::on_upstream(Connection& c, uint32_t events) {
  if (c.phase == Phase::Connecting) {
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(c.upstream.get(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0 || (events & (EPOLLERR | EPOLLHUP))) {
      const Address& a = c.addresses[c.next - 1];
      connect_next(c, a.text() + ": " + std::strerror(err ? err : ECONNREFUSED));
      return;
    }
    if (events & EPOLLOUT) {
      connected(c);
    }
    return;
  }
  if (c.phase == Phase::Relay) {
    relay_upstream(c, events);
  }
}

void EgressProxy::Loop::connected(Connection& c) {
  c.phase = Phase::Relay;
  c.deadline = Clock::now() + m_limits.idle;
  c.up.emplace(m_limits.buffer);
  c.down.emplace(m_limits.buffer);
  std::string_view early = c.head; // bytes the client sent right after its head
  if (c.request.kind == ProxyRequest::Kind::Tunnel) {
    c.down->append("HTTP/1.1 200 Connection established\r\nProxy-Agent: ws\r\n\r\n");
    c.up->append(early);
  } else {
    c.up->append(c.request.forward_head);
    size_t body = c.request.body.take(early.data(), early.size());
    c.up->append(early.substr(0, body));
    c.body_done = c.request.body.done();
    if (c.request.body.failed()) {
      m_closing.push_back(c.id);
    }
  }
  c.head.clear();
  c.head.shrink_to_fit();
  report(c, Outcome::Allowed, "via " + c.addresses[c.next - 1].text());
}

void EgressProxy::Loop::relay_client(Connection& c, uint32_t events) {
  if (events & EPOLLERR) {
    m_closing.push_back(c.id);
    return;
  }
  if ((events & (EPOLLIN | EPOLLHUP)) && !c.client_eof && !c.body_done && c.up->room() > 0) {
    size_t before = c.up->size();
    ssize_t n;
    if (c.request.kind == ProxyRequest::Kind::Tunnel) {
      n = c.up->fill(c.client.get());
    } else {
      // Only the body goes on; anything after it (a second request) is dropped.
      char buf[16384];
      n = ::read(c.client.get(), buf, std::min(sizeof buf, c.up->room()));
      if (n > 0) {
        size_t body = c.request.body.take(buf, static_cast<size_t>(n));
        if (c.request.body.failed()) {
          m_closing.push_back(c.id);
          return;
        }
        c.up->append(std::string_view(buf, body));
        c.body_done = c.request.body.done();
      }
    }
    if (n == 0) {
      c.client_eof = true;
    } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
      m_closing.push_back(c.id);
      return;
    }
    if (c.up->size() != before) {
      c.deadline = Clock::now() + m_limits.idle;
    }
  } else if ((events & EPOLLHUP) && !(events & EPOLLOUT)) {
    m_closing.push_back(c.id); // both ways closed and nothing to do with it
    return;
  }
  if ((events & EPOLLOUT) && !c.down->empty()) {
    if (c.down->drain(c.client.get()) < 0 && errno != EAGAIN) {
      m_closing.push_back(c.id);
      return;
    }
    c.deadline = Clock::now() + m_limits.idle;
  }
}

void EgressProxy::Loop::relay_upstream(Connection& c, uint32_t events) {
  if (events & EPOLLERR) {
    m_closing.push_back(c.id);
    return;
  }
  if (events & EPOLLHUP) {
    c.upstream_hup = true;
  }
  if ((events & (EPOLLIN | EPOLLHUP)) && !c.upstream_eof && c.down->room() > 0) {
    ssize_t n = c.down->fill(c.upstream.get());
    if (n == 0) {
      c.upstream_eof = true;
    } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
      m_closing.push_back(c.id);
      return;
    } else if (n > 0) {
      c.deadline = Clock::now() + m_limits.idle;
    }
  }
  if ((events & EPOLLOUT) && !c.up->empty()) {
    if (c.up->drain(c.upstream.get()) < 0 && errno != EAGAIN) {
      m_closing.push_back(c.id);
      return;
    }
    c.deadline = Clock::now() + m_limits.idle;
  }
}

void EgressProxy::Loop::refuse(Connection& c, Outcome outcome, int status, const std::string& why) {
  report(c, outcome, why);
  std::string message =
      "ws: " + std::string(outcome == Outcome::Unreachable ? "cannot reach " : "refused ") +
      (c.request.target.host.empty() ? std::string("the request") : c.request.target.text()) +
      ": " + why;
  std::string flag = allowing_flag(c.request.target.host, c.request.target.port, m_policy);
  if (!c.request.target.host.empty() &&
      (outcome == Outcome::NotListed || outcome == Outcome::PortNotListed ||
       outcome == Outcome::IpLiteral || outcome == Outcome::NetworkOff)) {
    message += "\nhint: ws run " + flag + " would allow it";
  }
  if (c.upstream) {
    ::epoll_ctl(m_epoll.get(), EPOLL_CTL_DEL, c.upstream.get(), nullptr);
    c.upstream.reset();
    c.upstream_events = k_unregistered;
  }
  c.phase = Phase::Closing;
  c.answer = answer_text(status, message);
  c.head.clear();
  c.deadline = Clock::now() + m_limits.linger;
}

void EgressProxy::Loop::report(const Connection& c, Outcome outcome, const std::string& detail) {
  ProxyEvent e;
  e.outcome = outcome;
  e.host = c.request.target.host;
  e.port = c.request.target.port;
  e.method = c.method;
  e.detail = detail;
  m_sink(e);
}

void EgressProxy::Loop::update(Connection& c) {
  uint32_t client = 0, upstream = 0;
  switch (c.phase) {
  case Phase::Head:
    client = EPOLLIN;
    break;
  case Phase::Resolving:
    client = c.client_eof ? 0u : uint32_t{EPOLLRDHUP};
    break;
  case Phase::Connecting:
    client = c.client_eof ? 0u : uint32_t{EPOLLRDHUP};
    upstream = EPOLLOUT;
    break;
  case Phase::Relay: {
    // Half-closes pass through: the side that ended gets our FIN once its bytes are out.
    if (c.request.kind == ProxyRequest::Kind::Tunnel && c.client_eof && c.up->empty() &&
        !c.upstream_shut) {
      ::shutdown(c.upstream.get(), SHUT_WR);
      c.upstream_shut = true;
    }
    if (c.upstream_eof && c.down->empty() && !c.client_shut) {
      ::shutdown(c.client.get(), SHUT_WR);
      c.client_shut = true;
    }
    // A forwarded request whose client left before its body was complete goes nowhere.
    bool forward = c.request.kind == ProxyRequest::Kind::Forward;
    if ((forward && c.client_eof && !c.body_done) || (c.client_shut && c.upstream_shut)) {
      m_closing.push_back(c.id);
      return;
    }
    if (forward && c.client_shut) {
      // The answer is out and our FIN with it. What the client sent after its request
      // (never forwarded) is read and dropped before the close, which would otherwise reset
      // the connection and could cost the client the answer.
      ::epoll_ctl(m_epoll.get(), EPOLL_CTL_DEL, c.upstream.get(), nullptr);
      c.upstream.reset();
      c.upstream_events = k_unregistered;
      c.phase = Phase::Closing;
      c.answered = true;
      c.deadline = Clock::now() + m_limits.linger;
      update(c);
      return;
    }
    if (!c.client_eof && !c.body_done && c.up->room() > 0) {
      client |= EPOLLIN;
    }
    if (!c.down->empty()) {
      client |= EPOLLOUT;
    }
    if (!c.upstream_eof && c.down->room() > 0) {
      upstream |= EPOLLIN;
    }
    if (!c.up->empty() && !c.upstream_hup) {
      upstream |= EPOLLOUT;
    }
    if (c.upstream_hup && !(upstream & EPOLLIN)) {
      // Closed both ways, and no room to read what is left: epoll would report the hang-up
      // again and again. Watched again once the client has made room.
      if (c.upstream_events != k_unregistered) {
        ::epoll_ctl(m_epoll.get(), EPOLL_CTL_DEL, c.upstream.get(), nullptr);
        c.upstream_events = k_unregistered;
      }
      watch(c.client.get(), c.id * 2, c.client_events, client);
      return;
    }
    break;
  }
  case Phase::Closing:
    client = c.answered ? (c.client_eof ? 0u : uint32_t{EPOLLIN}) : uint32_t{EPOLLOUT};
    if (c.answered && c.client_eof) {
      m_closing.push_back(c.id);
      return;
    }
    break;
  }
  watch(c.client.get(), c.id * 2, c.client_events, client);
  if (c.upstream) {
    watch(c.upstream.get(), c.id * 2 + 1, c.upstream_events, upstream);
  }
}

void EgressProxy::Loop::close(uint64_t id) {
  auto it = m_connections.find(id);
  if (it == m_connections.end()) {
    return;
  }
  for (int fd : {it->second->client.get(), it->second->upstream.get()}) {
    if (fd >= 0) {
      ::epoll_ctl(m_epoll.get(), EPOLL_CTL_DEL, fd, nullptr);
    }
  }
  m_connections.erase(it);
}

void EgressProxy::Loop::expire() {
  Clock::time_point now = Clock::now();
  for (auto& [id, c] : m_connections) {
    if (now < c->deadline) {
      continue;
    }
    switch (c->phase) {
    case Phase::Head:
      if (c->head.empty()) {
        m_closing.push_back(id); // connected and said nothing: no request to report
      } else {
        refuse(*c, Outcome::BadRequest, 408,
               "no complete request head within " + std::to_string(m_limits.head.count() / 1000) +
                   " s");
        update(*c);
      }
      break;
    case Phase::Resolving:
    case Phase::Connecting:
      refuse(*c, Outcome::Unreachable, 504,
             "no connection to " + c->request.target.text() + " within " +
                 std::to_string(m_limits.connect.count() / 1000) + " s");
      update(*c);
      break;
    case Phase::Relay:
    case Phase::Closing:
      m_closing.push_back(id);
      break;
    }
  }
}

EgressProxy::EgressProxy(fuse::UniqueFd listener, fuse::UniqueFd dns, ProxyPolicy policy, Sink sink,
                         ProxyLimits limits)
    : m_loop(std::make_unique<Loop>(std::move(listener), std::move(dns), std::move(policy),
                                    std::move(sink), limits)) {
  // No signal is the loop's to take: ws run reads its own from a signalfd.
  sigset_t all, old;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &old);
  m_thread = std::thread([this] { m_loop->run(); });
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

EgressProxy::~EgressProxy() {
  m_loop->stop();
  m_thread.join();
}

} // namespace ws::network
