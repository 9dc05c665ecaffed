// Name lookups off the proxy's loop (resolver.hpp).
#include "src/network/resolver.hpp"

#include "fuse/unique_fd.hpp"
#include "src/cli/error.hpp"

#include <netdb.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

namespace ws::network {

struct Resolver::State {
  std::mutex mutex; // guards everything below but `ready`
  std::condition_variable wake;
  struct Request {
    uint64_t id;
    std::string name;
    uint16_t port;
  };
  std::deque<Request> queue;
  std::vector<Result> done;
  bool stop = false;
  fuse::UniqueFd ready; ///< eventfd: written when `done` gains a result
};

namespace {

Resolver::Result resolve(uint64_t id, const std::string& name, uint16_t port) {
  Resolver::Result r;
  r.id = id;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  std::string service = std::to_string(port);
  int rc = ::getaddrinfo(name.c_str(), service.c_str(), &hints, &list);
  if (rc != 0) {
    r.error = rc == EAI_SYSTEM ? std::strerror(errno) : ::gai_strerror(rc);
    return r;
  }
  for (addrinfo* a = list; a; a = a->ai_next) {
    if ((a->ai_family == AF_INET || a->ai_family == AF_INET6) &&
        a->ai_addrlen <= sizeof(sockaddr_storage)) {
      Address addr;
      std::memcpy(&addr.storage, a->ai_addr, a->ai_addrlen);
      addr.length = a->ai_addrlen;
      r.addresses.push_back(addr);
    }
  }
  ::freeaddrinfo(list);
  if (r.addresses.empty()) {
    r.error = "no IPv4 or IPv6 address";
  }
  return r;
}

void work(const std::shared_ptr<Resolver::State>& state) {
  std::unique_lock lock(state->mutex);
  for (;;) {
    state->wake.wait(lock, [&] { return state->stop || !state->queue.empty(); });
    if (state->stop) {
      return;
    }
    auto request = std::move(state->queue.front());
    state->queue.pop_front();
    lock.unlock();
    Resolver::Result r = resolve(request.id, request.name, request.port);
    lock.lock();
    if (state->stop) {
      return;
    }
    state->done.push_back(std::move(r));
    uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(state->ready.get(), &one, sizeof one);
  }
}

} // namespace

Resolver::Resolver(unsigned threads) : m_state(std::make_shared<State>()), m_threads(threads) {
  m_state->ready.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!m_state->ready) {
    throw Error(std::string("cannot start the network proxy: eventfd: ") + std::strerror(errno));
  }
}

Resolver::~Resolver() {
  {
    std::lock_guard lock(m_state->mutex);
    m_state->stop = true;
    m_state->queue.clear();
  }
  m_state->wake.notify_all();
}

void Resolver::lookup(uint64_t id, const std::string& name, uint16_t port) {
  if (!m_started) {
    // The workers start with the first lookup: a session whose agent never asks for a
    // name (or only for the person's mapped ones) pays nothing for them.
    m_started = true;
    sigset_t all, old;
    sigfillset(&all); // no signal is the workers' to take (ws run reads its own)
    ::pthread_sigmask(SIG_SETMASK, &all, &old);
    for (unsigned i = 0; i < m_threads; ++i) {
      std::thread([state = m_state] { work(state); }).detach();
    }
    ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  }
  {
    std::lock_guard lock(m_state->mutex);
    m_state->queue.push_back({id, name, port});
  }
  m_state->wake.notify_one();
}

int Resolver::notify_fd() const {
  return m_state->ready.get();
}

std::vector<Resolver::Result> Resolver::take() {
  uint64_t count = 0;
  [[maybe_unused]] ssize_t n = ::read(m_state->ready.get(), &count, sizeof count);
  std::lock_guard lock(m_state->mutex);
  std::vector<Result> out;
  out.swap(m_state->done);
  return out;
}

} // namespace ws::network
