#pragma once

#include "gitbridge/index_stage.hpp"
#include "gitbridge/merge.hpp"
#include "gitbridge/patch.hpp"
#include "src/transfer/change_content.hpp"
#include "src/transfer/real_tree_writer.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace ws {

/// How one path of the real tree is to become the agent's version (shared by `ws apply` and
/// `ws review`): written, already so, merged with the person's edits, or a conflict.
struct LandingResult {
  enum class How { Write, AlreadyThere, Merged, Conflict } how = How::Write;
  std::vector<Landing> landings; ///< what the real tree's paths become
  std::string conflict;          ///< why not, for a person
  std::vector<gitbridge::ConflictHunk> hunks;
  std::string markers; ///< merged text with conflict markers (text conflicts)
  /// A symlink of the real tree on the way to the path that lands (RealObject::symlink_above):
  /// refuse_writes_through_symlinks decides whether it is a conflict.
  std::string symlink_above;
};

/// Makes a conflict of each of `results` that would write beneath a symlink of the real tree
/// which no other of them deletes: with that deletion (a directory symlink the agent replaced
/// by a directory) the directory is made in its place, as git does; without it, nothing is
/// ever written through the link. One wording for every command that lands (`ws apply`, its
/// `--commits`, `ws review`), so the person reads the same conflict wherever it is met.
void refuse_writes_through_symlinks(const std::vector<LandingResult*>& results);

bool same_blob(const gitbridge::BlobSide& a, const gitbridge::BlobSide& b);

/// Permission bits for a file landing where `real` stands (or nothing): the person's bits,
/// with the exec bits the agent's version asks for; new files get 0666/0777 minus umask.
mode_t landing_perm(const ContentReader::RealObject& real, gitbridge::GitMode mode);

Landing write_landing(const std::string& path, const gitbridge::BlobSide& content,
                      const ContentReader::RealObject& real);

/// The real object at `real_path` (now `real`) should become `agents` at `path`, having
/// been `base` when the agent started (`base_exact`: that is known for sure). Adds the
/// landing to `out`, or says why not: per-file 3-way against the base, never guessing.
/// `unknown_why` says why the base is not known when `base_exact` is false.
void land_content(LandingResult& out, const std::string& path, const gitbridge::BlobSide& base,
                  bool base_exact, const gitbridge::BlobSide& agents,
                  const ContentReader::RealObject& real, const std::string& real_path,
                  const std::string& unknown_why = "ws has no copy of it");

/// One landed change, for `--index`: the agent changed `old_path` (== `path` unless renamed)
/// from `base` to `agents` (absent: deleted); `landings` is what the tree got.
struct IndexChange {
  std::string path, old_path;
  gitbridge::BlobSide base, agents;
  std::vector<Landing> landings;
};

/// What `--index` stages: the agent's change applied to the person's index version of each
/// path, as `git apply --3way --index` does, so the person's unstaged edits stay unstaged.
/// Throws Error naming the paths (before anything lands) when a staged version of the
/// person's conflicts with the agent's change.
std::vector<gitbridge::StagedPath> index_changes(const std::filesystem::path& worktree,
                                                 const std::vector<IndexChange>& changes);

/// Stages `staged` in the real index of `worktree` (`--index`). Throws Error saying the tree
/// already holds the changes when only the staging failed.
void stage_landings(const std::filesystem::path& worktree,
                    const std::vector<gitbridge::StagedPath>& staged);
/// Stages the landed content itself (`ws review`: what was accepted is what is staged).
void stage_landings(const std::filesystem::path& worktree, const std::vector<Landing>& landed);

} // namespace ws
