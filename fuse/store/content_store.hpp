#pragma once

// The workspace's content store (docs/checkpoints.md, "On disk"): immutable objects named by
// the SHA-256 of their bytes, shared by every checkpoint, with reference counts so that
// deleting a checkpoint frees exactly what nothing else needs. SHA-256, not XXH3: the agent
// chooses the content, and two different contents must never share a name.

#include "fuse/hash.hpp"
#include "fuse/sqlite.hpp"
#include "fuse/unique_fd.hpp"

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ws::fuse::store {

/// The SHA-256 of an object's bytes.
struct ObjectId {
  std::array<uint8_t, 32> bytes{};
  std::string hex() const;
  static std::optional<ObjectId> from_hex(std::string_view hex);
  std::string_view raw() const {
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
  }
  static ObjectId from_raw(std::string_view raw); ///< 32 bytes
  auto operator<=>(const ObjectId&) const = default;
};

struct ObjectIdHash {
  size_t operator()(const ObjectId& id) const noexcept {
    size_t h = 0;
    for (size_t i = 0; i < sizeof h; ++i) {
      h = (h << 8) | id.bytes[i];
    }
    return h;
  }
};

/// Streaming SHA-256 (OpenSSL's EVP; keeps openssl headers out of this one).
class Sha256 {
public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const void* data, size_t size);
  ObjectId digest();

private:
  void* m_ctx;
};

enum class ObjectKind : int { Blob = 0, Tree = 1 };

/// An object and what it references (trees: their entries' objects).
using ChildrenOf =
    std::function<std::vector<std::pair<ObjectId, ObjectKind>>(const ObjectId& tree)>;

/// `<state>/store/`: objects/<2 hex>/<62 hex> (mode 0400), refs.db (reference counts),
/// lock (flock'ed by whoever changes references or deletes objects), tracker (what the next
/// checkpoint builds on, ChangeTracker). Objects are written through O_TMPFILE and linked in
/// whole, so a crash never leaves half an object under a name.
///
/// References: a root (a checkpoint, the tracker's base) holds one on its tree; a tree holds
/// one on each object it names. An object with a row in refs.db is committed; one without
/// is garbage of a build that never finished (reused if the same content comes again,
/// deleted by sweep()). Thread-safety: one ContentStore per thread; processes serialise on
/// lock().
class ContentStore {
public:
  /// Opens (and creates) the store in `dir`.
  explicit ContentStore(const std::filesystem::path& dir);

  const std::filesystem::path& dir() const { return m_dir; }

  struct Stored {
    ObjectId id;
    Hash128 xxh3;       ///< of the same bytes (what meta.db and bases/ use)
    uint64_t size = 0;  ///< bytes read (the file may have shrunk meanwhile)
    bool added = false; ///< the object was not there before
  };
  /// Copies the first `size` bytes of the file open at `fd` into the store (holes stay
  /// holes), hashing them on the way. `path` names it in errors.
  Stored put_file(int fd, uint64_t size, std::string_view path);
  /// Stores `bytes` (a tree) and returns its name.
  ObjectId put_bytes(std::string_view bytes);
  bool contains(const ObjectId& id) const;
  /// O_RDONLY on the object; throws SystemError naming it if it is missing.
  UniqueFd open(const ObjectId& id) const;
  std::string read(const ObjectId& id) const;

  /// flock(LOCK_EX) on store/lock while it lives.
  class Lock {
  public:
    explicit Lock(const std::filesystem::path& file);
    Lock(Lock&&) = default;
    Lock& operator=(Lock&&) = default;

  private:
    UniqueFd m_fd;
  };
  Lock lock() const { return Lock(m_dir / "lock"); }

  // References; the caller holds lock().
  /// Takes one reference on `root`. Objects not yet committed are committed and take a
  /// reference on what they name, recursively: costs what is new, not what is shared.
  /// Returns the bytes newly committed (their allocated size on disk).
  uint64_t add_root(const ObjectId& root, ObjectKind kind, const ChildrenOf& children);
  /// Drops one reference on `root`; objects left with none are deleted and drop theirs.
  /// Returns the bytes freed.
  uint64_t release_root(const ObjectId& root, const ChildrenOf& children);
  /// The allocated bytes of every committed object.
  uint64_t committed_bytes();
  /// Deletes objects that are not committed (left by builds that never finished).
  size_t sweep();

private:
  std::filesystem::path object_path(const ObjectId& id) const;
  /// Links the O_TMPFILE `tmp` in as `id`; false if it was there already.
  bool link_in(int tmp, const ObjectId& id);

  std::filesystem::path m_dir;
  UniqueFd m_objects; ///< objects/
  std::optional<Db> m_refs;
};

/// Allocated bytes of the file open at `fd` (st_blocks × 512), 0 if fstat fails.
uint64_t allocated_of(int fd);

} // namespace ws::fuse::store
