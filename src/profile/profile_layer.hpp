#pragma once

// A profile's config directories as workspaces (docs/run.md, "The config layer"): the lower
// is the person's real directory (only ever read), the upper a layer kept per profile, so the
// agent's logins, transcripts and settings persist from session to session and nothing lands
// in the real home. The same overlay, daemon and journal as a project's view.

#include "fuse/unique_fd.hpp"
#include "src/profile/profile.hpp"
#include "src/workspace/workspace.hpp"

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace ws {

/// One config directory of a profile.
struct ConfigLayer {
  std::filesystem::path target; ///< the real directory: where the agent sees the layer
  Workspace ws;                 ///< ws.repo is the lower: `target`, or an empty stand-in
};

/// Where a profile's state lives: $XDG_DATA_HOME/ws/profiles/NAME.
std::filesystem::path profile_state_dir(const std::string& name);

/// The layers of `p`'s config directories (not created, not mounted).
std::vector<ConfigLayer> config_layers(const Profile& p);

/// The layer whose target is `path` or holds it, with the path relative to it ("" for the
/// directory itself); throws Error naming the profile's directories otherwise.
std::pair<ConfigLayer, std::string> layer_of(const Profile& p, const std::filesystem::path& path);

/// Where `p` keeps `cache` (one of p.caches) from session to session.
std::filesystem::path cache_dir(const Profile& p, const std::filesystem::path& cache);

/// One `ws run` session's use of a profile: its layers created and mounted, seeds copied in,
/// its cache directories made. Several sessions may use one profile at once (one daemon per
/// layer serves them all). The layers stay mounted after the session, as a project's view
/// does, so the next session starts without mounting them (`ws profile umount` ends them).
class ProfileSession {
public:
  explicit ProfileSession(const Profile& p);
  ~ProfileSession();
  ProfileSession(const ProfileSession&) = delete;
  ProfileSession& operator=(const ProfileSession&) = delete;

  const Profile& profile() const { return m_profile; }
  const std::vector<ConfigLayer>& layers() const { return m_layers; }
  /// What the sandbox binds writable: (source on the host, path inside), layers and caches.
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> binds() const;
  /// The seeds copied into the layers this time (dest paths).
  const std::vector<std::filesystem::path>& seeded() const { return m_seeded; }

private:
  /// Alone with the layers: a daemon serving a lower that is no longer the right one (the
  /// person made or removed the real directory since it started) is stopped, to be mounted
  /// afresh.
  void remount_outdated();

  Profile m_profile;
  std::vector<ConfigLayer> m_layers;
  std::vector<std::filesystem::path> m_seeded;
  fuse::UniqueFd m_users; ///< flock'ed shared while the session runs (sessions.lock)
};

/// Unmounts the layers of `p`: false if none was mounted. Throws Error while a `ws run`
/// session uses the profile.
bool unmount_layers(const Profile& p);

} // namespace ws
