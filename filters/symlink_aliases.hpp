#pragma once

// A file is judged under every name it will be reachable by. A directory symlink makes
// everything below its target reachable under the link's name too: `.claude -> cfg` makes
// `cfg/settings.json` Claude Code's `.claude/settings.json`, `.husky -> h` makes `h/pre-commit`
// a git hook. The rules match names, so each changed path is also judged under those other
// names, and a symlink standing where a guarded place is gets that place's verdict itself.
// Pure: the caller gathers the symlinks (from the real index and the agent's changes).

#include "filters/policy.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ws::filters {

/// One symlink of the project, in the real tree or as the agent left it. The same link may
/// be given twice (the person's target and the agent's): both count.
struct SymlinkFact {
  std::string link;   ///< repository-relative path of the symlink
  std::string target; ///< what readlink says
};

/// Another name a path will be reachable by, and the symlinks that make it so.
struct AliasName {
  std::string path;             ///< ".claude/settings.json"
  std::vector<std::string> via; ///< ".claude -> cfg", one per symlink passed, outermost last
};

class SymlinkAliases {
public:
  /// At most this many other names per path, and symlinks within symlinks this deep.
  static constexpr size_t k_max_aliases = 16;
  static constexpr size_t k_max_depth = 4;

  SymlinkAliases() = default;
  /// Resolves each link's target within the project (relative to the link's directory,
  /// through the other links given, at most 40 links deep as the kernel follows): a target
  /// that is absolute, leaves the project or cannot be resolved makes no alias (such links are
  /// withheld by decide() anyway).
  explicit SymlinkAliases(const std::vector<SymlinkFact>& links);

  bool empty() const { return m_by_target.empty(); }

  /// Every other name `path` is reachable by through the links: `path` at or below a link's
  /// resolved target, read under the link's name (and so on through links within links).
  std::vector<AliasName> aliases_of(std::string_view path) const;

  /// Where the link at `link` may lead, resolved (repository-relative, "" for the top); empty
  /// when it leads nowhere inside the project. For tests.
  std::vector<std::string> resolved(const std::string& link) const;

private:
  struct Link {
    std::string path;
    std::string shown; ///< "link -> target", for reasons
  };
  std::vector<std::string> resolved_target(const std::string& link,
                                           const std::string& target) const;
  void walk(std::vector<std::string> parts, const std::vector<std::string>& rest, size_t links,
            size_t& steps, std::vector<std::string>& out) const;

  std::unordered_map<std::string, std::vector<std::string>> m_targets; ///< link -> targets
  std::unordered_map<std::string, std::vector<Link>> m_by_target;      ///< resolved target -> links
};

/// decide(), and also: the same change judged under every other name its path (or a rename's
/// old path) will be reachable by, and for a symlink, judged as what a tool would read through
/// it (`.husky -> h` stands for `.husky/`, where git's hooks run what they find). The strongest
/// verdict wins; a reason found through a symlink names it: "reachable as
/// .claude/settings.json through the symlink .claude -> cfg: an agent CLI runs ...".
Decision decide_reachable(const PathFacts& facts, const PolicyConfig& config,
                          const SymlinkAliases& aliases);

} // namespace ws::filters
