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

/// A delta's bytes: `edits` make the body of digest `sum` (`size` bytes) from the base of
/// digest `base_sum` (`base_size` bytes).
std::string delta_bytes(const fuse::Hash128& base_sum, size_t base_size, size_t size,
                        const fuse::Hash128& sum, const std::vector<ByteEdit>& edits) {
  Writer w(k_delta_magic);
  w.put(base_sum.high);
  w.put(base_sum.low);
  w.put(static_cast<uint64_t>(base_size));
  w.put(static_cast<uint64_t>(size));
  w.put(sum.high);
  w.put(sum.low);
  w.put(static_cast<uint64_t>(edits.size()));
  for (const ByteEdit& e : edits) {
    w.put(e.at);
    w.put(e.old_size);
    w.put(e.bytes);
  }
  return std::move(w.out());
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
  return delta_bytes(trailer_of(base), base_body.size(), body.size(), sum, *edits);
}

/// The edits that make `body` from `base` when parts of `body` are parts of `base`'s very
/// bytes (a body spliced from pieces of the mapped base): a part that lies in the base after
/// the last one taken is the base's, the rest is new. nullopt past `budget` (delta_for's rule)
/// or 1,024 edits.
std::optional<std::vector<ByteEdit>> edits_of_pieces(std::string_view base, const Pieces& body,
                                                     size_t budget) {
  std::vector<ByteEdit> edits;
  const auto lo = reinterpret_cast<uintptr_t>(base.data());
  const uintptr_t hi = lo + base.size();
  size_t from = 0, spent = 0;
  std::string pending;
  auto close_at = [&](size_t at) {
    if (at > from || !pending.empty()) {
      edits.push_back(ByteEdit{from, at - from, std::move(pending)});
      pending.clear();
      spent += 3 * sizeof(uint64_t);
    }
  };
  for (std::string_view p : body.parts) {
    const auto at = reinterpret_cast<uintptr_t>(p.data());
    if (at >= lo && at + p.size() <= hi && at - lo >= from) {
      close_at(at - lo);
      from = at - lo + p.size();
    } else {
      pending.append(p);
      spent += p.size();
    }
    if (spent > budget || edits.size() > 1024) {
      return std::nullopt;
    }
  }
  close_at(base.size());
  if (spent > budget || edits.size() > 1024) {
    return std::nullopt;
  }
  return edits;
}

fuse::Hash128 hash_pieces(const Pieces& body) {
  if (body.parts.size() == 1) {
    return fuse::hash_bytes(body.parts[0]);
  }
  fuse::Hasher h;
  for (std::string_view p : body.parts) {
    h.update(p.data(), p.size());
  }
  return h.digest();
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

void Pieces::append(std::string_view s) {
  if (s.empty()) {
    return;
  }
  size += s.size();
  if (!parts.empty() && parts.back().data() + parts.back().size() == s.data()) {
    parts.back() = std::string_view(parts.back().data(), parts.back().size() + s.size());
    return;
  }
  parts.push_back(s);
}

bool Pieces::append_slice(const Pieces& from, size_t at, size_t n, Cursor& c) {
  if (at < c.part_at || at > from.size || n > from.size - at) {
    return false;
  }
  while (n > 0) {
    // Move to the part holding `at`.
    while (c.part < from.parts.size() && at >= c.part_at + from.parts[c.part].size()) {
      c.part_at += from.parts[c.part].size();
      ++c.part;
    }
    if (c.part == from.parts.size()) {
      return false;
    }
    std::string_view part = from.parts[c.part];
    const size_t off = at - c.part_at;
    const size_t take = std::min(n, part.size() - off);
    append(part.substr(off, take));
    at += take;
    n -= take;
  }
  return true;
}

std::string Pieces::joined() const {
  std::string out;
  out.reserve(size);
  for (std::string_view p : parts) {
    out.append(p);
  }
  return out;
}

std::unique_ptr<CachePieces> read_cache_pieces(const std::filesystem::path& file,
                                               const char (&magic)[8]) {
  std::optional<Checked> base = read_checked(file, magic);
  if (!base) {
    return nullptr;
  }
  bool absent = false;
  std::optional<Checked> delta = read_checked(delta_of(file), k_delta_magic, &absent);
  auto out = std::make_unique<CachePieces>();
  out->base_body = base->body;
  out->base_sum = base->sum;
  if (!delta) {
    if (!absent) {
      return nullptr; // a delta there that cannot be read: no cache
    }
    out->body.append(base->body);
    out->digest = base->sum;
    out->base = std::move(base->mapping);
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
    return nullptr; // of another base (folded since), or damaged
  }
  out->edits.resize(count);
  for (ByteEdit& e : out->edits) {
    e.at = r.get<uint64_t>();
    e.old_size = r.get<uint64_t>();
    r.get(e.bytes);
  }
  if (r.bad() || !r.done()) {
    return nullptr;
  }
  // The body: the base between the edits, each edit's bytes (apply_byte_edits's rules).
  const std::string_view b = base->body;
  size_t from = 0;
  for (const ByteEdit& e : out->edits) {
    if (e.at < from || e.at > b.size() || e.old_size > b.size() - e.at) {
      return nullptr;
    }
    out->body.append(b.substr(from, e.at - from));
    out->body.append(e.bytes);
    from = e.at + e.old_size;
  }
  out->body.append(b.substr(from));
  if (out->body.size != size || !(hash_pieces(out->body) == sum)) {
    return nullptr;
  }
  out->digest = sum;
  out->base = std::move(base->mapping);
  return out;
}

std::optional<CacheBytes> read_cache_file(const std::filesystem::path& file,
                                          const char (&magic)[8]) {
  std::unique_ptr<CachePieces> p = read_cache_pieces(file, magic);
  if (!p) {
    return std::nullopt;
  }
  CacheBytes out;
  out.size = p->body.size;
  out.digest = p->digest;
  const bool in_base = p->body.parts.empty() || (p->body.parts.size() == 1 && p->edits.empty());
  if (in_base) {
    out.data = p->base_body.data(); // the mapping as it is: nothing copied
    out.mapping = std::move(p->base);
    return out;
  }
  out.buffer = std::make_unique_for_overwrite<char[]>(out.size);
  size_t at = 0;
  for (std::string_view part : p->body.parts) {
    std::memcpy(out.buffer.get() + at, part.data(), part.size());
    at += part.size();
  }
  out.data = out.buffer.get();
  return out;
}

fuse::Hash128 write_cache_pieces(const std::filesystem::path& file, const char (&magic)[8],
                                 const Pieces& body, const CachePieces* loaded) {
  if (loaded) {
    // The base still there is the one `loaded` mapped (its digest, as this command found it
    // whole: not hashed again).
    std::optional<Checked> base = read_checked(file, magic, nullptr, true);
    if (base && base->sum == loaded->base_sum && base->body.size() == loaded->base_body.size()) {
      if (std::optional<std::vector<ByteEdit>> edits =
              edits_of_pieces(loaded->base_body, body, loaded->base_body.size() / 8)) {
        const fuse::Hash128 sum = hash_pieces(body);
        std::string d =
            delta_bytes(loaded->base_sum, loaded->base_body.size(), body.size, sum, *edits);
        std::string_view d_body = std::string_view(d).substr(8);
        if (write_whole(delta_of(file), k_delta_magic, d_body, fuse::hash_bytes(d_body))) {
          spdlog::debug("{}: delta of {} bytes", file.filename().string(), d.size());
          return sum;
        }
      }
    }
  }
  if (body.parts.size() == 1) {
    return write_cache_body(file, magic, body.parts[0]);
  }
  // Another base, or too much changed: compared (write_cache_body) or written whole.
  return write_cache_body(file, magic, body.joined());
}

void remove_cache_file(const std::filesystem::path& file) {
  ::unlink(delta_of(file).c_str());
  ::unlink(file.c_str());
}

} // namespace ws
