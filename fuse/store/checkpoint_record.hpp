#pragma once
// A checkpoint's record of its frozen state: the file dir/snapshot naming the root tree and
// what it added to the store, and committing it (the store's references to it).

#include "fuse/store/content_store.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>

namespace ws::fuse::store {

/// Names the frozen state in the new directory `dest` (dest/snapshot) and commits it: one
/// reference for the checkpoint, one for the tracker, whose base it becomes (the old base's
/// reference is released). The caller holds the store's lock. Returns the bytes the
/// snapshot added to the store.
uint64_t commit_snapshot(ContentStore& store, const std::filesystem::path& tracker_file,
                         const std::optional<ObjectId>& old_base, bool serving,
                         const ObjectId& root, const std::filesystem::path& dest);

/// The root tree of the checkpoint in `dir`, or nullopt if it is a full copy (upper/ and
/// meta.db: the format before content-addressed checkpoints).
std::optional<ObjectId> snapshot_root(const std::filesystem::path& dir);
/// What the snapshot added to the store when it was made (dir/snapshot), 0 if unknown.
uint64_t snapshot_added_bytes(const std::filesystem::path& dir);

} // namespace ws::fuse::store
