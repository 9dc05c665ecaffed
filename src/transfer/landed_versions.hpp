#pragma once

#include "fuse/layout.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ws {

/// What `ws apply` landed, per path. The workspace's base for a path is what the agent
/// started from; after ws lands a version in the real tree, the agent's later work grows from
/// that version (or replaces it: a new file renamed over it). A later apply uses the landed
/// version as the base of its 3-way merge while the real file still holds exactly it, so what
/// ws wrote is never mistaken for the person's edit ("both added", "you changed").
/// Kept in the state directory (`landed.db`): a hash per path; the content is the real file's.
class LandedVersions {
public:
  explicit LandedVersions(const fuse::WorkspaceLayout& layout) : m_layout(layout) {}
  /// Records (path, content) pairs in one transaction.
  void record(const std::vector<std::pair<std::string, const std::string*>>& landed) const;
  /// The landed version of `path`, if the real file still holds exactly that.
  std::optional<std::string> base_for(const std::string& path,
                                      const std::string& real_content) const;

private:
  fuse::WorkspaceLayout m_layout;
};

} // namespace ws
