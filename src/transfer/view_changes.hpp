#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ws {

/// What the daemon serving a view says changed in it (the view's own writes and the real
/// tree's, docs/fsmonitor.md) since one of its tokens: the record git's fsmonitor hook reads,
/// asked through the same ioctl on the view's root.
struct ViewChanges {
  bool everything = true;         ///< the record cannot vouch for a list: anything may have changed
  std::string token;              ///< names "now" (the query's end) for the next question
  std::vector<std::string> paths; ///< directories end in '/' (the cone below them)
};

/// Asks the daemon serving the view mounted at `mountpoint` for the names changed since
/// `token` ("" or a token it did not issue: everything). More than `max_paths` names answer
/// `everything` (the caller would look at everything anyway). nullopt when no daemon answers
/// there (not mounted, an older daemon, a stale mount).
std::optional<ViewChanges> view_changes_since(const std::filesystem::path& mountpoint,
                                              const std::string& token, size_t max_paths);

} // namespace ws
