#pragma once

#include <memory>
#include <string>
#include <vector>

namespace ws {

/// pid 1's supervision of the agent's sockets (docs/run.md, "What the agent can reach"). Its
/// thread, started before the filter is loaded and so not under it, receives each connect(),
/// sendto() with an address, sendmsg() and sendmmsg() of the agent's (seccomp user
/// notification) and performs it in the agent's place (agent_socket_call.hpp): a pathname
/// unix socket made outside the sandbox (a host service's, by any path, in any network
/// namespace, made whenever) gets ECONNREFUSED. Calls that may block (a connect on a
/// blocking socket, a send whose buffer is full) go to worker threads, so one slow peer
/// stalls no other call. pid 1 cannot be ptraced or signalled by the agent; if it died, the
/// calls would fail (ENOSYS): closed, never open.
class SocketSupervisor {
public:
  SocketSupervisor();
  ~SocketSupervisor();
  SocketSupervisor(const SocketSupervisor&) = delete;
  SocketSupervisor& operator=(const SocketSupervisor&) = delete;

  /// Loads the BPF program in `bpf_fd` (socket_supervision_filter()) on the calling thread
  /// (so on the processes it starts, not on the supervisor's thread) and supervises it.
  /// Returns "" or why it could not (the caller must then not start the agent).
  std::string supervise_calling_thread(int bpf_fd);

  /// The sockets refused so far, "PATH (Nx)", for pid 1's last words.
  std::vector<std::string> refused() const;

  struct State;

private:
  std::shared_ptr<State> m_state; // shared with its threads, which outlive nothing but it
};

} // namespace ws
