#pragma once

#include "filters/symlink_aliases.hpp"
#include "fuse/changes.hpp"
#include "gitbridge/commit_replay.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ws {

namespace gitbridge {
class RealRepo;
}

/// Reads the target of the symlink at a repository-relative path; nullopt if none stands there.
using ReadLink = std::function<std::optional<std::string>(const std::string&)>;

/// The symlinks a path may be reached through once the transfer is done, for
/// filters::decide_reachable: the person's (every symlink in the real index, read in the real
/// tree with `real_target`; one the agent deleted or retargeted still counts, in case its
/// change stays behind) and the agent's (`agent`). Costs the index's symlinks and the agent's,
/// never a walk of the tree; a symlink the person never added to git is not known.
filters::SymlinkAliases symlink_aliases(gitbridge::RealRepo& repo, const ReadLink& real_target,
                                        std::vector<filters::SymlinkFact> agent);

/// The agent's symlinks among the workspace's changes, their targets read with `view_target`.
std::vector<filters::SymlinkFact> changed_symlinks(const std::vector<fuse::Change>& changes,
                                                   const ReadLink& view_target);
/// The agent's symlinks among its commits' changes.
std::vector<filters::SymlinkFact>
changed_symlinks(const std::vector<std::vector<gitbridge::CommitChange>>& commits);

} // namespace ws
