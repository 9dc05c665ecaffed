// The symlink facts the policy needs to judge a path under every name it will have.
#include "src/transfer/symlink_facts.hpp"

#include "gitbridge/real_repo.hpp"

#include <sys/stat.h>

namespace ws {

filters::SymlinkAliases symlink_aliases(gitbridge::RealRepo& repo, const ReadLink& real_target,
                                        std::vector<filters::SymlinkFact> agent) {
  std::vector<filters::SymlinkFact> links = std::move(agent);
  for (const std::string& path : repo.symlinks()) {
    if (std::optional<std::string> target = real_target(path)) {
      links.push_back({path, std::move(*target)});
    }
  }
  return filters::SymlinkAliases(links);
}

std::vector<filters::SymlinkFact> changed_symlinks(const std::vector<fuse::Change>& changes,
                                                   const ReadLink& view_target) {
  std::vector<filters::SymlinkFact> out;
  for (const fuse::Change& c : changes) {
    if (c.kind != fuse::ChangeKind::Deleted && S_ISLNK(c.mode)) {
      if (std::optional<std::string> target = view_target(c.path)) {
        out.push_back({c.path, std::move(*target)});
      }
    }
  }
  return out;
}

std::vector<filters::SymlinkFact>
changed_symlinks(const std::vector<std::vector<gitbridge::CommitChange>>& commits) {
  std::vector<filters::SymlinkFact> out;
  for (const auto& changes : commits) {
    for (const gitbridge::CommitChange& c : changes) {
      if (c.after_mode == 0120000) {
        out.push_back({c.path, c.after.content});
      }
    }
  }
  return out;
}

} // namespace ws
