#include "src/run/agent_socket_call.hpp"

#include "src/run/unix_socket_origin.hpp"

#include <climits>

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/net.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fstream>

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL // Linux 6.9: a pidfd for one thread, not only a process
#endif

namespace ws {

namespace {

/// At most this much of one call's data is copied (a stream send past it is partial, as a
/// send may be; no datagram is this large).
constexpr std::size_t k_max_data = 16U << 20;
/// The kernel refuses ancillary data past its optmem_max (20-128 KiB) with ENOBUFS anyway.
constexpr std::size_t k_max_control = 1U << 20;
constexpr std::uint64_t k_max_messages = 1024; // UIO_MAXIOV, sendmmsg's own cap

bool read_agent(pid_t tid, std::uint64_t at, void* out, std::size_t length) {
  if (length == 0) {
    return true;
  }
  iovec local{out, length};
  iovec remote{reinterpret_cast<void*>(at), length};
  return ::process_vm_readv(tid, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(length);
}

bool write_agent(pid_t tid, std::uint64_t at, const void* data, std::size_t length) {
  iovec local{const_cast<void*>(data), length};
  iovec remote{reinterpret_cast<void*>(at), length};
  return ::process_vm_writev(tid, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(length);
}

/// A pidfd for the thread that made the call (its fd table may be its own); before Linux
/// 6.9 one for its process.
fuse::UniqueFd open_pidfd(pid_t tid) {
  fuse::UniqueFd fd(static_cast<int>(::syscall(SYS_pidfd_open, tid, PIDFD_THREAD)));
  if (fd || errno != EINVAL) {
    return fd;
  }
  fd.reset(static_cast<int>(::syscall(SYS_pidfd_open, tid, 0)));
  if (fd || errno != EINVAL) {
    return fd;
  }
  std::ifstream status("/proc/" + std::to_string(tid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Tgid:", 0) == 0) {
      fd.reset(static_cast<int>(::syscall(SYS_pidfd_open, std::atoi(line.c_str() + 5), 0)));
      break;
    }
  }
  return fd;
}

/// The calls as the notification names them, per architecture.
struct Decoded {
  int kind = -1; // 0 connect, 1 sendto, 2 sendmsg, 3 sendmmsg
  bool compat = false;
  std::uint64_t args[6]{};
};

int x86_number(const char* name) {
  return seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86, name);
}

Decoded decode(const seccomp_notif& n) {
  Decoded d;
  std::copy(std::begin(n.data.args), std::end(n.data.args), d.args);
  if (n.data.arch != AUDIT_ARCH_I386) {
    const long native[] = {SYS_connect, SYS_sendto, SYS_sendmsg, SYS_sendmmsg};
    for (int k = 0; k < 4; ++k) {
      if (n.data.nr == native[k]) {
        d.kind = k;
      }
    }
    return d;
  }
  d.compat = true;
  for (auto& a : d.args) {
    a &= 0xffffffffU;
  }
  static const int numbers[] = {x86_number("connect"), x86_number("sendto"), x86_number("sendmsg"),
                                x86_number("sendmmsg")};
  for (int k = 0; k < 4; ++k) {
    if (n.data.nr == numbers[k]) {
      d.kind = k;
    }
  }
  if (n.data.nr == x86_number("socketcall")) {
    // The arguments lie in memory, 32 bits each.
    const std::pair<std::uint64_t, int> calls[] = {
        {SYS_CONNECT, 3}, {SYS_SENDTO, 6}, {SYS_SENDMSG, 3}, {SYS_SENDMMSG, 4}};
    for (int k = 0; k < 4; ++k) {
      if (d.args[0] != calls[k].first) {
        continue;
      }
      std::uint32_t words[6]{};
      std::uint64_t at = d.args[1];
      if (!read_agent(static_cast<pid_t>(n.pid), at, words,
                      sizeof(std::uint32_t) * calls[k].second)) {
        d.kind = -2; // EFAULT
        return d;
      }
      d.kind = k;
      std::copy(std::begin(words), std::end(words), d.args);
    }
  }
  return d;
}

std::string absolute_path(pid_t tid, const std::string& path) {
  if (path.front() == '/') {
    return path;
  }
  char cwd[PATH_MAX];
  std::string link = "/proc/" + std::to_string(tid) + "/cwd";
  ssize_t n = ::readlink(link.c_str(), cwd, sizeof(cwd) - 1);
  return (n > 0 ? std::string(cwd, static_cast<std::size_t>(n)) : std::string("?")) + "/" + path;
}

} // namespace

std::optional<CallResult> AgentSocketCall::prepare(const seccomp_notif& n, int listener,
                                                   const OnRefused& refused) {
  m_tid = static_cast<pid_t>(n.pid);
  Decoded d = decode(n);
  if (d.kind == -2) {
    return CallResult{0, EFAULT};
  }
  if (d.kind < 0 || (d.compat && d.kind >= 2)) {
    // 32-bit sendmsg/sendmmsg: their compat structures are not read here (docs/run.md).
    return CallResult{0, ENOSYS};
  }
  m_kind = static_cast<Kind>(d.kind);
  m_pidfd = open_pidfd(m_tid);
  if (!m_pidfd || seccomp_notify_id_valid(listener, n.id) != 0) {
    return CallResult{0, ESRCH}; // gone: nobody reads the answer
  }
  m_socket.reset(
      static_cast<int>(::syscall(SYS_pidfd_getfd, m_pidfd.get(), static_cast<int>(d.args[0]), 0)));
  if (!m_socket) {
    return CallResult{0, errno}; // EBADF as the call would; EPERM: not dumpable (docs/run.md)
  }
  int status = ::fcntl(m_socket.get(), F_GETFL);
  int type = 0;
  socklen_t type_length = sizeof(type);
  if (::getsockopt(m_socket.get(), SOL_SOCKET, SO_TYPE, &type, &type_length) != 0) {
    return CallResult{0, errno}; // ENOTSOCK, as the call itself would say
  }
  m_stream = type == SOCK_STREAM;
  m_blocking = status >= 0 && !(status & O_NONBLOCK);
  m_messages.emplace_back();
  Message& m = m_messages.back();
  int error = 0;
  switch (m_kind) {
  case Kind::connect: {
    auto length = static_cast<std::int32_t>(d.args[2]);
    if (length < 0 || static_cast<std::size_t>(length) > sizeof(m.name)) {
      return CallResult{0, EINVAL};
    }
    m.name_length = static_cast<socklen_t>(length);
    if (!read_agent(m_tid, d.args[1], &m.name, m.name_length)) {
      return CallResult{0, EFAULT};
    }
    error = vet_address(m, refused);
    break;
  }
  case Kind::sendto: {
    m_flags = static_cast<int>(d.args[3]);
    m.data.resize(std::min<std::uint64_t>(d.args[2], k_max_data));
    if (!read_agent(m_tid, d.args[1], m.data.data(), m.data.size())) {
      return CallResult{0, EFAULT};
    }
    auto length = static_cast<std::int32_t>(d.args[5]);
    if (d.args[4] != 0) {
      if (length < 0 || static_cast<std::size_t>(length) > sizeof(m.name)) {
        return CallResult{0, EINVAL};
      }
      m.name_length = static_cast<socklen_t>(length);
      if (!read_agent(m_tid, d.args[4], &m.name, m.name_length)) {
        return CallResult{0, EFAULT};
      }
    }
    error = vet_address(m, refused);
    break;
  }
  case Kind::sendmsg:
    m_flags = static_cast<int>(d.args[2]);
    error = read_message(d.args[1], m, refused);
    break;
  case Kind::sendmmsg: {
    m_flags = static_cast<int>(d.args[3]);
    std::uint64_t count = std::min(d.args[2] & 0xffffffffU, k_max_messages); // an unsigned int
    if (count == 0) {
      return CallResult{0, 0};
    }
    m_messages.clear();
    for (std::uint64_t i = 0; i < count; ++i) {
      Message next;
      std::uint64_t at = d.args[1] + i * sizeof(mmsghdr);
      next.length_at = at + offsetof(mmsghdr, msg_len);
      int e = read_message(at, next, refused);
      if (e != 0) {
        // Natively the messages before it are sent, then the call stops there.
        if (i == 0) {
          return CallResult{0, e};
        }
        break;
      }
      m_messages.push_back(std::move(next));
    }
    break;
  }
  }
  if (error != 0) {
    return CallResult{0, error};
  }
  if (m_flags & MSG_DONTWAIT) {
    m_blocking = false;
  }
  // Everything is read: the call must still be waiting, or the pid was another's.
  if (seccomp_notify_id_valid(listener, n.id) != 0) {
    return CallResult{0, ESRCH};
  }
  return std::nullopt;
}

int AgentSocketCall::read_message(std::uint64_t at, Message& m, const OnRefused& refused) {
  msghdr h{};
  if (!read_agent(m_tid, at, &h, sizeof(h))) {
    return EFAULT;
  }
  if (h.msg_name != nullptr && h.msg_namelen > 0) {
    m.name_length = std::min<socklen_t>(h.msg_namelen, sizeof(m.name));
    if (!read_agent(m_tid, reinterpret_cast<std::uint64_t>(h.msg_name), &m.name, m.name_length)) {
      return EFAULT;
    }
  }
  if (h.msg_iovlen > k_max_messages) {
    return EMSGSIZE;
  }
  std::vector<iovec> iov(h.msg_iovlen);
  if (!read_agent(m_tid, reinterpret_cast<std::uint64_t>(h.msg_iov), iov.data(),
                  iov.size() * sizeof(iovec))) {
    return EFAULT;
  }
  for (const iovec& v : iov) {
    std::size_t take = std::min(v.iov_len, k_max_data - m.data.size());
    std::size_t from = m.data.size();
    m.data.resize(from + take);
    if (!read_agent(m_tid, reinterpret_cast<std::uint64_t>(v.iov_base), m.data.data() + from,
                    take)) {
      return EFAULT;
    }
  }
  if (h.msg_control != nullptr && h.msg_controllen > 0) {
    if (h.msg_controllen > k_max_control) {
      return ENOBUFS;
    }
    m.control.resize(h.msg_controllen);
    if (!read_agent(m_tid, reinterpret_cast<std::uint64_t>(h.msg_control), m.control.data(),
                    m.control.size())) {
      return EFAULT;
    }
    // Descriptors passed are numbers in the agent's table: the same files, from ours.
    msghdr local{};
    local.msg_control = m.control.data();
    local.msg_controllen = m.control.size();
    for (cmsghdr* c = CMSG_FIRSTHDR(&local); c != nullptr; c = CMSG_NXTHDR(&local, c)) {
      // The agent wrote the lengths: one that runs past the buffer is refused (as the
      // kernel does), never followed.
      auto offset = static_cast<std::size_t>(reinterpret_cast<char*>(c) - m.control.data());
      if (c->cmsg_len < sizeof(cmsghdr) || c->cmsg_len > m.control.size() - offset) {
        return EINVAL;
      }
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) {
        continue;
      }
      std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      auto* fds = reinterpret_cast<unsigned char*>(CMSG_DATA(c));
      for (std::size_t i = 0; i < count; ++i) {
        int theirs = 0;
        std::memcpy(&theirs, fds + i * sizeof(int), sizeof(int));
        fuse::UniqueFd ours(static_cast<int>(::syscall(SYS_pidfd_getfd, m_pidfd.get(), theirs, 0)));
        if (!ours) {
          return EBADF;
        }
        int number = ours.get();
        std::memcpy(fds + i * sizeof(int), &number, sizeof(int));
        m.passed.push_back(std::move(ours));
      }
    }
  }
  return vet_address(m, refused);
}

int AgentSocketCall::vet_address(Message& m, const OnRefused& refused) {
  constexpr std::size_t path_at = offsetof(sockaddr_un, sun_path);
  auto* un = reinterpret_cast<sockaddr_un*>(&m.name);
  if (m.name_length <= path_at || m.name.ss_family != AF_UNIX || un->sun_path[0] == '\0') {
    return 0; // no address, another family, an unnamed or abstract unix one: as given
  }
  std::size_t room = std::min(m.name_length - path_at, sizeof(un->sun_path));
  std::string path(un->sun_path, ::strnlen(un->sun_path, room));
  // Resolved as the agent's call would: from its working directory, following symlinks.
  fuse::UniqueFd cwd;
  if (path.front() != '/') {
    std::string link = "/proc/" + std::to_string(m_tid) + "/cwd";
    cwd.reset(::open(link.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!cwd) {
      return errno == ENOENT ? ESRCH : errno;
    }
  }
  fuse::UniqueFd file(::openat(cwd ? cwd.get() : AT_FDCWD, path.c_str(), O_PATH | O_CLOEXEC));
  if (!file) {
    return errno; // ENOENT, EACCES, ENOTDIR...: what connect() would say
  }
  struct stat st {};
  if (::fstat(file.get(), &st) != 0 || !S_ISSOCK(st.st_mode)) {
    return ECONNREFUSED;
  }
  // Bound by a process of the sandbox, or made outside it (a host service by whatever
  // path, in another network namespace, or after the session started). Fails closed.
  if (unix_socket_bound_here(st.st_dev, st.st_ino) != 1) {
    if (refused) {
      refused(absolute_path(m_tid, path));
    }
    return ECONNREFUSED;
  }
  // The inode just checked, through our pinned fd: a rename or symlink swap of the agent's
  // path afterwards changes nothing.
  sockaddr_un pinned{};
  pinned.sun_family = AF_UNIX;
  int n = std::snprintf(pinned.sun_path, sizeof(pinned.sun_path), "/proc/self/fd/%d", file.get());
  std::memset(&m.name, 0, sizeof(m.name));
  std::memcpy(&m.name, &pinned, sizeof(pinned));
  m.name_length = static_cast<socklen_t>(path_at + static_cast<std::size_t>(n) + 1);
  m.pinned = std::move(file);
  return 0;
}

CallResult AgentSocketCall::send_one(Message& m, int flags) {
  msghdr h{};
  iovec v{m.data.data() + m.sent, m.data.size() - m.sent};
  h.msg_iov = &v;
  h.msg_iovlen = 1;
  if (m.name_length > 0) {
    h.msg_name = &m.name;
    h.msg_namelen = m.name_length;
  }
  if (m.sent == 0 && !m.control.empty()) {
    h.msg_control = m.control.data();
    h.msg_controllen = m.control.size();
  }
  // MSG_NOSIGNAL: a SIGPIPE is the agent's (signal_pipe), never pid 1's.
  ssize_t n = ::sendmsg(m_socket.get(), &h, flags | MSG_NOSIGNAL);
  if (n < 0) {
    return {0, errno};
  }
  return {n, 0};
}

CallResult AgentSocketCall::run(bool dontwait) {
  if (m_kind == Kind::connect) {
    Message& m = m_messages.front();
    int rc = ::connect(m_socket.get(), reinterpret_cast<sockaddr*>(&m.name), m.name_length);
    return {0, rc == 0 ? 0 : errno};
  }
  int flags = m_flags | (dontwait ? MSG_DONTWAIT : 0);
  if (m_kind == Kind::sendmmsg) {
    for (; m_done < m_messages.size(); ++m_done) {
      Message& m = m_messages[m_done];
      CallResult r = send_one(m, flags);
      if (r.error != 0) {
        // Nothing sent yet, or the rest blocks (attempt() hands it to a worker): the error.
        if (m_done == 0 || (r.error == EAGAIN && dontwait && m_blocking)) {
          return r;
        }
        break; // the messages sent so far
      }
      auto length = static_cast<unsigned>(r.value);
      write_agent(m_tid, m.length_at, &length, sizeof(length));
    }
    return {static_cast<std::int64_t>(m_done), 0};
  }
  Message& m = m_messages.front();
  for (;;) {
    CallResult r = send_one(m, flags);
    if (r.error != 0) {
      // Some bytes went already: the call says how many (as a send cut short does).
      return m.sent > 0 && r.error != EAGAIN ? CallResult{static_cast<std::int64_t>(m.sent), 0} : r;
    }
    m.sent += static_cast<std::size_t>(r.value);
    if (!m_stream || m.sent >= m.data.size() || dontwait) {
      return {static_cast<std::int64_t>(m.sent), 0};
    }
  }
}

std::optional<CallResult> AgentSocketCall::attempt() {
  if (m_blocking && m_kind == Kind::connect) {
    return std::nullopt;
  }
  CallResult r = run(true);
  if (m_blocking) {
    bool short_stream = m_kind != Kind::sendmmsg && m_stream && r.error == 0 &&
                        m_messages.front().sent < m_messages.front().data.size();
    if (r.error == EAGAIN || short_stream) {
      return std::nullopt; // the rest blocks, on a worker
    }
  } else if (r.error == EAGAIN && m_kind != Kind::sendmmsg && m_messages.front().sent > 0) {
    r = {static_cast<std::int64_t>(m_messages.front().sent), 0};
  }
  signal_pipe(r);
  return r;
}

CallResult AgentSocketCall::finish() {
  CallResult r = run(false);
  signal_pipe(r);
  return r;
}

void AgentSocketCall::signal_pipe(const CallResult& r) {
  if (r.error == EPIPE && m_kind != Kind::connect && !(m_flags & MSG_NOSIGNAL)) {
    ::syscall(SYS_pidfd_send_signal, m_pidfd.get(), SIGPIPE, nullptr, 0);
  }
}

} // namespace ws
