// `ws apply --check`: what landing would meet in the real tree, found without writing every
// file aside (RealTreeTransaction::check).
#include "fuse/changes.hpp"
#include "src/cli/error.hpp"
#include "src/transfer/real_tree_writer.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>

namespace ws {

using fuse::UniqueFd;

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path, int e,
                       const std::string& hint) {
  throw Error(what + " (" + path + "): " + std::strerror(e), hint);
}

std::string parent_of(const std::string& path) {
  size_t cut = path.rfind('/');
  return cut == std::string::npos ? std::string() : path.substr(0, cut);
}

std::string_view parent_view(const std::string& path) {
  size_t cut = path.rfind('/');
  return cut == std::string::npos ? std::string_view() : std::string_view(path).substr(0, cut);
}

/// Whether `path` beneath `root` is there and no directory (a symlink is itself).
bool is_non_directory(int root, const std::string& path) {
  UniqueFd fd(fuse::open_beneath(root, path, O_PATH | O_NOFOLLOW));
  struct stat st {};
  return fd && ::fstat(fd.get(), &st) == 0 && !S_ISDIR(st.st_mode);
}

} // namespace

void RealTreeTransaction::check_directories(const std::vector<const Landing*>& landings,
                                            uint64_t& new_dirs) {
  // Every directory a landing needs, each once (a change of 200,000 files has a few
  // thousand): parents sort before their children.
  // Landings come in path order: siblings one after the other, their directory asked once.
  std::set<std::string> dirs;
  std::optional<std::string_view> last;
  for (const Landing* l : landings) {
    if (!l->content.present()) {
      continue; // a deletion needs nothing new
    }
    if (last && parent_view(l->path) == *last) {
      continue;
    }
    last = parent_view(l->path);
    for (std::string d = parent_of(l->path); !d.empty() && dirs.insert(d).second;
         d = parent_of(d)) {
    }
  }
  // What commit deletes before it writes: a symlink or file deleted there is a directory's
  // place (a directory symlink the agent replaced by a directory).
  std::set<std::string> deleted;
  for (const Landing* l : landings) {
    if (!l->content.present()) {
      deleted.insert(l->path);
    }
  }
  new_dirs = 0;
  std::set<std::string> missing;
  for (const std::string& d : dirs) {
    if (missing.count(parent_of(d))) {
      missing.insert(d); // below a directory that is to be made
      ++new_dirs;
      continue;
    }
    UniqueFd fd(fuse::open_beneath(m_root.get(), d, O_PATH | O_DIRECTORY | O_NOFOLLOW));
    if (fd) {
      continue;
    }
    int e = errno;
    if (e == ENOENT || (deleted.count(d) > 0 && is_non_directory(m_root.get(), d))) {
      missing.insert(d);
      ++new_dirs;
      continue;
    }
    // A symlink or a file in the way: the walk commit makes says which, as commit would.
    std::string leaf;
    open_parent(d + "/x", false, leaf);
    fail("cannot open directory", d, e, "nothing was changed in the real tree");
  }
  // Each existing directory a file lands in, leaves, or where a missing one is made, is
  // writable (commit renames there).
  std::map<std::string, bool> written_in; // directory -> only deletions leave it
  std::optional<std::string_view> last_parent;
  std::map<std::string, bool>::iterator last_in;
  for (const Landing* l : landings) {
    if (last_parent && parent_view(l->path) == *last_parent) {
      last_in->second = last_in->second && !l->content.present(); // a sibling: the same one
      continue;
    }
    last_parent = parent_view(l->path);
    std::string d = parent_of(l->path);
    while (missing.count(d)) {
      d = parent_of(d);
    }
    auto [it, added] = written_in.emplace(d, !l->content.present());
    it->second = it->second && !l->content.present();
    last_in = it;
  }
  for (const auto& [d, deletions_only] : written_in) {
    UniqueFd fd(d.empty() ? ::fcntl(m_root.get(), F_DUPFD_CLOEXEC, 0)
                          : fuse::open_beneath(m_root.get(), d, O_PATH | O_DIRECTORY | O_NOFOLLOW));
    if (!fd && deletions_only && (errno == ENOENT || errno == ENOTDIR)) {
      continue; // what was to be deleted is gone already: commit skips it
    }
    if (!fd || ::faccessat(fd.get(), "", W_OK, AT_EACCESS | AT_EMPTY_PATH) != 0) {
      fail("cannot write in directory", d.empty() ? m_root_path.string() : d, errno,
           "nothing was changed in the real tree");
    }
  }
}

void RealTreeTransaction::check_space(uint64_t blocks, uint64_t block_size, uint64_t inodes) {
  struct statvfs sv {};
  if (::fstatvfs(m_staging.get(), &sv) == 0 && sv.f_files > 0 && sv.f_favail < inodes) {
    throw Error("not enough free inodes in the real tree's filesystem for " +
                    std::to_string(inodes) + " new files and directories (" +
                    std::to_string(sv.f_favail) + " left)",
                "free some; nothing was changed in the real tree");
  }
  if (blocks == 0) {
    return;
  }
  // One file as large as all of them: the filesystem says now what writing them would.
  const char* name = "reserve";
  UniqueFd fd(
      ::openat(m_staging.get(), name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) {
    fail("cannot write the new versions", m_staging_name, errno,
         "nothing was changed in the real tree");
  }
  int rc = ::fallocate(fd.get(), 0, 0, static_cast<off_t>(blocks * block_size));
  int e = errno;
  fd.reset();
  ::unlinkat(m_staging.get(), name, 0);
  if (rc != 0 && (e == EOPNOTSUPP || e == ENOSYS)) {
    throw std::system_error(e, std::generic_category(), "fallocate"); // caller stages instead
  }
  if (rc != 0) {
    fail("cannot write the new versions", m_staging_name, e,
         e == ENOSPC || e == EDQUOT ? "free some space; nothing was changed in the real tree"
                                    : "nothing was changed in the real tree");
  }
}

void RealTreeTransaction::check(const std::vector<const Landing*>& landings) {
  struct statvfs sv {};
  if (::fstatvfs(m_staging.get(), &sv) != 0) {
    fail("cannot look at the real tree's filesystem", m_root_path.string(), errno,
         "nothing was changed in the real tree");
  }
  const uint64_t block = sv.f_frsize ? sv.f_frsize : sv.f_bsize;
  rlimit fsize{};
  ::getrlimit(RLIMIT_FSIZE, &fsize);
  uint64_t blocks = 0, inodes = 0;
  for (const Landing* l : landings) {
    check_landing_path(l->path);
    if (!l->content.present()) {
      continue;
    }
    const uint64_t size = l->size();
    if (fsize.rlim_cur != RLIM_INFINITY && size > fsize.rlim_cur) {
      fail("cannot write the new version of", l->path, EFBIG,
           "raise the file size limit (ulimit -f); nothing was changed in the real tree");
    }
    // What staging takes: whole blocks per file; a symlink's target beyond what the inode
    // holds takes one.
    blocks += l->content.mode == gitbridge::GitMode::Symlink ? (size > 59 ? 1 : 0)
                                                             : (size + block - 1) / block;
    ++inodes;
  }
  uint64_t new_dirs = 0;
  check_directories(landings, new_dirs);
  try {
    check_space(blocks + new_dirs, block, inodes + new_dirs);
  } catch (const std::system_error&) {
    for (const Landing* l : landings) { // no way to reserve: write them aside after all
      if (!l->unread_size) {
        stage(*l);
        continue;
      }
      Landing as_large = *l; // bytes of its size take the space its content would
      as_large.content.content.assign(*l->unread_size, 'x');
      as_large.unread_size.reset();
      stage(as_large);
    }
  }
}

} // namespace ws
