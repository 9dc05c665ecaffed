#pragma once

// What `ws review` may know of a withheld file without reading it: enough to describe it
// (size, binary or not) and to notice any write to it, so a file that is only described
// costs a stat and 8000 bytes, whatever its size (issue 10: a 2 GB sparse withheld file).

#include "fuse/unique_fd.hpp"
#include "gitbridge/patch.hpp"
#include "src/transfer/transfer_plan.hpp"

#include <sys/stat.h>

#include <cstdint>
#include <optional>
#include <string>

namespace ws {

/// Withheld files larger than this are described, never diffed: a withheld file does not
/// land unless the person takes it, so review reads no more than it shows.
inline constexpr uint64_t k_review_diff_limit = 1024 * 1024;

/// A workspace file as seen without reading it.
struct FileProbe {
  uint64_t size = 0;
  bool binary = false;  ///< a NUL in the first 8000 bytes, as git decides
  std::string identity; ///< changes with any write: size, mode, inode, mtime and ctime
};

/// Opens files of one state's upper layer beneath it (no symlink followed on the way).
/// Owns the directory fd; single-threaded.
class UpperFiles {
public:
  explicit UpperFiles(const StateSource& source);

  /// The regular file at `path`; nullopt when it is not one (or is gone).
  std::optional<FileProbe> probe(const std::string& path) const;

  /// The identity (stat_identity) of the object at `path`, a symlink itself and not what
  /// it points to; nullopt when nothing is there.
  std::optional<std::string> identity(const std::string& path) const;

  /// The content of `path` (a regular file or a symlink), checked to still be the object
  /// whose identity was `identity` before and after reading it (the agent may write while
  /// the person reviews). Throws Error when it changed or is gone.
  gitbridge::BlobSide read_checked(const std::string& path, const std::string& identity) const;

private:
  fuse::UniqueFd m_upper;
};

/// The identity FileProbe::identity holds for `st`.
std::string stat_identity(const struct stat& st);

/// The same identity from what the plan saw of the object (fuse::Change keeps its stat):
/// no stat of its own. nullopt for a deletion, or a change that kept no stat.
std::optional<std::string> change_identity(const fuse::Change& c);

} // namespace ws
