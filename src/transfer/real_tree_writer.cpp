// All-or-nothing landing in the person's real tree. Every change is first written aside
// (the failures that matter in practice, a full disk, a read-only directory, show there,
// before anything moved), then swapped in with renames that can each be undone.
#include "src/transfer/real_tree_writer.hpp"

#include "fuse/changes.hpp"
#include "src/cli/error.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace ws {

using fuse::UniqueFd;

namespace {

std::string errno_text(int e) {
  return std::strerror(e);
}

[[noreturn]] void fail(const std::string& what, const std::string& path, int e,
                       const std::string& hint = {}) {
  throw Error(what + " (" + path + "): " + errno_text(e),
              hint.empty() ? "nothing was changed in the real tree" : hint);
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

/// Removes a tree below `dirfd`/`name` (the staging directory), without following links.
void remove_tree(int dirfd, const char* name) noexcept {
  UniqueFd fd(::openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (fd) {
    DIR* d = ::fdopendir(::fcntl(fd.get(), F_DUPFD_CLOEXEC, 0));
    if (d) {
      while (dirent* e = ::readdir(d)) {
        if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) {
          continue;
        }
        if (::unlinkat(fd.get(), e->d_name, 0) != 0 && (errno == EISDIR || errno == EPERM)) {
          remove_tree(fd.get(), e->d_name);
        }
      }
      ::closedir(d);
    }
  }
  ::unlinkat(dirfd, name, AT_REMOVEDIR);
}

/// `path`'s directory and last component ("" and `path` at the top).
std::pair<std::string, std::string> split_parent(const std::string& path) {
  size_t cut = path.rfind('/');
  if (cut == std::string::npos) {
    return {std::string(), path};
  }
  return {path.substr(0, cut), path.substr(cut + 1)};
}

} // namespace

void check_landing_path(const std::string& path) {
  if (path.empty() || path[0] == '/') {
    throw Error("refusing to write outside the project: '" + path + "'");
  }
  size_t start = 0;
  while (true) {
    size_t end = path.find('/', start);
    std::string_view c(path.data() + start, (end == std::string::npos ? path.size() : end) - start);
    if (c.empty() || c == "." || c == "..") {
      throw Error("refusing an irregular path: '" + path + "'");
    }
    if (iequals(c, ".git")) {
      throw Error("refusing to write into .git: '" + path + "'");
    }
    if (end == std::string::npos) {
      return;
    }
    start = end + 1;
  }
}

RealTreeTransaction::RealTreeTransaction(const std::filesystem::path& root)
    : m_root_path(root), m_root(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)) {
  if (!m_root) {
    fail("cannot open the real tree", root.string(), errno);
  }
  std::random_device rd;
  m_staging_name = ".ws-apply-" + std::to_string(::getpid()) + "-" + std::to_string(rd() % 100000);
  if (::mkdirat(m_root.get(), m_staging_name.c_str(), 0700) != 0) {
    fail("cannot create the staging directory", (root / m_staging_name).string(), errno,
         "ws apply needs to write in the project's top directory");
  }
  m_staging.reset(::openat(m_root.get(), m_staging_name.c_str(),
                           O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!m_staging) {
    int e = errno;
    remove_staging();
    fail("cannot open the staging directory", m_staging_name, e);
  }
}

RealTreeTransaction::~RealTreeTransaction() {
  if (!m_committed) {
    rollback();
  }
  remove_staging();
}

void RealTreeTransaction::remove_staging() noexcept {
  if (!m_staging_name.empty()) {
    remove_tree(m_root.get(), m_staging_name.c_str());
    m_staging_name.clear();
  }
}

void RealTreeTransaction::stage(const Landing& l) {
  if (l.unread_size) { // never lands bytes that were not read (and covered by the id)
    throw std::logic_error("a landing decided without its content cannot be staged: " + l.path);
  }
  check_landing_path(l.path);
  Staged s{l, {}};
  if (l.content.present()) {
    s.temp = "t" + std::to_string(m_counter++);
    if (l.content.mode == gitbridge::GitMode::Symlink) {
      if (::symlinkat(l.content.content.c_str(), m_staging.get(), s.temp.c_str()) != 0) {
        fail("cannot write the new version of", l.path, errno);
      }
    } else {
      // Closed before the next one: a transaction holds a few fds, whatever its size.
      UniqueFd fd(::openat(m_staging.get(), s.temp.c_str(),
                           O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600));
      if (!fd) {
        fail("cannot write the new version of", l.path, errno);
      }
      const char* p = l.content.content.data();
      size_t left = l.content.content.size();
      while (left > 0) {
        ssize_t n = ::write(fd.get(), p, left);
        if (n < 0) {
          if (errno == EINTR) {
            continue;
          }
          fail("cannot write the new version of", l.path, errno,
               errno == ENOSPC ? "free some space; nothing was changed in the real tree" : "");
        }
        p += n;
        left -= static_cast<size_t>(n);
      }
      // No fdatasync here: one syncfs in commit() makes every staged file durable at
      // once (one per file cost 200,000 disk flushes for as many files).
      if (::fchmod(fd.get(), l.perm & 07777) != 0) {
        fail("cannot write the new version of", l.path, errno);
      }
    }
  }
  m_staged.push_back(std::move(s));
}

UniqueFd RealTreeTransaction::open_parent(const std::string& path, bool create, std::string& leaf) {
  auto [parent_path, name_of_leaf] = split_parent(path);
  leaf = std::move(name_of_leaf);
  if (parent_path.empty()) {
    return UniqueFd(::fcntl(m_root.get(), F_DUPFD_CLOEXEC, 0));
  }
  // The usual case, the whole directory there already: one walk (chunked beyond PATH_MAX).
  UniqueFd whole(fuse::open_beneath(m_root.get(), parent_path, O_PATH | O_DIRECTORY | O_NOFOLLOW));
  if (whole) {
    return whole;
  }
  // Else component by component: to create what is missing, and to say which one failed.
  UniqueFd dir(::fcntl(m_root.get(), F_DUPFD_CLOEXEC, 0));
  size_t start = 0;
  while (start <= parent_path.size()) {
    size_t end = std::min(parent_path.find('/', start), parent_path.size());
    std::string name = parent_path.substr(start, end - start);
    std::string walked = parent_path.substr(0, end);
    UniqueFd next(fuse::open_beneath(dir.get(), name, O_PATH | O_DIRECTORY | O_NOFOLLOW));
    if (!next && errno == ENOENT && create) {
      if (::mkdirat(dir.get(), name.c_str(), 0777) != 0) {
        fail("cannot create directory", walked, errno);
      }
      // Undone by path, not through an fd kept open: a transaction may create more
      // directories than a process may hold open.
      m_undo.push_back({[root = m_root.get(), walked] {
        auto [up, last] = split_parent(walked);
        UniqueFd p(fuse::open_beneath(root, up, O_PATH | O_DIRECTORY | O_NOFOLLOW));
        if (p) {
          ::unlinkat(p.get(), last.c_str(), AT_REMOVEDIR);
        }
      }});
      next.reset(fuse::open_beneath(dir.get(), name, O_PATH | O_DIRECTORY | O_NOFOLLOW));
    }
    if (!next) {
      int e = errno;
      struct stat st {};
      if (e == ENOTDIR && ::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
          S_ISLNK(st.st_mode)) {
        e = ELOOP; // O_NOFOLLOW | O_DIRECTORY on a symlink says ENOTDIR
      }
      if (e == ELOOP || e == EXDEV) {
        throw Error("refusing to write through a symlink in the real tree: '" + walked + "'",
                    "nothing was changed in the real tree");
      }
      if (e == ENOTDIR) {
        throw Error("'" + walked + "' is no longer a directory in the real tree (needed for " +
                        path + ")",
                    "nothing was changed in the real tree; resolve it and apply again");
      }
      if (e == ENOENT && !create) {
        return UniqueFd();
      }
      fail("cannot open directory", walked, e);
    }
    dir = std::move(next);
    start = end + 1;
  }
  return dir;
}

void RealTreeTransaction::commit() {
  try {
    // Every staged file on disk before the first one replaces anything: a crash then
    // leaves the person's files or complete new ones, never empty ones. One syncfs for
    // the whole set (an fdatasync per file made large applies take minutes).
    if (::syncfs(m_staging.get()) != 0) {
      fail("cannot write the new versions to disk", m_staging_name, errno);
    }
    // Deletions first, deepest first: a directory they empty may become a file's place.
    std::vector<const Staged*> deletions, writes;
    for (const auto& s : m_staged) {
      (s.landing.content.present() ? writes : deletions).push_back(&s);
    }
    std::sort(deletions.begin(), deletions.end(),
              [](auto* a, auto* b) { return a->landing.path > b->landing.path; });
    unsigned backup = 0;
    std::vector<std::string> emptied;
    for (const Staged* s : deletions) {
      std::string leaf;
      UniqueFd parent = open_parent(s->landing.path, false, leaf);
      if (!parent) {
        continue; // already gone
      }
      struct stat st {};
      if (::fstatat(parent.get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT) {
          continue; // already gone
        }
        fail("cannot delete", s->landing.path, errno);
      }
      if (S_ISDIR(st.st_mode)) {
        throw Error("'" + s->landing.path + "' is a directory in the real tree now",
                    "nothing was changed in the real tree; move it away and apply again");
      }
      std::string kept = "b" + std::to_string(backup++);
      if (::renameat(parent.get(), leaf.c_str(), m_staging.get(), kept.c_str()) != 0) {
        fail("cannot delete", s->landing.path, errno);
      }
      // Undone by path, not through `parent`: the directory may be removed below (emptied)
      // and made again by an earlier undo, as a new inode.
      std::string parent_path = split_parent(s->landing.path).first;
      m_undo.push_back({[root = m_root.get(), st_fd = m_staging.get(), parent_path, leaf, kept] {
        UniqueFd p(fuse::open_beneath(root, parent_path, O_PATH | O_DIRECTORY | O_NOFOLLOW));
        if (p) {
          ::renameat(st_fd, kept.c_str(), p.get(), leaf.c_str());
        }
      }});
      if (!parent_path.empty()) {
        emptied.push_back(parent_path);
      }
    }
    // Directories the deletions emptied go too, as git does.
    std::sort(emptied.begin(), emptied.end(), std::greater<>());
    emptied.erase(std::unique(emptied.begin(), emptied.end()), emptied.end());
    std::vector<std::string_view> written;
    for (const Staged* w : writes) {
      written.push_back(w->landing.path);
    }
    std::sort(written.begin(), written.end());
    // Whether a write lands strictly below `dir`: those paths sort together after "dir/".
    auto receives_write = [&](const std::string& dir) {
      std::string prefix = dir + "/";
      auto it = std::lower_bound(written.begin(), written.end(), std::string_view(prefix));
      return it != written.end() && it->starts_with(prefix);
    };
    for (std::string dir : emptied) {
      // A directory a write lands in stays (same inode, same mode), as for a rename inside it.
      while (!dir.empty() && !receives_write(dir)) {
        std::string leaf;
        UniqueFd parent = open_parent(dir, false, leaf);
        struct stat st {};
        if (!parent || ::fstatat(parent.get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            ::unlinkat(parent.get(), leaf.c_str(), AT_REMOVEDIR) != 0) {
          break;
        }
        mode_t mode = st.st_mode & 07777;
        std::string parent_path = split_parent(dir).first;
        m_undo.push_back({[root = m_root.get(), parent_path, leaf, mode] {
          UniqueFd p(fuse::open_beneath(root, parent_path, O_PATH | O_DIRECTORY | O_NOFOLLOW));
          if (p) {
            ::mkdirat(p.get(), leaf.c_str(), mode);
            ::fchmodat(p.get(), leaf.c_str(), mode, 0); // mkdir applied the umask
          }
        }});
        dir = parent_path;
      }
    }
    for (const Staged* s : writes) {
      std::string leaf;
      UniqueFd parent = open_parent(s->landing.path, true, leaf);
      struct stat st {};
      bool exists = ::fstatat(parent.get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
      if (exists && S_ISDIR(st.st_mode)) {
        throw Error("'" + s->landing.path + "' is a directory in the real tree",
                    "nothing was changed in the real tree; move it away and apply again");
      }
      unsigned flags = exists ? RENAME_EXCHANGE : RENAME_NOREPLACE;
      if (::renameat2(m_staging.get(), s->temp.c_str(), parent.get(), leaf.c_str(), flags) != 0) {
        fail("cannot write", s->landing.path, errno);
      }
      // By path, as above: an fd kept per write ran out of fds (EMFILE) past ~1,000 files.
      m_undo.push_back(
          {[root = m_root.get(), stg = m_staging.get(),
            parent_path = split_parent(s->landing.path).first, leaf, temp = s->temp, exists] {
            UniqueFd p(fuse::open_beneath(root, parent_path, O_PATH | O_DIRECTORY | O_NOFOLLOW));
            if (!p) {
              return;
            }
            if (exists) { // swap the person's version back in
              ::renameat2(stg, temp.c_str(), p.get(), leaf.c_str(), RENAME_EXCHANGE);
            } else {
              ::renameat(p.get(), leaf.c_str(), stg, temp.c_str());
            }
          }});
    }
  } catch (...) {
    rollback();
    throw;
  }
  m_committed = true;
  m_undo.clear();
}

void RealTreeTransaction::rollback() noexcept {
  for (auto it = m_undo.rbegin(); it != m_undo.rend(); ++it) {
    it->action();
  }
  m_undo.clear();
}

} // namespace ws
