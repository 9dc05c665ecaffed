#pragma once

#include "fuse/layout.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace ws {

/// A named workspace of one repository: where its state and its view live.
///   state:  $XDG_DATA_HOME/ws/<repo-key>/<name>/   (~/.local/share/ws/... without it)
///   view:   $XDG_RUNTIME_DIR/ws/<repo-key>/<name>  (/run/user/UID, else /tmp/ws-UID)
/// <repo-key> is the repository's directory name and a hash of its canonical path, so two
/// clones never share state and the key stays readable.
struct Workspace {
  std::filesystem::path repo; ///< top of the real working tree (canonical)
  std::string name;
  fuse::WorkspaceLayout layout;
  std::filesystem::path mountpoint;

  static Workspace locate(const std::filesystem::path& repo, const std::string& name);
  bool exists() const;
  /// Creates the state directory; throws Error if it exists.
  void create() const;
  /// Deletes the state directory (even read-only trees the agent left).
  void remove() const;
};

/// Names of every workspace of `repo`, sorted.
std::vector<std::string> list_workspaces(const std::filesystem::path& repo);

/// Every repository that has a workspace in data_root() (as recorded when the workspace
/// was made; it may be gone since), sorted.
std::vector<std::filesystem::path> repositories_with_workspaces();

/// Throws Error unless `name` is a usable workspace name ([A-Za-z0-9._-], not starting
/// with '.' or '-', at most 64 bytes).
void validate_name(const std::string& name);

std::filesystem::path data_root();
std::filesystem::path runtime_root();

} // namespace ws
