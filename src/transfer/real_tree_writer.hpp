#pragma once

#include "fuse/unique_fd.hpp"
#include "gitbridge/patch.hpp"

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ws {

/// What one path of the real tree becomes.
struct Landing {
  Landing() = default;
  Landing(std::string path_, gitbridge::BlobSide content_, mode_t perm_)
      : path(std::move(path_)), content(std::move(content_)), perm(perm_) {}
  std::string path;            ///< repository-relative
  gitbridge::BlobSide content; ///< not present: the path is deleted
  mode_t perm = 0644;          ///< permission bits for a file written
  /// Set by `ws apply --check` for a new file landing over nothing, decided from a kept
  /// manifest without reading the file (kept_check.hpp): only its size is known, `content`
  /// holds no bytes. Such a landing can be checked, never staged or committed.
  std::optional<uint64_t> unread_size;
  uint64_t size() const { return unread_size ? *unread_size : content.content.size(); }
};

/// Lands a set of paths in the real tree all or nothing. `stage` writes every new version
/// into a private staging directory at the top of the tree (where a full disk or a
/// permission problem shows before anything changed); `commit` swaps them into place one
/// rename at a time, keeping each replaced object, and on any failure puts every one back.
/// Paths are walked without following symlinks, never leave the tree and never enter a
/// `.git`. Not committed: the destructor removes what was staged.
class RealTreeTransaction {
public:
  explicit RealTreeTransaction(const std::filesystem::path& root);
  ~RealTreeTransaction();
  RealTreeTransaction(const RealTreeTransaction&) = delete;
  RealTreeTransaction& operator=(const RealTreeTransaction&) = delete;

  /// Writes the new version aside (nothing in the tree changes yet). Throws Error.
  void stage(const Landing& landing);
  /// Puts every staged landing in place, or none. Throws Error (tree as it was).
  void commit();

  /// What staging and committing `landings` would meet, found without writing each file
  /// aside (`ws apply --check`; writing and removing 200,000 files cost minutes): every path
  /// is a plain one inside the tree; every directory a landing needs is a directory, not a
  /// symlink, and writable, or can be made; each file fits the file size limit; the
  /// filesystem has the blocks (reserved at once with fallocate, so quotas count) and inodes
  /// for them all. Throws Error as stage and commit would. Where the filesystem cannot
  /// reserve space, stages each file instead (and removes them).
  void check(const std::vector<const Landing*>& landings);

private:
  struct Staged {
    Landing landing;
    std::string temp; ///< name in the staging directory
  };
  struct Undo {
    std::function<void()> action;
  };
  fuse::UniqueFd open_parent(const std::string& path, bool create, std::string& leaf);
  void check_directories(const std::vector<const Landing*>& landings, uint64_t& new_dirs);
  void check_space(uint64_t blocks, uint64_t block_size, uint64_t inodes);
  void remove_staging() noexcept;
  void rollback() noexcept;

  std::filesystem::path m_root_path;
  fuse::UniqueFd m_root;
  std::string m_staging_name;
  fuse::UniqueFd m_staging;
  std::vector<Staged> m_staged;
  std::vector<Undo> m_undo;
  unsigned m_counter = 0;
  bool m_committed = false;
};

/// Throws Error unless `path` is a plain relative path that stays inside the tree and has
/// no `.git` component (any case).
void check_landing_path(const std::string& path);

} // namespace ws
