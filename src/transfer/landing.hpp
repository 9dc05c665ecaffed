#pragma once

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
};

bool same_blob(const gitbridge::BlobSide& a, const gitbridge::BlobSide& b);

/// Permission bits for a file landing where `real` stands (or nothing): the person's bits,
/// with the exec bits the agent's version asks for; new files get 0666/0777 minus umask.
mode_t landing_perm(const ContentReader::RealObject& real, gitbridge::GitMode mode);

Landing write_landing(const std::string& path, const gitbridge::BlobSide& content,
                      const ContentReader::RealObject& real);

/// The real object at `real_path` (now `real`) should become `agents` at `path`, having
/// been `base` when the agent started (`base_exact`: that is known for sure). Adds the
/// landing to `out`, or says why not: per-file 3-way against the base, never guessing.
void land_content(LandingResult& out, const std::string& path, const gitbridge::BlobSide& base,
                  bool base_exact, const gitbridge::BlobSide& agents,
                  const ContentReader::RealObject& real, const std::string& real_path);

/// Stages what landed in the real index of `worktree` (`--index`). Throws Error saying the
/// tree already holds the changes when only the staging failed.
void stage_landings(const std::filesystem::path& worktree, const std::vector<Landing>& landed);

} // namespace ws
