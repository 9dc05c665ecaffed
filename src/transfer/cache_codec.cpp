// The byte layout of ws's caches (cache_codec.hpp).
#include "src/transfer/cache_codec.hpp"

#include "fuse/hash.hpp"
#include "fuse/unique_fd.hpp"
#include "src/transfer/cache_delta.hpp"

#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>
#include <vector>

namespace ws {

namespace {

constexpr char k_delta_magic[8] = {'w', 's', 'd', 'e', 'l', 't', 'a', '1'};
constexpr size_t k_trailer = 16; // the XXH3-128 of the body

std::filesystem::path delta_of(const std::filesystem::path& file) {
  std::filesystem::path d = file;
  d += ".delta";
  return d;
}

/// Writes `magic`, `body` and `sum` (of the body) to `file`, through a temporary file renamed
/// over it.
bool write_whole(const std::filesystem::path& file, const char* magic, std::string_view body,
                 const fuse::Hash128& sum) {
  std::filesystem::path tmp = file;
  tmp += ".new." + std::to_string(::getpid()); // two commands at once: each its own
  fuse::UniqueFd fd(
      ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) {
    return false;
  }
  char tail[k_trailer];
  std::memcpy(tail, &sum.high, 8);
  std::memcpy(tail + 8, &sum.low, 8);
  for (std::string_view part :
       {std::string_view(magic, 8), body, std::string_view(tail, k_trailer)}) {
    for (size_t done = 0; done < part.size();) {
      ssize_t put = ::write(fd.get(), part.data() + done, part.size() - done);
      if (put < 0 && errno == EINTR) {
        continue;
      }
      if (put <= 0) {
        ::unlink(tmp.c_str());
        return false;
      }
      done += static_cast<size_t>(put);
    }
  }
  fd.reset();
  if (::rename(tmp.c_str(), file.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

/// `file` mapped whole; nullopt when it is not a regular file of at least a magic and a
/// digest (`absent`: it does not exist).
std::optional<FileMapping> map_file(const std::filesystem::path& file, bool* absent = nullptr,
                                    struct stat* stat_out = nullptr) {
  fuse::UniqueFd fd(::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd && absent) {
    *absent = errno == ENOENT;
  }
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) ||
      st.st_size < static_cast<off_t>(8 + k_trailer)) {
    return std::nullopt;
  }
  const size_t n = static_cast<size_t>(st.st_size);
  // Written once through a renamed temporary file and never in place: the mapped bytes stay
  // as they are while mapped.
  void* p = ::mmap(nullptr, n, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd.get(), 0);
  if (p == MAP_FAILED) {
    return std::nullopt;
  }
  if (stat_out) {
    *stat_out = st;
  }
  return FileMapping(static_cast<const char*>(p), n);
}

/// A mapped cache file whose magic is `magic` and whose digest matches its body.
struct Checked {
  FileMapping mapping;
  std::string_view body;
  fuse::Hash128 sum;
};

fuse::Hash128 trailer_of(const FileMapping& m) {
  fuse::Hash128 kept{};
  std::memcpy(&kept.high, m.data() + m.size() - k_trailer, 8);
  std::memcpy(&kept.low, m.data() + m.size() - k_trailer + 8, 8);
  return kept;
}

/// The files a command found whole (read_checked), by their stat: the same command keeping
/// the cache again (write_cache_file) need not hash tens of MB a second time to know its base
/// is whole. A cache file
/// is never written in place (a renamed temporary file): another content is another inode,
/// and a change in place would move ctime.
struct Verified {
  std::string path;
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  struct timespec mtime {};
  struct timespec ctime {};
};
std::mutex g_verified_lock;
std::vector<Verified> g_verified; // guarded by g_verified_lock; a few entries

Verified verified_of(const std::filesystem::path& file, const struct stat& st) {
  return {file.string(), st.st_dev, st.st_ino, st.st_size, st.st_mtim, st.st_ctim};
}

bool same(const Verified& a, const Verified& b) {
  return a.path == b.path && a.dev == b.dev && a.ino == b.ino && a.size == b.size &&
         a.mtime.tv_sec == b.mtime.tv_sec && a.mtime.tv_nsec == b.mtime.tv_nsec &&
         a.ctime.tv_sec == b.ctime.tv_sec && a.ctime.tv_nsec == b.ctime.tv_nsec;
}

/// With `trust_verified` (only to choose what to write: a wrong guess costs a full read
/// later, never a wrong answer), a file this command found whole already is not hashed again.
std::optional<Checked> read_checked(const std::filesystem::path& file, const char (&magic)[8],
                                    bool* absent = nullptr, bool trust_verified = false) {
  struct stat st {};
  std::optional<FileMapping> m = map_file(file, absent, &st);
  if (!m || std::memcmp(m->data(), magic, 8) != 0) {
    return std::nullopt;
  }
  std::string_view body(m->data() + 8, m->size() - 8 - k_trailer);
  fuse::Hash128 kept = trailer_of(*m);
  const Verified now = verified_of(file, st);
  if (trust_verified) {
    std::lock_guard lock(g_verified_lock);
    for (const Verified& v : g_verified) {
      if (same(v, now)) {
        return Checked{std::move(*m), body, kept};
      }
    }
  }
  if (!(fuse::hash_bytes(body) == kept)) {
    return std::nullopt;
  }
  std::lock_guard lock(g_verified_lock);
  std::erase_if(g_verified, [&](const Verified& v) { return v.path == now.path; });
  g_verified.push_back(now);
  return Checked{std::move(*m), body, kept};
}

/// The delta that makes `body` from the base mapped in `base`, or nullopt when writing the
/// base whole again is the better (or only) way.
std::optional<std::string> delta_for(const FileMapping& base, const char* magic,
                                     std::string_view body, const fuse::Hash128& sum) {
  if (std::memcmp(base.data(), magic, 8) != 0) {
    return std::nullopt; // another format: rewritten whole
  }
  std::string_view base_body(base.data() + 8, base.size() - 8 - k_trailer);
  // Past an eighth of the base, reading base and delta costs more than a base of its own.
  std::optional<std::vector<ByteEdit>> edits = byte_edits(base_body, body, base_body.size() / 8);
  if (!edits) {
    return std::nullopt;
  }
  // The base's digest as written: a delta of another base (folded meanwhile) never applies.
  fuse::Hash128 base_sum = trailer_of(base);
  Writer w(k_delta_magic);
  w.put(base_sum.high);
  w.put(base_sum.low);
  w.put(static_cast<uint64_t>(base_body.size()));
  w.put(static_cast<uint64_t>(body.size()));
  w.put(sum.high);
  w.put(sum.low);
  w.put(static_cast<uint64_t>(edits->size()));
  for (const ByteEdit& e : *edits) {
    w.put(e.at);
    w.put(e.old_size);
    w.put(e.bytes);
  }
  return std::move(w.out());
}

} // namespace

FileMapping& FileMapping::operator=(FileMapping&& o) noexcept {
  if (this != &o) {
    if (m_data) {
      ::munmap(const_cast<char*>(m_data), m_size);
    }
    m_data = o.m_data;
    m_size = o.m_size;
    o.m_data = nullptr;
    o.m_size = 0;
  }
  return *this;
}

FileMapping::~FileMapping() {
  if (m_data) {
    ::munmap(const_cast<char*>(m_data), m_size);
  }
}

void write_cache_file(const std::filesystem::path& file, const std::string& bytes) {
  if (bytes.size() < 8) {
    return;
  }
  char magic[8];
  std::memcpy(magic, bytes.data(), 8);
  write_cache_body(file, magic, std::string_view(bytes).substr(8));
}

fuse::Hash128 write_cache_body(const std::filesystem::path& file, const char (&magic)[8],
                               std::string_view body) {
  const fuse::Hash128 sum = fuse::hash_bytes(body);
  const std::filesystem::path delta = delta_of(file);
  const char* why = "no base";
  // Only against a base that reads back whole (a damaged one is replaced, not built on).
  if (std::optional<Checked> base = read_checked(file, magic, nullptr, true)) {
    why = "the delta would be too large";
    if (std::optional<std::string> d = delta_for(base->mapping, magic, body, sum)) {
      std::string_view d_body = std::string_view(*d).substr(8);
      if (write_whole(delta, k_delta_magic, d_body, fuse::hash_bytes(d_body))) {
        spdlog::debug("{}: delta of {} bytes", file.filename().string(), d->size());
        return sum;
      }
    }
  }
  spdlog::debug("{}: written whole ({})", file.filename().string(), why);
  // Whole: the delta goes first, so that no reader meets the new base with an old delta (it
  // meets the old base alone, a cache of an earlier token, or the new one).
  ::unlink(delta.c_str());
  write_whole(file, magic, body, sum);
  return sum;
}

std::optional<CacheBytes> read_cache_file(const std::filesystem::path& file,
                                          const char (&magic)[8]) {
  std::optional<Checked> base = read_checked(file, magic);
  if (!base) {
    return std::nullopt;
  }
  bool absent = false;
  std::optional<Checked> delta = read_checked(delta_of(file), k_delta_magic, &absent);
  if (!delta) {
    if (!absent) {
      return std::nullopt; // a delta there that cannot be read: no cache
    }
    CacheBytes out;
    out.data = base->body.data();
    out.size = base->body.size();
    out.digest = base->sum;
    out.mapping = std::move(base->mapping);
    return out;
  }
  Reader r(delta->body.data(), delta->body.size());
  fuse::Hash128 base_sum, sum;
  base_sum.high = r.get<uint64_t>();
  base_sum.low = r.get<uint64_t>();
  const uint64_t base_size = r.get<uint64_t>();
  const uint64_t size = r.get<uint64_t>();
  sum.high = r.get<uint64_t>();
  sum.low = r.get<uint64_t>();
  const uint64_t count = r.get<uint64_t>();
  if (r.bad() || !(base_sum == base->sum) || base_size != base->body.size() ||
      size > base_size + delta->body.size() || count > delta->body.size() / 24) {
    return std::nullopt; // of another base (folded since), or damaged
  }
  std::vector<ByteEdit> edits(count);
  for (ByteEdit& e : edits) {
    e.at = r.get<uint64_t>();
    e.old_size = r.get<uint64_t>();
    r.get(e.bytes);
  }
  if (r.bad() || !r.done()) {
    return std::nullopt;
  }
  CacheBytes out;
  out.buffer = std::make_unique_for_overwrite<char[]>(size);
  if (!apply_byte_edits(base->body, edits, size, out.buffer.get()) ||
      !(fuse::hash_bytes(std::string_view(out.buffer.get(), size)) == sum)) {
    return std::nullopt;
  }
  out.data = out.buffer.get();
  out.size = size;
  out.digest = sum;
  return out;
}

void remove_cache_file(const std::filesystem::path& file) {
  ::unlink(delta_of(file).c_str());
  ::unlink(file.c_str());
}

} // namespace ws
