#pragma once

// The byte layout of ws's caches in the workspace's state (plan-cache, patch-cache): fixed-
// size values and length-prefixed strings after an 8-byte magic, an XXH3-128 of all of it
// at the end. A cache that does not read back whole is no cache.
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

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
/// over it. Fails silently: it is a cache.
void write_cache_file(const std::filesystem::path& file, const std::string& bytes);

/// A cache file read back whole: what followed the magic, without the digest.
struct CacheBytes {
  std::unique_ptr<char[]> buffer; ///< not zeroed first: a patch's cache is tens of MB
  const char* data = nullptr;
  size_t size = 0;
};

/// Reads `file` back: nullopt unless its magic is `magic` and the digest matches.
std::optional<CacheBytes> read_cache_file(const std::filesystem::path& file,
                                          const char (&magic)[8]);

} // namespace ws
