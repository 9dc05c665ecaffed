#pragma once

// The gitlinks (submodules) of a repository's index, kept in a file between commands. Reading
// the index is O(its entries) (100,000 entries: most of a `ws status` of 10 changes); which
// gitlinks it holds changes only when the person adds or removes a submodule. The cache is
// keyed by the index file's content: git ends the file with a SHA-1 of everything before it,
// so the same 20 bytes and size mean the same entries. A missing, unreadable or foreign cache
// file is a miss; nothing here is ever needed for a right answer.

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace ws::gitbridge {

/// Every gitlink path of an index -> whether one is at stage 0 (not only in a conflict).
using Gitlinks = std::map<std::string, bool>;

/// Which index file, and which content, as it was at one moment.
struct IndexStamp {
  uint64_t dev = 0, ino = 0, size = 0;
  int64_t ctime_ns = 0, mtime_ns = 0;
  std::array<unsigned char, 20> checksum{}; ///< the file's last 20 bytes: its SHA-1
  bool operator==(const IndexStamp&) const = default;
};

/// The stamp of the index file at `index_file`; nullopt when there is none, it cannot be
/// read, or it carries no checksum (git's index.skipHash writes zeros): not cacheable.
std::optional<IndexStamp> index_stamp(const std::filesystem::path& index_file);

/// The gitlinks `cache` holds for an index with this content; nullopt when it holds none.
std::optional<Gitlinks> load_gitlinks(const std::filesystem::path& cache, const IndexStamp& index);

/// Keeps `links` as those of an index with this content (written aside and renamed over).
/// Fails silently: it is a cache.
void save_gitlinks(const std::filesystem::path& cache, const IndexStamp& index,
                   const Gitlinks& links);

} // namespace ws::gitbridge
