#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ws::gitbridge {

/// git's file modes, as in a tree.
enum class GitMode : uint32_t {
  None = 0,
  File = 0100644,
  Executable = 0100755,
  Symlink = 0120000,
};

/// One side of a file: its git mode and bytes (a symlink's bytes are its target).
struct BlobSide {
  GitMode mode = GitMode::None; ///< None: nothing there
  std::string content;
  bool present() const { return mode != GitMode::None; }
};

/// One changed path: what stood there before (at `old_path`) and what stands now.
struct FilePair {
  std::string old_path; ///< == new_path unless renamed
  std::string new_path;
  BlobSide before;
  BlobSide after;
};

/// Per-file numbers, as `git diff --numstat` / `--name-status` give them.
struct FileStat {
  char status = 'M'; ///< A M D R T
  std::string old_path;
  std::string path;
  size_t added = 0;
  size_t deleted = 0;
  bool binary = false;
  size_t text_size = 0; ///< bytes of Patch::text that are this file's (files in text order)
};

/// One entry of a change's manifest: what one pair lands, identified by SHA-256.
struct ManifestEntry {
  std::string path; ///< the new path ('/'-separated); for a rename, the old path follows
  std::string from; ///< old path when it differs, else empty
  std::string id;   ///< SHA-256 of everything this pair lands and merges against
};

/// A git patch of a set of changed paths, built by libgit2 from two trees held in an
/// in-memory object database (nothing is written to any repository), with renames
/// detected, modes, symlinks and binary content (as `GIT binary patch`, so `git apply`
/// reproduces it). No configuration, attributes, drivers or filters take part.
struct Patch {
  std::string text; ///< `git apply`-able; empty when nothing changed
  std::string id;   ///< identity: SHA-256 of everything that lands (content_id.hpp), 64 hex
  std::string stat; ///< `git diff --stat` style, ends with the summary line
  std::vector<FileStat> files;
  std::vector<ManifestEntry> manifest; ///< manifest(pairs): what `id` was computed from
};

/// Who formats the patch: ws itself for files added or deleted whole (the same bytes,
/// faster) and libgit2 for the rest, or libgit2 for everything (the reference).
enum class PatchEngine { Auto, LibGit2 };

/// What to build besides the id and manifest (always there).
struct PatchParts {
  bool text = true; ///< the patch text and `files`
  bool stat = true; ///< `stat` (needs `text`)
  PatchEngine engine = PatchEngine::Auto;
};

/// Costs O(size of the changed files), never O(repository). `id` is change_id(manifest(pairs)).
Patch build_patch(const std::vector<FilePair>& pairs, const PatchParts& parts = {});

/// `git diff`'s colours for a patch text (header bold, hunks cyan, - red, + green).
std::string colorize_patch(const std::string& text);
/// `--stat` colours: + green, - red.
std::string colorize_stat(const std::string& stat);

} // namespace ws::gitbridge
