#pragma once

// The daemon's control channel: a Unix socket `control.sock` in the workspace's state
// directory, through which the CLI asks the daemon serving a view to change the state it
// serves (reset, restore) or to copy it consistently (checkpoint). A request is a list of
// strings; the daemon answers "ok" or an error with a hint.

#include "fuse/unique_fd.hpp"

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ws {

namespace fuse {
class OverlayFs;
class WriteGate;
} // namespace fuse

/// Who sent a control request (SO_PEERCRED).
struct ControlPeer {
  pid_t pid = 0;
  uid_t uid = 0;
  gid_t gid = 0;
};

/// Sends `request` (an operation, then its arguments) to the daemon listening in
/// `state_dir` and waits for its answer. Returns nullopt when no daemon listens there;
/// throws Error with the daemon's message and hint when it failed.
std::optional<std::string> control_call(const std::filesystem::path& state_dir,
                                        const std::vector<std::string>& request);

/// Asks the daemon listening in `state_dir` to pause the agent's writers ("pause-writes")
/// and waits up to `wait` for it to say they are. Returns the connection: the writers stay
/// paused until it is closed (or the daemon's limit passes). nullopt when no daemon listens;
/// throws Error when the daemon refuses or does not answer in time.
std::optional<fuse::UniqueFd> control_pause_writes(const std::filesystem::path& state_dir,
                                                   std::chrono::seconds wait);

inline constexpr const char* k_pause_request = "pause-writes";

/// How long a "pause-writes" holds the agent's writers at most, whatever its client does.
inline constexpr int k_pause_limit_seconds = 120;

/// The daemon's end: listens on `state_dir`/control.sock (replacing a dead daemon's socket:
/// the caller holds daemon.lock) and answers one request at a time on its own thread. Only
/// the daemon's own user and root may ask. Stops, and removes the socket, on destruction.
///
/// With a `gate`, it also answers "pause-writes": it pauses the gate (waiting for the changes
/// already running), answers "ok\npaused\n", and holds the pause on a thread of its own
/// until the client closes the connection or k_pause_limit_seconds pass; other requests
/// are answered meanwhile (docs/filesystem.md, "Pausing writers").
class ControlServer {
public:
  /// Answers a request; throws Error (or anything) to answer with an error.
  using Handler = std::function<std::string(const ControlPeer&, const std::vector<std::string>&)>;
  ControlServer(const std::filesystem::path& state_dir, Handler handler,
                fuse::WriteGate* gate = nullptr);
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

/// The requests a workspace's daemon answers, carried out on `fs`:
///   snapshot SAVE                 copy the state into SAVE
///   drop SAVE PATH...             drop PATHs (SAVE: snapshot first, "" for none)
///   drop-all SAVE                 drop every change
///   restore SAVE CHECKPOINT       replace the state with CHECKPOINT's
///   disk-limit BYTES              set the disk limit (0: none)
///   disk-usage                    answer "USED LIMIT" (bytes)
/// SAVE and CHECKPOINT are "checkpoints/<name>" inside `state_dir`, nothing else.
ControlServer::Handler workspace_requests(fuse::OverlayFs& fs,
                                          const std::filesystem::path& state_dir);

} // namespace ws
