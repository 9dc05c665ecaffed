// The proxy's loop (proxy_loop.hpp): accepting clients within the bound, answering the
// sandbox's DNS queries, deadlines, closing.
#include "src/network/proxy_loop.hpp"

#include "src/cli/error.hpp"
#include "src/network/dns_query.hpp"

#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ws::network {

using namespace detail;

namespace detail {

std::string answer_text(int status, const std::string& message) {
  std::string body = message + "\n";
  return "HTTP/1.1 " + std::to_string(status) + " " + status_text(status) +
         "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\nConnection: close\r\nProxy-Agent: ws\r\n\r\n" + body;
}

} // namespace detail

EgressProxy::Loop::Loop(fuse::UniqueFd listener, fuse::UniqueFd dns, ProxyPolicy policy, Sink sink,
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

void EgressProxy::Loop::stop() {
  uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(m_stop.get(), &one, sizeof one);
}

void EgressProxy::Loop::add(int fd, uint64_t key, uint32_t events) {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = key;
  ::epoll_ctl(m_epoll.get(), EPOLL_CTL_ADD, fd, &ev);
}

void EgressProxy::Loop::watch(int fd, uint64_t key, uint32_t& registered, uint32_t events) {
  if (fd < 0 || registered == events) {
    return;
  }
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = key;
  ::epoll_ctl(m_epoll.get(), registered == k_unregistered ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &ev);
  registered = events;
}

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

} // namespace ws::network
