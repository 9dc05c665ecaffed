#pragma once

// The agent's private git state (docs/agent-git.md): reading it without trusting it.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct git_repository;

namespace ws::gitbridge {

/// Where the real repository of a working tree keeps its git state.
struct RealGitDirs {
  std::filesystem::path git_dir;    ///< this working tree's (a linked worktree's own one)
  std::filesystem::path common_dir; ///< objects, refs, config, hooks (== git_dir but for worktrees)
};
RealGitDirs real_git_dirs(const std::filesystem::path& worktree);

/// One commit, for a person.
struct CommitInfo {
  std::string id; ///< 40 hex digits
  std::vector<std::string> parents;
  std::string author_name, author_email;
  int64_t author_time = 0;     ///< seconds since the epoch
  int author_offset = 0;       ///< minutes east of UTC
  std::string message;         ///< whole, as recorded
  std::string summary() const; ///< the first line
};

/// The agent's HEAD: the branch it is on ("refs/heads/feature"; empty when detached) and the
/// commit it names (empty on an unborn branch).
struct AgentHead {
  std::string ref;
  std::string id;
  std::string branch() const; ///< "feature", or "" when detached
};

/// Reads the agent's git directory (`upper/.git`) and the objects it shares with the real
/// repository. Never opens it as a repository: libgit2 would read the agent's config (an
/// include could name a FIFO). HEAD, loose refs and packed-refs are parsed here, regular files
/// only, without following symlinks; objects come from libgit2's loose and pack backends on
/// the agent's objects directory stacked on the real repository's object database.
/// One thread at a time.
class AgentGit {
public:
  AgentGit(const std::filesystem::path& agent_git_dir, const std::filesystem::path& real_common);
  ~AgentGit();
  AgentGit(const AgentGit&) = delete;
  AgentGit& operator=(const AgentGit&) = delete;

  AgentHead head() const;
  /// The object `ref` ("refs/heads/x", "HEAD") names, following symbolic refs; nullopt if none.
  std::optional<std::string> resolve(const std::string& ref) const;
  /// Every ref of the state with the object it points to (loose ones win over packed ones),
  /// HEAD included; symbolic refs resolved.
  std::vector<std::pair<std::string, std::string>> refs() const;
  /// Commits reachable from `tip` and not from `start` (either may be empty), oldest first
  /// (topological, as `git rev-list --reverse --topo-order`).
  std::vector<CommitInfo> commits_between(const std::string& start, const std::string& tip) const;
  /// How many commits of `start`'s history `tip` does not have (a reset or rebase dropped them),
  /// with the newest few of them.
  std::vector<CommitInfo> dropped_from(const std::string& start, const std::string& tip,
                                       size_t max) const;
  CommitInfo commit(const std::string& id) const;
  bool has_object(const std::string& id) const;

  /// A path in a commit's tree: its blob (or tree, or gitlink) id and git mode; mode 0 when
  /// the commit has nothing there (or `commit` is empty).
  struct Entry {
    std::string id;
    uint32_t mode = 0;
    bool operator==(const Entry&) const = default;
  };
  Entry entry(const std::string& commit, const std::string& path) const;
  /// The content of blob `id`.
  std::string blob(const std::string& id) const;
  /// The commit both histories share last ("" if none).
  std::string merge_base(const std::string& a, const std::string& b) const;
  /// Paths whose entry differs between the trees of commits `from` and `to`.
  std::vector<std::string> changed_paths(const std::string& from, const std::string& to) const;
  /// The repository object over these objects: no config, no refs (for diffs and trees).
  git_repository* repo() const;
  /// The agent's own objects directory (`upper/.git/objects`).
  std::filesystem::path objects_dir() const;
  /// From now on objects written through repo() stay in memory (a dry run: `ws sync --check`).
  void keep_new_objects_in_memory();

private:
  struct Impl;
  std::optional<std::string> read_ref_file(const std::string& rel) const;
  std::optional<std::string> packed(const std::string& ref) const;
  std::unique_ptr<Impl> m;
};

/// git's id of `content` as a blob.
std::string blob_id(const std::string& content);

/// "1a2b3c4" from a 40-digit id.
std::string short_id(const std::string& id);

} // namespace ws::gitbridge
