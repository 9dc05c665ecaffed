// The daemon's control channel (see control_socket.hpp).
//
// Wire format: the client sends its strings, each ended by a NUL byte (paths are raw bytes
// and may hold newlines), then shuts its side down. The daemon answers "ok\n<payload>" or
// "error\n<what>\n<hint>" and closes.
//
// The socket lives in the workspace's state directory, whose path may be longer than
// sun_path's 108 bytes: both ends bind and connect through "/proc/self/fd/<fd>/control.sock"
// with an O_PATH fd on that directory.
#include "src/daemon/control_socket.hpp"

#include "fuse/overlay_fs.hpp"
#include "fuse/unique_fd.hpp"
#include "fuse/write_gate.hpp"
#include "src/cli/error.hpp"
#include "src/daemon/daemon.hpp"

#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

namespace ws {

namespace fs = std::filesystem;
using fuse::UniqueFd;

namespace {

constexpr const char* k_socket = "control.sock";
constexpr size_t k_max_request = 64u << 20;

UniqueFd open_state_dir(const fs::path& dir) {
  UniqueFd fd(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!fd) {
    throw Error("cannot open the workspace state " + dir.string() + ": " + std::strerror(errno));
  }
  return fd;
}

sockaddr_un address_in(int dir_fd) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::string path = "/proc/self/fd/" + std::to_string(dir_fd) + "/" + k_socket;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1); // ~35 bytes, well below 108
  return addr;
}

std::optional<ucred> peer_of(int sock) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
    return std::nullopt;
  }
  return cred;
}

/// Only the same user, or root, may ask (or answer).
bool trusted(const ucred& cred) {
  return cred.uid == ::geteuid() || cred.uid == 0;
}

/// A `ws run` sandbox (its own pid namespace) never gets an answer, even where it can
/// reach the socket: the control channel drops and snapshots the agent's own work. The
/// peer's pid namespace must be the daemon's (a pid of 0: not visible from here, refused).
bool outside_any_sandbox(const ucred& cred) {
  if (cred.pid <= 0) {
    return false;
  }
  struct stat mine {
  }, theirs{};
  std::string ns = "/proc/" + std::to_string(cred.pid) + "/ns/pid";
  return ::stat("/proc/self/ns/pid", &mine) == 0 && ::stat(ns.c_str(), &theirs) == 0 &&
         mine.st_ino == theirs.st_ino && mine.st_dev == theirs.st_dev;
}

bool send_all(int sock, const std::string& data) {
  for (size_t done = 0; done < data.size();) {
    ssize_t n = ::send(sock, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

/// Reads until the peer shuts its side down; false on error, timeout or too much.
bool read_all(int sock, std::string& out) {
  char buf[65536];
  for (;;) {
    ssize_t n = ::recv(sock, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      return false;
    }
    if (n == 0) {
      return true;
    }
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > k_max_request) {
      return false;
    }
  }
}

std::vector<std::string> split_nul(const std::string& data) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < data.size()) {
    size_t end = data.find('\0', start);
    if (end == std::string::npos) {
      end = data.size();
    }
    out.push_back(data.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

} // namespace

namespace {

/// A connection to the daemon listening in `state_dir`, checked to be the workspace's own
/// user's (or root's); nullopt when no daemon listens there.
std::optional<UniqueFd> connect_daemon(const fs::path& state_dir) {
  UniqueFd dir = open_state_dir(state_dir);
  UniqueFd sock(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!sock) {
    throw Error(std::string("socket: ") + std::strerror(errno));
  }
  sockaddr_un addr = address_in(dir.get());
  if (::connect(sock.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    if (errno == ENOENT || errno == ECONNREFUSED) {
      return std::nullopt; // no daemon listens (none runs, or it is starting or stopping)
    }
    throw Error("cannot reach the workspace's daemon (" + (state_dir / k_socket).string() +
                "): " + std::strerror(errno));
  }
  auto cred = peer_of(sock.get());
  if (!cred || !trusted(*cred)) {
    throw Error("the process listening on " + (state_dir / k_socket).string() +
                    " is not the workspace's daemon (another user's)",
                "remove that socket, then try again");
  }
  return sock;
}

/// Throws the daemon's error reply `reply` to `op`.
[[noreturn]] void throw_reply(const fs::path& state_dir, const std::string& op,
                              const std::string& reply) {
  std::string body = reply.rfind("error\n", 0) == 0 ? reply.substr(6) : reply;
  size_t nl = body.find('\n');
  std::string what = body.substr(0, nl);
  std::string hint = nl == std::string::npos ? std::string() : body.substr(nl + 1);
  while (!hint.empty() && hint.back() == '\n') {
    hint.pop_back();
  }
  throw Error("the workspace's daemon could not " + op + ": " + what,
              hint.empty() ? "see its log: " + (state_dir / "daemon.log").string() : hint);
}

} // namespace

std::optional<std::string> control_call(const fs::path& state_dir,
                                        const std::vector<std::string>& request) {
  std::optional<UniqueFd> conn = connect_daemon(state_dir);
  if (!conn) {
    return std::nullopt;
  }
  UniqueFd sock = std::move(*conn);
  std::string data;
  for (const std::string& s : request) {
    data += s;
    data += '\0';
  }
  std::string reply;
  if (!send_all(sock.get(), data) || ::shutdown(sock.get(), SHUT_WR) != 0 ||
      !read_all(sock.get(), reply) || reply.empty()) {
    throw Error("the workspace's daemon did not answer '" + request.front() + "'",
                "see its log: " + (state_dir / "daemon.log").string());
  }
  if (reply.rfind("ok\n", 0) == 0) {
    return reply.substr(3);
  }
  throw_reply(state_dir, request.front(), reply);
}

std::optional<UniqueFd> control_pause_writes(const fs::path& state_dir, std::chrono::seconds wait) {
  std::optional<UniqueFd> conn = connect_daemon(state_dir);
  if (!conn) {
    return std::nullopt;
  }
  int sock = conn->get();
  const std::string request = std::string(k_pause_request) + '\0';
  timeval limit{static_cast<time_t>(wait.count()), 0};
  ::setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  if (!send_all(sock, request) || ::shutdown(sock, SHUT_WR) != 0) {
    throw Error("the workspace's daemon did not take the request to pause writers",
                "see its log: " + (state_dir / "daemon.log").string());
  }
  // The daemon answers "ok\npaused\n" and keeps the connection open (closing it resumes
  // the writers), or answers an error and closes.
  const std::string paused = "ok\npaused\n";
  std::string reply;
  char buf[4096];
  while (reply.rfind(paused, 0) != 0) {
    ssize_t n = ::recv(sock, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      throw Error("the workspace's daemon did not pause writers within " +
                      std::to_string(wait.count()) + " s: " + std::strerror(errno),
                  "see its log: " + (state_dir / "daemon.log").string());
    }
    if (n == 0) { // an error reply ends with the daemon's close
      if (reply.empty()) {
        throw Error("the workspace's daemon did not answer '" + std::string(k_pause_request) + "'",
                    "see its log: " + (state_dir / "daemon.log").string());
      }
      throw_reply(state_dir, "pause writers", reply);
    }
    reply.append(buf, static_cast<size_t>(n));
  }
  return std::move(*conn);
}

struct ControlServer::Impl {
  UniqueFd dir;
  UniqueFd listener;
  UniqueFd wake; ///< eventfd: written to stop the thread
  Handler handler;
  fuse::WriteGate* gate = nullptr;
  std::thread thread;
  /// Threads holding a pause each, until their client closes; reaped by the control thread
  /// (and joined on destruction, after `wake` ends their waits).
  struct Holder {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::vector<Holder> holders; ///< the control thread's (and the destructor's, after it)
  static constexpr size_t k_max_pauses = 8;

  void run() {
    for (;;) {
      pollfd fds[2] = {{listener.get(), POLLIN, 0}, {wake.get(), POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) {
        if (errno == EINTR) {
          continue;
        }
        spdlog::error("control socket: poll: {}", std::strerror(errno));
        return;
      }
      if (fds[1].revents) {
        return;
      }
      UniqueFd conn(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
      if (conn) {
        serve(conn);
      }
    }
  }

  void serve(UniqueFd& sock) {
    int conn = sock.get();
    auto cred = peer_of(conn);
    if (!cred || !trusted(*cred) || !outside_any_sandbox(*cred)) {
      spdlog::warn("control socket: refused a request from uid {} pid {}", cred ? cred->uid : -1,
                   cred ? cred->pid : -1);
      send_all(conn, "error\npermission denied\n");
      return;
    }
    // A client that never finishes its request must not stall the daemon's control.
    timeval limit{10, 0};
    ::setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    std::string data;
    if (!read_all(conn, data)) {
      send_all(conn, "error\nincomplete request\n");
      return;
    }
    std::vector<std::string> request = split_nul(data);
    if (request.empty()) {
      send_all(conn, "error\nempty request\n");
      return;
    }
    ControlPeer peer{cred->pid, cred->uid, cred->gid};
    spdlog::info("control: {} ({} argument(s)) from pid {}", request.front(), request.size() - 1,
                 peer.pid);
    if (gate && request.front() == k_pause_request) {
      start_pause(sock, peer);
      return;
    }
    std::string reply;
    try {
      reply = "ok\n" + handler(peer, request);
    } catch (const Error& e) {
      spdlog::error("control: {}: {}", request.front(), e.what());
      reply = "error\n" + std::string(e.what()) + "\n" + e.hint();
    } catch (const std::exception& e) {
      spdlog::error("control: {}: {}", request.front(), e.what());
      reply = "error\n" + std::string(e.what()) + "\n";
    }
    send_all(conn, reply);
  }

  /// Pauses the gate and hands the pause, with the connection, to a thread that holds it
  /// until the client closes or the limit passes; the control thread goes on answering.
  void start_pause(UniqueFd& sock, const ControlPeer& peer) {
    std::erase_if(holders, [](Holder& h) {
      if (!h.done->load()) {
        return false;
      }
      h.thread.join();
      return true;
    });
    if (holders.size() >= k_max_pauses) {
      send_all(sock.get(), "error\ntoo many pauses held at once\n");
      return;
    }
    auto done = std::make_shared<std::atomic<bool>>(false);
    holders.push_back({std::thread([this, conn = std::move(sock), done, peer]() mutable {
                         hold_pause(std::move(conn), peer);
                         done->store(true);
                       }),
                       done});
  }

  void hold_pause(UniqueFd conn, const ControlPeer& peer) {
    std::unique_ptr<fuse::WriteGate::Pause> pause;
    try {
      pause = gate->pause(std::chrono::seconds(30));
    } catch (const std::exception& e) {
      spdlog::error("control: pause-writes: {}", e.what());
      send_all(conn.get(), "error\n" + std::string(e.what()) + "\n");
      return;
    }
    auto start = std::chrono::steady_clock::now();
    spdlog::info("writers paused for pid {}", peer.pid);
    if (!send_all(conn.get(), "ok\npaused\n")) {
      return; // the client is gone already
    }
    // The client half-closed its side after the request: POLLHUP comes only when it closes
    // the connection (or dies), which is the end of the pause.
    auto deadline = start + std::chrono::seconds(k_pause_limit_seconds);
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        spdlog::warn("writers resume: pid {} held the pause for {} s, the limit", peer.pid,
                     k_pause_limit_seconds);
        break;
      }
      // No events asked for on `conn`: its EOF (the half-close) is not reported, POLLHUP is.
      pollfd fds[2] = {{conn.get(), 0, 0}, {wake.get(), POLLIN, 0}};
      int rc = ::poll(fds, 2, static_cast<int>(left.count()));
      if (rc < 0 && errno == EINTR) {
        continue;
      }
      if (rc < 0 || fds[1].revents || fds[0].revents) {
        break;
      }
    }
    auto held = std::chrono::steady_clock::now() - start;
    pause.reset();
    spdlog::info("writers resumed after {} ms",
                 std::chrono::duration_cast<std::chrono::milliseconds>(held).count());
  }
};

ControlServer::ControlServer(const fs::path& state_dir, Handler handler, fuse::WriteGate* gate)
    : m_impl(std::make_unique<Impl>()) {
  m_impl->dir = open_state_dir(state_dir);
  m_impl->handler = std::move(handler);
  m_impl->gate = gate;
  // A socket left by a daemon that died: we hold daemon.lock, so nobody listens on it.
  ::unlinkat(m_impl->dir.get(), k_socket, 0);
  m_impl->listener = UniqueFd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un addr = address_in(m_impl->dir.get());
  if (!m_impl->listener ||
      ::bind(m_impl->listener.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 ||
      ::fchmodat(m_impl->dir.get(), k_socket, 0600, 0) != 0 ||
      ::listen(m_impl->listener.get(), 16) != 0) {
    throw Error("cannot listen on " + (state_dir / k_socket).string() + ": " +
                std::strerror(errno));
  }
  m_impl->wake = UniqueFd(::eventfd(0, EFD_CLOEXEC));
  if (!m_impl->wake) {
    throw Error(std::string("eventfd: ") + std::strerror(errno));
  }
  m_impl->thread = std::thread([impl = m_impl.get()] { impl->run(); });
}

ControlServer::~ControlServer() {
  uint64_t one = 1;
  (void)!::write(m_impl->wake.get(), &one, sizeof one);
  m_impl->thread.join();
  for (auto& h : m_impl->holders) { // woken by `wake` too: their pauses end now
    h.thread.join();
  }
  ::unlinkat(m_impl->dir.get(), k_socket, 0);
}

ControlServer::Handler workspace_requests(fuse::OverlayFs& fs, const fs::path& state_dir) {
  return [&fs, state_dir](const ControlPeer& peer, const std::vector<std::string>& req) {
    const std::string& op = req.front();
    auto arg = [&](size_t i) -> const std::string& {
      if (i >= req.size()) {
        throw Error("malformed request '" + op + "'");
      }
      return req[i];
    };
    // Only a directory under checkpoints/, never a path the request could aim elsewhere.
    auto checkpoint_dir = [&](const std::string& rel) -> fs::path {
      if (rel.empty()) {
        return {};
      }
      const std::string prefix = "checkpoints/";
      std::string name = rel.rfind(prefix, 0) == 0 ? rel.substr(prefix.size()) : std::string();
      if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
        throw Error("malformed checkpoint directory '" + rel + "'");
      }
      return state_dir / rel;
    };
    fuse::Caller caller{peer.uid, peer.gid, peer.pid, 0};
    if (op == "ping") {
      return std::string("pong");
    }
    if (op == "snapshot") {
      fs.snapshot_state(checkpoint_dir(arg(1)));
    } else if (op == "drop" || op == "drop-landed") {
      fs::path save = checkpoint_dir(arg(1));
      fs.drop_paths(caller, std::vector<std::string>(req.begin() + 2, req.end()), save,
                    op == "drop-landed");
    } else if (op == "rebase") {
      fs.rebase_paths(caller, std::vector<std::string>(req.begin() + 1, req.end()));
    } else if (op == "drop-all") {
      fs.drop_all(caller, checkpoint_dir(arg(1)));
    } else if (op == "restore") {
      fs.restore_state(caller, checkpoint_dir(arg(2)), checkpoint_dir(arg(1)));
    } else if (op == "disk-limit") {
      const std::string& bytes = arg(1);
      if (bytes.empty() || bytes.find_first_not_of("0123456789") != std::string::npos) {
        throw Error("malformed disk limit '" + bytes + "'");
      }
      fs.disk().set_limit(parse_size(bytes));
      spdlog::info("disk limit: {} bytes ({} in use)", fs.disk().limit(), fs.disk().used());
    } else if (op == "disk-usage") {
      fs.disk().wait_counted();
      return std::to_string(fs.disk().used()) + " " + std::to_string(fs.disk().limit());
    } else {
      throw Error("unknown request '" + op + "'", "the daemon is older than this ws: 'ws umount' "
                                                  "then 'ws mount' restarts it");
    }
    return std::string();
  };
}

} // namespace ws
