#pragma once

// The daemon's control channel: a Unix socket `control.sock` in the workspace's state
// directory, through which the CLI asks the daemon serving a view to change the state it
// serves (reset, restore) or to copy it consistently (checkpoint). A request is a list of
// strings; the daemon answers "ok" or an error with a hint.

#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ws {

namespace fuse {
class OverlayFs;
}

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

/// The daemon's end: listens on `state_dir`/control.sock (replacing a dead daemon's socket:
/// the caller holds daemon.lock) and answers one request at a time on its own thread. Only
/// the daemon's own user and root may ask. Stops, and removes the socket, on destruction.
class ControlServer {
public:
  /// Answers a request; throws Error (or anything) to answer with an error.
  using Handler = std::function<std::string(const ControlPeer&, const std::vector<std::string>&)>;
  ControlServer(const std::filesystem::path& state_dir, Handler handler);
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
