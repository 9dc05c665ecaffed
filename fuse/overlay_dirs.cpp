// Merged directory listings: the upper entries, then the lower ones not hidden.
#include "fuse/overlay_fs.hpp"
#include "fuse/system_error.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <unordered_set>

namespace ws::fuse {

namespace {
template <class F> void for_each_entry(int path_fd, const std::string& path, F&& f) {
  UniqueFd dfd(::openat(path_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dfd) {
    throw_errno("opendir", path);
  }
  DIR* d = ::fdopendir(dfd.release());
  std::unique_ptr<DIR, int (*)(DIR*)> guard(d, ::closedir);
  while (dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
      f(*e);
    }
  }
}
} // namespace

std::vector<DirEntry> OverlayFs::list_dir(Node* dir) {
  std::shared_lock tree(m_tree);
  std::string path = path_locked(dir);
  std::vector<DirEntry> out;
  out.push_back({".", dir->ino, DT_DIR});
  out.push_back({"..", dir->parent ? dir->parent->ino : dir->ino, DT_DIR});
  int upper = dir->upper_fd.get();
  int lower = dir->lower_fd.get();
  std::unordered_set<std::string> seen;
  if (upper >= 0) {
    for_each_entry(upper, path, [&](const dirent& e) {
      DirEntry de{e.d_name, 0, e.d_type};
      std::string child = join_path(path, de.name);
      struct stat lst {};
      if (lower >= 0 && !m_meta.is_whiteout(child) &&
          ::fstatat(lower, e.d_name, &lst, AT_SYMLINK_NOFOLLOW) == 0) {
        de.ino = lst.st_ino; // copied up or merged: the inode number it had below
      } else if (auto m = m_meta.get(child); m && m->origin) {
        de.ino = m->origin->ino;
      } else {
        de.ino = upper_ino(e.d_ino);
      }
      if (lower >= 0) {
        seen.insert(de.name);
      }
      out.push_back(std::move(de));
    });
  }
  if (lower >= 0) {
    std::unordered_set<std::string> hidden;
    if (!dir->guard) { // a guard directory shows the real tree as it is
      for (auto& w : m_meta.whiteouts_in(path)) {
        hidden.insert(std::move(w));
      }
    }
    for_each_entry(lower, path, [&](const dirent& e) {
      if (!seen.count(e.d_name) && !hidden.count(e.d_name)) {
        out.push_back({e.d_name, e.d_ino, e.d_type});
      }
    });
  }
  return out;
}

} // namespace ws::fuse
