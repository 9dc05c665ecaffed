#pragma once

#include "fuse/layout.hpp"

#include <optional>
#include <string>

namespace ws {

/// What `ws apply --checkpoint N` landed, per path, while the agent kept working: the
/// workspace's base for those paths is still what the agent started from, but the real
/// tree now holds the landed version, which the agent's later work grew from. A later
/// apply uses the landed version as the base of its 3-way merge (when the real file still
/// holds it), instead of seeing "both added" or an edit of the person's.
/// Kept in the state directory (`landed.db`); contents in bases/ by hash.
class LandedVersions {
public:
  explicit LandedVersions(const fuse::WorkspaceLayout& layout) : m_layout(layout) {}
  void record(const std::string& path, const std::string& content) const;
  /// The landed version of `path`, if the real file still holds exactly that.
  std::optional<std::string> base_for(const std::string& path,
                                      const std::string& real_content) const;

private:
  fuse::WorkspaceLayout m_layout;
};

} // namespace ws
