// A checkpoint's record of its frozen state (see checkpoint_record.hpp).
#include "fuse/store/checkpoint_record.hpp"

#include "fuse/store/change_tracker.hpp"
#include "fuse/store/tree.hpp"
#include "fuse/system_error.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

namespace ws::fuse::store {

uint64_t commit_snapshot(ContentStore& store, const std::filesystem::path& tracker_file,
                         const std::optional<ObjectId>& old_base, bool serving,
                         const ObjectId& root, const std::filesystem::path& dest) {
  ChildrenOf children = children_in(store);
  uint64_t added = store.add_root(root, ObjectKind::Tree, children); // the checkpoint's
  store.add_root(root, ObjectKind::Tree, children);                  // the tracker's
  TrackerState next;
  next.base = root;
  next.serving = serving;
  save_tracker(tracker_file, next);
  if (old_base) {
    store.release_root(*old_base, children);
  }
  if (::mkdir(dest.c_str(), 0700) != 0 && errno != EEXIST) {
    throw_errno("checkpoint: mkdir", dest.string());
  }
  std::filesystem::path file = dest / "snapshot";
  std::ofstream out(file, std::ios::trunc);
  out << "tree " << root.hex() << "\nbytes " << added << "\n";
  if (!out.flush()) {
    throw SystemError(errno ? errno : EIO, "write '" + file.string() + "'");
  }
  return added;
}

namespace {
std::optional<std::string> snapshot_value(const std::filesystem::path& dir, std::string_view key) {
  std::ifstream in(dir / "snapshot");
  std::string line;
  while (in && std::getline(in, line)) {
    if (line.size() > key.size() && line.compare(0, key.size(), key) == 0 &&
        line[key.size()] == ' ') {
      return line.substr(key.size() + 1);
    }
  }
  return std::nullopt;
}
} // namespace

std::optional<ObjectId> snapshot_root(const std::filesystem::path& dir) {
  auto v = snapshot_value(dir, "tree");
  return v ? ObjectId::from_hex(*v) : std::nullopt;
}

uint64_t snapshot_added_bytes(const std::filesystem::path& dir) {
  auto v = snapshot_value(dir, "bytes");
  return v ? std::strtoull(v->c_str(), nullptr, 10) : 0;
}

} // namespace ws::fuse::store
