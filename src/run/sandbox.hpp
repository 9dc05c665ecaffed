#pragma once

#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ws {

/// Where and how a confined agent runs (see docs/run.md).
struct SandboxSpec {
  std::filesystem::path project; ///< the real tree's path: inside, the view is mounted here
  std::filesystem::path view;    ///< the workspace's view (its mountpoint)
  std::filesystem::path cwd;     ///< working directory inside (same path as outside)
  std::vector<std::filesystem::path> hidden;   ///< replaced by empty tmpfs: state, views
  std::vector<std::filesystem::path> writable; ///< stay writable (--writable, [ws] writable)
  bool network = true;                         ///< false: only a private loopback
  std::vector<std::pair<std::string, std::string>> env; ///< set inside
  std::vector<std::string> command;
};

/// Called once the sandbox is up, with the pid (in ws's pid namespace) of its first process:
/// every process of the session lives in that process's pid namespace.
using OnStarted = std::function<void(pid_t)>;

/// bubblewrap's path; throws Error (fail closed, with what to install) if there is none.
std::string find_bwrap();

/// The bwrap command line for `spec`. `seccomp_fd` holds the BPF program that refuses
/// terminal input injection (TIOCSTI, TIOCLINUX).
std::vector<std::string> bwrap_command(const std::string& bwrap, const SandboxSpec& spec,
                                       int seccomp_fd, int info_fd = -1);

/// Runs `spec` confined and returns its exit status (128+N when killed by signal N). Fails
/// closed: throws Error saying why and what to do if the confinement cannot be set up (no
/// user namespaces, no bubblewrap); never runs the command unconfined.
int run_confined(const SandboxSpec& spec, const OnStarted& started);

/// Runs the command unconfined, in the view (`ws run --no-confine`).
int run_unconfined(const SandboxSpec& spec);

} // namespace ws
