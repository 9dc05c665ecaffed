#pragma once

#include "fuse/unique_fd.hpp"

#include <sys/socket.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

struct seccomp_notif;

namespace ws {

/// What the agent's call returns: `error` (an errno) or else `value`.
struct CallResult {
  std::int64_t value = 0;
  int error = 0;
};

/// One connect(), sendto(), sendmsg() or sendmmsg() of the agent's, stopped by seccomp
/// (socket_supervisor.hpp), performed by pid 1 in its place. prepare() copies, once, all it
/// needs from the agent: the socket itself (pidfd_getfd: the very open file description, so
/// a dup2() in another thread afterwards changes nothing), the address and the data; the
/// agent's memory is never read again, and the kernel never reads it (no "continue"). A
/// pathname unix address is resolved as the agent would (its cwd), pinned (O_PATH), and
/// refused with ECONNREFUSED unless a socket of the sandbox's network namespace is bound
/// there (unix_socket_origin.hpp). Abstract and unnamed unix addresses and other families
/// are used as given.
class AgentSocketCall {
public:
  /// Called with the absolute path of each refused socket.
  using OnRefused = std::function<void(const std::string&)>;

  /// Reads the call. A result: the call ends here (bad fd, bad address, refused, the
  /// agent gone); none: perform it.
  std::optional<CallResult> prepare(const seccomp_notif& n, int listener, const OnRefused& refused);
  /// Whether performing it may block (a connect on a blocking socket, a send on one without
  /// MSG_DONTWAIT): then the supervisor gives it to a worker thread.
  bool may_block() const { return m_blocking; }
  /// Performs the call without blocking (a send adds MSG_DONTWAIT): the result, or none when
  /// it would block and may (then finish() on a worker).
  std::optional<CallResult> attempt();
  /// Performs the rest of the call, blocking as the agent's would.
  CallResult finish();

private:
  enum class Kind { connect, sendto, sendmsg, sendmmsg };
  struct Message {
    sockaddr_storage name{};
    socklen_t name_length = 0;
    fuse::UniqueFd pinned;     ///< the socket file a pathname address names
    std::vector<char> data;    ///< the iovecs' bytes, in one piece
    std::vector<char> control; ///< ancillary data, SCM_RIGHTS translated to our fds
    std::vector<fuse::UniqueFd> passed;
    std::uint64_t length_at = 0; ///< sendmmsg: where the agent's msg_len is
    std::size_t sent = 0;        ///< bytes already sent (a partial stream send)
  };

  int read_message(std::uint64_t at, Message& m, const OnRefused& refused);
  int vet_address(Message& m, const OnRefused& refused);
  CallResult send_one(Message& m, int flags);
  CallResult run(bool dontwait);
  void signal_pipe(const CallResult& r);

  Kind m_kind = Kind::connect;
  pid_t m_tid = 0;
  fuse::UniqueFd m_pidfd;
  fuse::UniqueFd m_socket;
  bool m_blocking = false;
  bool m_stream = false;
  int m_flags = 0;
  std::vector<Message> m_messages;
  std::size_t m_done = 0; ///< sendmmsg: messages sent
};

} // namespace ws
