// One request through the proxy (proxy_loop.hpp): its head, the decision by name, the lookup
// and its check, the connection upstream, and a refusal that explains itself.
#include "src/network/proxy_loop.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ws::network {

using namespace detail;

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

} // namespace ws::network
