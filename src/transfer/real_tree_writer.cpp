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

/// A duplicate of `fd` that an undo action owns (closed with it).
std::shared_ptr<UniqueFd> keep(int fd) {
  return std::make_shared<UniqueFd>(::fcntl(fd, F_DUPFD_CLOEXEC, 0));
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
                           O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
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
  check_landing_path(l.path);
  Staged s{l, {}};
  if (l.content.present()) {
    s.temp = "t" + std::to_string(m_counter++);
    if (l.content.mode == gitbridge::GitMode::Symlink) {
      if (::symlinkat(l.content.content.c_str(), m_staging.get(), s.temp.c_str()) != 0) {
        fail("cannot write the new version of", l.path, errno);
      }
    } else {
      // Through /proc: m_staging is O_PATH, and openat needs a real directory fd.
      UniqueFd dir(::openat(m_staging.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
      UniqueFd fd(dir ? ::openat(dir.get(), s.temp.c_str(),
                                 O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600)
                      : -1);
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
      if (::fchmod(fd.get(), l.perm & 07777) != 0 || ::fdatasync(fd.get()) != 0) {
        fail("cannot write the new version of", l.path, errno);
      }
    }
  }
  m_staged.push_back(std::move(s));
}

UniqueFd RealTreeTransaction::open_parent(const std::string& path, bool create, std::string& leaf) {
  size_t slash = path.rfind('/');
  leaf = slash == std::string::npos ? path : path.substr(slash + 1);
  UniqueFd dir(::fcntl(m_root.get(), F_DUPFD_CLOEXEC, 0));
  if (slash == std::string::npos) {
    return dir;
  }
  std::string walked;
  size_t start = 0;
  while (start < slash) {
    size_t end = path.find('/', start);
    std::string name = path.substr(start, end - start);
    walked = fuse::join_path(walked, name);
    UniqueFd next(fuse::open_beneath(dir.get(), name, O_PATH | O_DIRECTORY | O_NOFOLLOW));
    if (!next && errno == ENOENT && create) {
      if (::mkdirat(dir.get(), name.c_str(), 0777) != 0) {
        fail("cannot create directory", walked, errno);
      }
      m_undo.push_back({[parent = keep(dir.get()), name] {
        ::unlinkat(parent->get(), name.c_str(), AT_REMOVEDIR);
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
      size_t cut = s->landing.path.rfind('/');
      std::string parent_path = cut == std::string::npos ? "" : s->landing.path.substr(0, cut);
      m_undo.push_back({[root = m_root.get(), st_fd = m_staging.get(), parent_path, leaf, kept] {
        UniqueFd p(fuse::open_beneath(root, parent_path, O_PATH | O_DIRECTORY | O_NOFOLLOW));
        if (p) {
          ::renameat(st_fd, kept.c_str(), p.get(), leaf.c_str());
        }
      }});
      size_t slash = s->landing.path.rfind('/');
      if (slash != std::string::npos) {
        emptied.push_back(s->landing.path.substr(0, slash));
      }
    }
    // Directories the deletions emptied go too, as git does.
    std::sort(emptied.begin(), emptied.end(), std::greater<>());
    emptied.erase(std::unique(emptied.begin(), emptied.end()), emptied.end());
    auto receives_write = [&](const std::string& dir) {
      return std::any_of(writes.begin(), writes.end(), [&](const Staged* w) {
        return w->landing.path != dir && fuse::path_within(w->landing.path, dir);
      });
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
        size_t cut = dir.rfind('/');
        std::string parent_path = cut == std::string::npos ? "" : dir.substr(0, cut);
        m_undo.push_back({[root = m_root.get(), parent_path, leaf, mode] {
          UniqueFd p(fuse::open_beneath(root, parent_path, O_PATH | O_DIRECTORY | O_NOFOLLOW));
          if (p) {
            ::mkdirat(p.get(), leaf.c_str(), mode);
            ::fchmodat(p.get(), leaf.c_str(), mode, 0); // mkdir applied the umask
          }
        }});
        size_t slash = dir.rfind('/');
        dir = slash == std::string::npos ? "" : dir.substr(0, slash);
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
      m_undo.push_back(
          {[p = keep(parent.get()), stg = m_staging.get(), leaf, temp = s->temp, exists] {
            if (exists) { // swap the person's version back in
              ::renameat2(stg, temp.c_str(), p->get(), leaf.c_str(), RENAME_EXCHANGE);
            } else {
              ::renameat(p->get(), leaf.c_str(), stg, temp.c_str());
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
