#pragma once

#include "fuse/changes.hpp"
#include "fuse/unique_fd.hpp"
#include "gitbridge/patch.hpp"
#include "src/transfer/transfer_plan.hpp"

#include <sys/stat.h>

#include <string>

namespace ws {

/// Reads the three versions of a changed path that diff and apply need: the workspace's,
/// the base the agent started from, and the real tree's now. Paths are opened beneath their
/// root without following any symlink on the way.
class ContentReader {
public:
  ContentReader(const Workspace& w, const StateSource& source);

  /// The workspace's object at `path` (in the state's upper layer).
  gitbridge::BlobSide view(const std::string& path) const;

  /// What stood at the change's old path when the agent first touched it. `exact` is false
  /// when that is no longer known (no saved copy, and the real file has changed since):
  /// then the real file's current content is returned.
  gitbridge::BlobSide base(const fuse::Change& c, bool& exact) const;

  /// Why the base of `c` is not known, when base() says so: for a person.
  static std::string why_base_unknown(const fuse::Change& c);

  struct RealObject {
    bool exists = false;
    mode_t mode = 0; ///< st_mode (type bits included)
    gitbridge::BlobSide side;
    /// Set when a symlink stands on the way to the path in the real tree (`exists` is
    /// false: nothing is read through it): that symlink's path.
    std::string symlink_above;
  };
  /// The real tree's object at `path` now.
  RealObject real(const std::string& path) const;

  int real_root() const { return m_real.get(); }

private:
  gitbridge::BlobSide read_side(int root, const std::string& path, const struct stat& st) const;
  fuse::UniqueFd m_real;
  fuse::UniqueFd m_upper;
  fuse::UniqueFd m_bases;
};

/// What stood before and what stands now for one transferring change (one entry of
/// file_pairs); `base_exact` as ContentReader::base says.
gitbridge::FilePair file_pair(const ContentReader& reader, const PlannedChange& p,
                              bool& base_exact);

/// Reads the whole file open at `fd` (from offset 0); throws SystemError naming `path`.
std::string read_all(int fd, const std::string& path);

} // namespace ws
