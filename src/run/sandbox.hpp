#pragma once

#include "src/run/agent_config_guard.hpp"
#include "src/run/host_exposure.hpp"
#include "src/run/sandbox_env.hpp"

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace ws {

/// Where and how a confined agent runs (docs/run.md has the threat model).
struct SandboxSpec {
  std::filesystem::path project; ///< the real tree's path: inside, the view is mounted here
  std::filesystem::path view;    ///< the workspace's view (its mountpoint)
  std::filesystem::path cwd;     ///< working directory inside (same path as outside)
  std::vector<std::filesystem::path> hidden;   ///< empty tmpfs inside: state, views
  std::vector<std::filesystem::path> writable; ///< checked --writable paths
  std::vector<std::filesystem::path> readable; ///< checked --read paths
  HostExposure host;                           ///< private home and dirs, masked paths
  GuardedPaths guarded; ///< code-running files in writable dirs: read-only inside
  /// Writable binds from elsewhere (host source, path inside): a profile's config layers
  /// and caches (src/profile), shown at the real directories' paths.
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> binds;
  bool network = true;       ///< slirp4netns outside route; false: only a private loopback
  bool host_network = false; ///< --network=host: the host's network namespace, not a private one
  std::string resolv_conf;   ///< the sandbox's /etc/resolv.conf ("": the host's file as it is)
  EnvList env;               ///< the agent's whole environment
  std::vector<std::string> command;
  std::filesystem::path init; ///< the ws binary (runs as the sandbox's pid 1)
  /// git's fsmonitor hook (docs/fsmonitor.md): shown read-only at its own path, so the
  /// view's core.fsmonitor works inside too (a home or /tmp holding ws is private there).
  std::filesystem::path fsmonitor_hook;
  long max_procs = 0; ///< process limit of the session; 0: none
  /// Size cap of each private tmpfs that holds the agent's files (/tmp, /var/tmp, the one
  /// holding the home, /dev/shm); the others (/run, state and views) get the smaller of it
  /// and k_small_tmpfs. 0: no cap (tmpfs's own default, half the RAM each).
  std::uint64_t tmp_size = 0;
  std::filesystem::path probe_cache; ///< where a passed fail-closed probe is remembered
};

/// The cap of the private tmpfs that hold no files of the agent's as a rule: /run (sockets,
/// pid files, $XDG_RUNTIME_DIR), /home or /root when the home is not in it, state and views.
constexpr std::uint64_t k_small_tmpfs = 64ULL << 20;

/// The default of SandboxSpec::tmp_size (`ws.maxTmp`): an eighth of the RAM, at least 256 MiB.
/// The four large private tmpfs then hold at most half the RAM in all.
std::uint64_t default_tmp_size();

/// Called once the sandbox exists, before the agent starts, with the host pid of its pid 1:
/// every process of the session lives in that process's pid namespace.
using OnStarted = std::function<void(pid_t)>;

/// The pipe ends the sandbox's pid 1 syncs with ws run on (sandbox_init.hpp): it writes a
/// byte to `ready` once it runs, then waits for one on `go` before it starts the agent.
struct SyncFds {
  int go = -1;
  int ready = -1;
  int socket_filter = -1; ///< socket_supervision_filter(), which pid 1 loads on the agent
};

/// The bwrap command line for `spec`. `seccomp_fd` holds the BPF program (seccomp_filter.hpp);
/// `info_fd` is bwrap's --info-fd, `resolv_fd` the data of the sandbox's resolv.conf (-1:
/// none). `probe`: /bin/true instead of the agent, no pid 1. `generated_fds`: the data of
/// each of `spec.host.generated`, in order (none: those files are left out).
std::vector<std::string> bwrap_command(const std::string& bwrap, const SandboxSpec& spec,
                                       int seccomp_fd, int info_fd, SyncFds sync, int resolv_fd,
                                       bool probe = false,
                                       const std::vector<int>& generated_fds = {});

/// Runs `spec` confined and returns its exit status (128+N when killed by signal N). Fails
/// closed: throws Error saying why and what to do if the confinement cannot be set up (no
/// user namespaces, no trusted bubblewrap, no network stack); never runs the command
/// unconfined. SIGINT/SIGQUIT/SIGTERM/SIGHUP to ws run go to the agent; after SIGTERM or
/// SIGHUP the agent has 5 s, then the sandbox is killed; either way this returns.
/// `created` runs as soon as the sandbox's namespaces exist, while bwrap still builds its
/// mounts (work that can overlap: recording the session); `started` once bwrap has finished,
/// before the agent starts (the network stack attaches then: nothing of bwrap's set-up races
/// it). `read_only_failures`: paths the agent said it could not write (from its output).
int run_confined(const SandboxSpec& spec, const OnStarted& created, const OnStarted& started,
                 std::vector<std::string>* read_only_failures = nullptr);

/// Runs the command unconfined, in the view (`ws run --no-confine`).
int run_unconfined(const SandboxSpec& spec);

} // namespace ws
