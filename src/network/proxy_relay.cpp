// Bytes both ways through the proxy (proxy_loop.hpp), half-closes passed on, and what each
// connection waits for in epoll.
#include "src/network/proxy_loop.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ws::network {

using namespace detail;

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

} // namespace ws::network
