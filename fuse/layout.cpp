#include "fuse/layout.hpp"

namespace ws::fuse {

void WorkspaceLayout::create_dirs() const {
  namespace fs = std::filesystem;
  for (const fs::path& d : {dir, upper(), work(), bases()}) {
    fs::create_directories(d);
    fs::permissions(d, fs::perms::owner_all, fs::perm_options::replace);
  }
}

} // namespace ws::fuse
