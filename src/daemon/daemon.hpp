#pragma once

#include "src/workspace/workspace.hpp"

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace ws {

enum class ViewState {
  Unmounted, ///< no daemon, no mount
  Mounted,   ///< a live daemon serves the view
  Starting,  ///< a live daemon, the mount not up yet
  Stale,     ///< the mount is there but its daemon died (ENOTCONN)
  /// Unmounted with --force while processes were inside: the daemon serves them (their cwd,
  /// their open files) until they leave, then exits.
  Detached,
};

struct ViewStatus {
  ViewState state = ViewState::Unmounted;
  pid_t pid = 0; ///< the daemon's, when alive
  /// The live daemon's build (build_identity(), recorded in daemon.lock); "" when it recorded
  /// none: a ws from before builds were recorded (then `this_build` is false) or a daemon
  /// still writing its lock file.
  std::string build;
  /// False when a live daemon is from another build of ws than this process: a ws rebuilt or
  /// upgraded while the view stayed mounted. Its fixes do not reach the view until it is
  /// served again.
  bool this_build = true;
};

/// Looks at the lock file and the mountpoint; never changes anything.
ViewStatus probe_view(const Workspace& w);

/// Says on stderr, once per workspace and process, when the daemon serving `w` is from
/// another build of ws than this one, with the fix (serve the view again). Commands that
/// use the daemon call it (ensure_mounted, the control requests, ws status, ws log).
void warn_if_other_build(const Workspace& w);

/// Returns the mountpoint of a served view, starting the daemon if none runs and cleaning
/// up the mount of a daemon that died. Throws Error with a hint on failure.
std::filesystem::path ensure_mounted(const Workspace& w, bool debug);

/// Unmounts the view and waits (up to a minute, saying so after 2 s) for the daemon to
/// exit. `force` detaches a busy mount: processes still inside keep their cwd and open files,
/// served by the daemon until they leave; it does not wait for them. Returns false if it was
/// not mounted.
bool unmount_view(const Workspace& w, bool force);

/// Asks a running daemon to commit its queued journal entries, and waits (up to 2 s).
void flush_journal(const Workspace& w);

/// Checks that this process can mount FUSE filesystems; throws Error saying how to fix it.
void check_fuse_available();

/// Sets the disk limit of the mounted view of `w`: `bytes` the agent's data in the workspace
/// may take, 0 = unlimited (docs/filesystem.md, "Disk limit"). The view must be mounted
/// (else throws Error saying so). Lasts until the daemon exits; the next mount starts from
/// ws.maxDisk or the default again.
void set_disk_limit(const Workspace& w, std::uint64_t bytes);
/// A size as people write it: "10G", "500M", "4096" (k, m, g, t: powers of 1024, any case).
/// Throws ws::Error on junk, with a hint.
std::uint64_t parse_size(const std::string& text);

/// What `ws __daemon` needs; see run_daemon.
struct DaemonArgs {
  std::filesystem::path workspace_dir;
  std::filesystem::path lower;
  std::filesystem::path mountpoint;
  int ready_fd = -1;
  bool foreground = false;
  bool debug = false;
  /// `--max-disk BYTES`: the disk limit to start with (else ws.maxDisk, else the default).
  std::optional<std::uint64_t> max_disk;
};

/// The daemon process: takes the workspace lock, mounts, reports "ok" (or the error) on
/// `ready_fd`, serves until unmounted. Returns the process exit code.
int run_daemon(const DaemonArgs& args);

} // namespace ws
