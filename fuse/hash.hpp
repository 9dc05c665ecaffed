#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ws::fuse {

/// XXH3-128 digest of a file's content (or a symlink's target).
struct Hash128 {
  uint64_t high = 0;
  uint64_t low = 0;
  bool operator==(const Hash128&) const = default;
  std::string hex() const;
  static std::optional<Hash128> from_hex(std::string_view hex);
};

/// Streaming XXH3-128 (wraps XXH3_state_t; keeps xxhash.h out of headers).
class Hasher {
public:
  Hasher();
  ~Hasher();
  Hasher(const Hasher&) = delete;
  Hasher& operator=(const Hasher&) = delete;
  void update(const void* data, size_t size);
  Hash128 digest() const;

private:
  void* m_state;
};

Hash128 hash_bytes(std::string_view bytes);
/// Hashes the file open at `fd` from offset 0 (pread, so the offset is untouched).
Hash128 hash_fd(int fd, std::string_view path_for_errors);

} // namespace ws::fuse
