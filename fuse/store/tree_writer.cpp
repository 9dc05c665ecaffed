// Writing a frozen state back onto disk (see tree_writer.hpp). Iterative, holding one fd on
// the directory being filled and going back up through ".." checked against where it came
// from, like copy_tree: a checkpoint may be deeper than any stack or fd limit.
#include "fuse/store/tree_writer.hpp"

#include "fuse/log.hpp"
#include "fuse/state_tree.hpp"
#include "fuse/store/tree.hpp"
#include "fuse/system_error.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <unordered_map>

namespace ws::fuse::store {

namespace {

struct DirId {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(const DirId&) const = default;
};

DirId id_of(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    throw_errno("stat", path);
  }
  return {st.st_dev, st.st_ino};
}

struct timespec ts_of(int64_t ns) {
  struct timespec t {};
  t.tv_sec = static_cast<time_t>(ns / 1000000000);
  t.tv_nsec = static_cast<long>(ns % 1000000000);
  if (t.tv_nsec < 0) {
    t.tv_nsec += 1000000000;
    t.tv_sec -= 1;
  }
  return t;
}

mode_t type_bits(EntryType t) {
  switch (t) {
  case EntryType::Directory:
    return S_IFDIR;
  case EntryType::File:
    return S_IFREG;
  case EntryType::Symlink:
    return S_IFLNK;
  case EntryType::Fifo:
    return S_IFIFO;
  case EntryType::Socket:
    return S_IFSOCK;
  case EntryType::CharDevice:
    return S_IFCHR;
  case EntryType::BlockDevice:
    return S_IFBLK;
  default:
    return 0;
  }
}

/// Mode, owner (as root), xattrs and times of `e` onto `name` in `dir`.
void apply_attrs(int dir, const std::string& name, const TreeEntry& e) {
  if (e.type != EntryType::Symlink) {
    std::string p = proc_path(dir) + "/" + name;
    for (auto& [key, value] : e.xattrs) {
      ::lsetxattr(p.c_str(), key.c_str(), value.data(), value.size(), 0);
    }
  }
  struct stat st {};
  st.st_mode = type_bits(e.type) | e.mode;
  st.st_uid = e.uid;
  st.st_gid = e.gid;
  st.st_atim = ts_of(e.atime_ns);
  st.st_mtim = ts_of(e.mtime_ns);
  set_attrs(dir, name, st);
}

struct Frame {
  Tree tree;
  size_t next = 0;
  std::string path;
  DirId id;
  TreeEntry self; ///< the directory's own entry, finished once its entries are written
};

void collect_records(const ContentStore& store, const ObjectId& tree, const std::string& top,
                     std::vector<std::pair<std::string, PathMeta>>& out) {
  std::vector<std::pair<ObjectId, std::string>> todo{{tree, top}};
  while (!todo.empty()) {
    auto [id, dir] = todo.back();
    todo.pop_back();
    for (const TreeEntry& e : parse_tree(store.read(id)).entries) {
      std::string path = join_path(dir, e.name);
      if (e.meta) {
        out.emplace_back(path, *e.meta);
      }
      if (e.subtree) {
        todo.emplace_back(*e.subtree, path);
      }
    }
  }
}

} // namespace

std::vector<std::pair<std::string, PathMeta>> tree_records(const ContentStore& store,
                                                           const ObjectId& root) {
  std::vector<std::pair<std::string, PathMeta>> out;
  collect_records(store, root, "", out);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

std::vector<std::pair<std::string, PathMeta>> write_tree(const ContentStore& store, int bases,
                                                         const ObjectId& root, int dst) {
  std::vector<std::pair<std::string, PathMeta>> records;
  std::unordered_map<uint64_t, std::string> links; // frozen inode -> first name written
  UniqueFd cur = dup_fd(dst);
  std::vector<Frame> stack(1);
  stack[0].tree = parse_tree(store.read(root));
  stack[0].id = id_of(cur.get(), "");
  for (;;) {
    Frame& frame = stack.back();
    if (frame.next < frame.tree.entries.size()) {
      const TreeEntry& e = frame.tree.entries[frame.next++];
      std::string path = join_path(frame.path, e.name);
      if (e.meta) {
        records.emplace_back(path, *e.meta);
      }
      switch (e.type) {
      case EntryType::None:
        if (e.subtree) {
          collect_records(store, *e.subtree, path, records);
        }
        continue;
      case EntryType::Directory: {
        if (::mkdirat(cur.get(), e.name.c_str(), 0700) != 0) {
          throw_errno("restore: mkdir", path);
        }
        UniqueFd down = open_dir(cur.get(), e.name, path);
        Frame next;
        if (e.subtree) {
          next.tree = parse_tree(store.read(*e.subtree));
        }
        next.path = path;
        next.id = id_of(down.get(), path);
        next.self = e;
        next.self.subtree.reset();
        cur = std::move(down);
        stack.push_back(std::move(next));
        continue;
      }
      case EntryType::File: {
        if (e.nlink > 1) {
          auto [it, first] = links.try_emplace(e.ino, path);
          if (!first && ::linkat(dst, it->second.c_str(), cur.get(), e.name.c_str(), 0) == 0) {
            continue;
          }
        }
        UniqueFd src;
        if (e.ref == ContentRef::Object) {
          src = store.open(e.content);
        } else if (e.ref == ContentRef::Base) {
          std::string hex = e.xxh3.hex();
          src.reset(::openat(bases, hex.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
          if (!src) {
            throw_errno("restore: open the saved base bases/" + hex + " of", path);
          }
        } else {
          throw SystemError(EIO, "restore: the checkpoint holds no content for '" + path + "'");
        }
        UniqueFd out(::openat(cur.get(), e.name.c_str(),
                              O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600));
        if (!out) {
          throw_errno("restore: create", path);
        }
        copy_content(src.get(), out.get(), static_cast<off_t>(e.size), nullptr, path);
        break;
      }
      case EntryType::Symlink:
        if (::symlinkat(e.target.c_str(), cur.get(), e.name.c_str()) != 0) {
          throw_errno("restore: symlink", path);
        }
        break;
      default:
        if (::mknodat(cur.get(), e.name.c_str(), type_bits(e.type) | 0600,
                      static_cast<dev_t>(e.rdev)) != 0) {
          if (errno == EPERM &&
              (e.type == EntryType::CharDevice || e.type == EntryType::BlockDevice)) {
            logger().warn("restore: cannot make the device file '{}' (not root)", path);
            continue;
          }
          throw_errno("restore: mknod", path);
        }
        break;
      }
      apply_attrs(cur.get(), e.name, e);
      continue;
    }
    if (stack.size() == 1) {
      break;
    }
    Frame done = std::move(stack.back());
    stack.pop_back();
    UniqueFd up(::openat(cur.get(), "..", O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!up || !(id_of(up.get(), done.path) == stack.back().id)) {
      throw SystemError(ESTALE, "restore: a directory moved while it was being written '" +
                                    done.path + "'");
    }
    cur = std::move(up);
    apply_attrs(cur.get(), done.self.name, done.self);
  }
  std::sort(records.begin(), records.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  return records;
}

} // namespace ws::fuse::store
