#pragma once

// The byte layout of ws's caches in the workspace's state (plan-cache, patch-cache): fixed-
// size values and length-prefixed strings after an 8-byte magic, an XXH3-128 of all of it
// at the end. A cache that does not read back whole is no cache.
#include "fuse/hash.hpp"
#include "src/transfer/cache_delta.hpp"

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ws {

/// Appends fixed-size values and length-prefixed strings to one buffer, after `magic`.
class Writer {
public:
  explicit Writer(const char (&magic)[8]) { m_out.append(magic, 8); }
  template <typename T> void put(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    m_out.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void put(const std::string& s) {
    put(static_cast<uint64_t>(s.size()));
    m_out.append(s);
  }
  std::string& out() { return m_out; }

private:
  std::string m_out;
};

/// Reads what Writer wrote; any read past the end makes it bad for good.
class Reader {
public:
  Reader(const char* p, size_t n) : m_p(p), m_end(p + n) {}
  template <typename T> T get() {
    T v{};
    if (static_cast<size_t>(m_end - m_p) < sizeof v) {
      m_bad = true;
      return v;
    }
    std::memcpy(&v, m_p, sizeof v);
    m_p += sizeof v;
    return v;
  }
  void get(std::string& s) {
    uint64_t n = get<uint64_t>();
    if (m_bad || static_cast<uint64_t>(m_end - m_p) < n) {
      m_bad = true;
      return;
    }
    s.assign(m_p, n);
    m_p += n;
  }
  bool bad() const { return m_bad; }
  bool done() const { return m_p == m_end; }

private:
  const char* m_p;
  const char* m_end;
  bool m_bad = false;
};

/// Writes `bytes` (Writer::out) and their digest to `file` through a temporary file renamed
/// over it. When `file` holds bytes of the same magic that differ from `bytes` in little (at
/// most an eighth of their size), only the differences are written, to `file` + ".delta": the
/// base's digest, the edits (cache_delta.hpp) and the digest of the bytes they make; read_
/// cache_file puts them together. Past that, `file` is written whole again (folded) and the
/// delta removed first. Fails silently: it is a cache.
void write_cache_file(const std::filesystem::path& file, const std::string& bytes);

/// The same for a body held elsewhere (a patch's text: not copied behind a magic first), with
/// `magic` before it; returns the body's digest (the trailer written, whole or through a delta).
fuse::Hash128 write_cache_body(const std::filesystem::path& file, const char (&magic)[8],
                               std::string_view body);

/// A read-only mapping of a whole file (munmap when done).
class FileMapping {
public:
  FileMapping() = default;
  FileMapping(const char* data, size_t size) : m_data(data), m_size(size) {}
  FileMapping(FileMapping&& o) noexcept : m_data(o.m_data), m_size(o.m_size) {
    o.m_data = nullptr;
    o.m_size = 0;
  }
  FileMapping& operator=(FileMapping&& o) noexcept;
  FileMapping(const FileMapping&) = delete;
  FileMapping& operator=(const FileMapping&) = delete;
  ~FileMapping();
  const char* data() const { return m_data; }
  size_t size() const { return m_size; }

private:
  const char* m_data = nullptr;
  size_t m_size = 0;
};

/// A cache file read back whole: what followed the magic, without the digest. Mapped from
/// the file as it is when no delta applies (nothing copied); otherwise the base and its delta
/// put together in `buffer`.
struct CacheBytes {
  FileMapping mapping;
  std::unique_ptr<char[]> buffer; ///< not zeroed first: a patch's cache is tens of MB
  const char* data = nullptr;
  size_t size = 0;
  fuse::Hash128 digest; ///< XXH3-128 of the body (checked)
};

/// Bytes as pieces held elsewhere, in order: a cache read back without putting its base and
/// delta together, a kept patch text spliced with fresh files (tens of MB never copied).
struct Pieces {
  std::vector<std::string_view> parts;
  size_t size = 0;
  /// Appends `s` (joined to the last part when it follows it in memory).
  void append(std::string_view s);
  /// Appends the bytes [at, at + n) of `from`; `cursor` (start at {}) remembers where the last
  /// call ended, for calls in increasing `at`.
  struct Cursor {
    size_t part = 0;
    size_t part_at = 0;
  };
  bool append_slice(const Pieces& from, size_t at, size_t n, Cursor& cursor);
  std::string joined() const;
};

/// A cache file read back as its base's mapping and its delta's edits, not put together: the
/// body is pieces of the two. Not to be copied (the pieces point into it).
struct CachePieces {
  CachePieces() = default;
  CachePieces(const CachePieces&) = delete;
  CachePieces& operator=(const CachePieces&) = delete;
  FileMapping base;
  std::string_view base_body;  ///< in `base`
  fuse::Hash128 base_sum;      ///< the base's digest as written (its trailer)
  std::vector<ByteEdit> edits; ///< the delta's
  Pieces body;
  fuse::Hash128 digest; ///< of the body (checked)
};

/// read_cache_file's checks, its answer in pieces.
std::unique_ptr<CachePieces> read_cache_pieces(const std::filesystem::path& file,
                                               const char (&magic)[8]);

/// write_cache_body for a body in pieces. When `loaded` (what read_cache_pieces gave) is of the
/// base still there, the delta is where the pieces leave that base's mapping: found without
/// comparing a byte. Returns the body's digest.
fuse::Hash128 write_cache_pieces(const std::filesystem::path& file, const char (&magic)[8],
                                 const Pieces& body, const CachePieces* loaded);

/// Reads `file` back: nullopt unless its magic is `magic` and the digest matches, and, when
/// `file` + ".delta" exists, unless the delta is whole, of this very base, and makes bytes
/// of the digest it names (a delta that cannot be trusted makes no cache, never another).
std::optional<CacheBytes> read_cache_file(const std::filesystem::path& file,
                                          const char (&magic)[8]);

/// Removes `file` and its delta.
void remove_cache_file(const std::filesystem::path& file);

} // namespace ws
