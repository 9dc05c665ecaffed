#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace ws {

/// What of the person's machine the agent sees besides the view (docs/run.md, "What the
/// agent can read"). Everything not named here is the read-only host, minus the private
/// places below.
struct HostExposure {
  /// Empty tmpfs inside (writable, gone after the session): /home, /root, $HOME, /tmp,
  /// /var/tmp, /run (and /var/run if it is not a link to it).
  std::vector<std::filesystem::path> private_dirs;
  /// Shown read-only inside the private ones: harmless dot files of the home (git's ignore
  /// and attributes files, editor settings), toolchains installed in it (~/.cargo/bin, ~/.rustup,
  /// ~/.nvm, ~/.pyenv, ~/.local/bin ...), PATH directories, the agent's own program.
  std::vector<std::filesystem::path> read_only;
  /// Covered by /dev/null: host secrets outside the home (/etc/shadow, ssh host keys...).
  std::vector<std::filesystem::path> masked;
  /// Every unix socket the host listens on that would otherwise show (/proc/net/unix at the
  /// start). Covered by /dev/null only under --network=host: in the sandbox's own network
  /// namespace pid 1 refuses every socket made outside (docs/run.md), whenever it was made,
  /// and a cover of a socket its service removes meanwhile would fail the session's start.
  std::vector<std::filesystem::path> host_sockets;
  /// Files ws writes for the session, read-only inside at these paths: the agent's
  /// ~/.gitconfig (git_home_config.hpp), in place of the person's.
  std::vector<std::pair<std::filesystem::path, std::string>> generated;
};

/// The plan for a session whose agent runs `command` (looked up in PATH as the agent will).
HostExposure plan_host_exposure(const std::vector<std::string>& command);

/// The paths of the host's listening unix sockets (/proc/net/unix), abstract ones excluded.
std::vector<std::filesystem::path> host_socket_paths();

} // namespace ws
