// The last plan of the live workspace, kept between commands (plan_cache.hpp).
#include "src/transfer/plan_cache.hpp"

#include "fuse/hash.hpp"
#include "fuse/unique_fd.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

namespace ws {

namespace {

using fuse::UniqueFd;

constexpr char k_magic[8] = {'w', 's', 'p', 'l', 'a', 'n', '0', '1'};

/// Appends fixed-size values and length-prefixed strings to one buffer.
class Writer {
public:
  template <typename T> void put(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    m_out.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void put(const std::string& s) {
    put(static_cast<uint32_t>(s.size()));
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
    uint32_t n = get<uint32_t>();
    if (m_bad || static_cast<size_t>(m_end - m_p) < n) {
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

enum Flags : uint8_t {
  k_base = 1,
  k_base_hash = 2,
  k_real_mode = 4,
  k_unseen = 8,
};

bool valid_kind(char k) {
  return k == 'A' || k == 'M' || k == 'D' || k == 'R' || k == 'T';
}

} // namespace

std::optional<CachedPlan> load_plan_cache(const std::filesystem::path& file) {
  UniqueFd fd(::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) ||
      st.st_size < static_cast<off_t>(sizeof k_magic + 16)) {
    return std::nullopt;
  }
  std::string data(static_cast<size_t>(st.st_size), '\0');
  for (size_t done = 0; done < data.size();) {
    ssize_t got = ::read(fd.get(), data.data() + done, data.size() - done);
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got <= 0) {
      return std::nullopt;
    }
    done += static_cast<size_t>(got);
  }
  // magic, payload, XXH3-128 of the payload (a torn or damaged file reads as none).
  size_t payload = data.size() - sizeof k_magic - 16;
  fuse::Hash128 sum = fuse::hash_bytes(std::string_view(data).substr(sizeof k_magic, payload));
  fuse::Hash128 kept{};
  std::memcpy(&kept.high, data.data() + sizeof k_magic + payload, 8);
  std::memcpy(&kept.low, data.data() + sizeof k_magic + payload + 8, 8);
  if (std::memcmp(data.data(), k_magic, sizeof k_magic) != 0 || !(sum == kept)) {
    return std::nullopt;
  }
  Reader r(data.data() + sizeof k_magic, payload);
  CachedPlan out;
  r.get(out.token);
  r.get(out.inputs);
  uint64_t count = r.get<uint64_t>();
  if (r.bad() || count > payload / 8) {
    return std::nullopt;
  }
  out.plan.resize(count);
  for (PlannedChange& p : out.plan) {
    fuse::Change& c = p.change;
    char kind = r.get<char>();
    uint8_t verdict = r.get<uint8_t>();
    uint8_t flags = r.get<uint8_t>();
    if (!valid_kind(kind) || verdict > static_cast<uint8_t>(filters::Verdict::Blocked)) {
      return std::nullopt;
    }
    c.kind = static_cast<fuse::ChangeKind>(kind);
    p.decision.verdict = static_cast<filters::Verdict>(verdict);
    r.get(c.path);
    r.get(c.from);
    r.get(p.decision.reason);
    c.mode = r.get<uint32_t>();
    c.size = r.get<uint64_t>();
    c.ino = r.get<uint64_t>();
    c.mtime_ns = r.get<int64_t>();
    c.ctime_ns = r.get<int64_t>();
    c.unseen = (flags & k_unseen) != 0;
    if (flags & k_real_mode) {
      c.real_mode = r.get<uint32_t>();
    }
    if (flags & k_base) {
      fuse::Identity& b = c.base.emplace();
      b.ino = r.get<uint64_t>();
      b.size = r.get<uint64_t>();
      b.mtime_ns = r.get<int64_t>();
      b.mode = r.get<uint32_t>();
      if (flags & k_base_hash) {
        fuse::Hash128& h = b.hash.emplace();
        h.high = r.get<uint64_t>();
        h.low = r.get<uint64_t>();
      }
    }
    if (r.bad()) {
      return std::nullopt;
    }
  }
  if (!r.done()) {
    return std::nullopt;
  }
  return out;
}

void save_plan_cache(const std::filesystem::path& file, const std::string& token,
                     const std::string& inputs, const std::vector<PlannedChange>& plan) {
  Writer w;
  w.out().reserve(64 + plan.size() * 80);
  w.out().append(k_magic, sizeof k_magic);
  w.put(token);
  w.put(inputs);
  w.put(static_cast<uint64_t>(plan.size()));
  for (const PlannedChange& p : plan) {
    const fuse::Change& c = p.change;
    uint8_t flags = (c.base ? k_base : 0) | (c.base && c.base->hash ? k_base_hash : 0) |
                    (c.real_mode ? k_real_mode : 0) | (c.unseen ? k_unseen : 0);
    w.put(static_cast<char>(c.kind));
    w.put(static_cast<uint8_t>(p.decision.verdict));
    w.put(flags);
    w.put(c.path);
    w.put(c.from);
    w.put(p.decision.reason);
    w.put(static_cast<uint32_t>(c.mode));
    w.put(c.size);
    w.put(c.ino);
    w.put(c.mtime_ns);
    w.put(c.ctime_ns);
    if (c.real_mode) {
      w.put(static_cast<uint32_t>(*c.real_mode));
    }
    if (c.base) {
      w.put(c.base->ino);
      w.put(c.base->size);
      w.put(c.base->mtime_ns);
      w.put(static_cast<uint32_t>(c.base->mode));
      if (c.base->hash) {
        w.put(c.base->hash->high);
        w.put(c.base->hash->low);
      }
    }
  }
  fuse::Hash128 sum = fuse::hash_bytes(std::string_view(w.out()).substr(sizeof k_magic));
  w.put(sum.high);
  w.put(sum.low);
  std::filesystem::path tmp = file;
  tmp += ".new." + std::to_string(::getpid()); // two commands at once: each its own
  UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) {
    return;
  }
  const std::string& out = w.out();
  for (size_t done = 0; done < out.size();) {
    ssize_t put = ::write(fd.get(), out.data() + done, out.size() - done);
    if (put < 0 && errno == EINTR) {
      continue;
    }
    if (put <= 0) {
      ::unlink(tmp.c_str());
      return;
    }
    done += static_cast<size_t>(put);
  }
  fd.reset();
  if (::rename(tmp.c_str(), file.c_str()) != 0) {
    ::unlink(tmp.c_str());
  }
}

bool only_staging_leftovers(const std::vector<std::string>& changed,
                            const std::filesystem::path& real, const std::filesystem::path& upper,
                            const std::vector<PlannedChange>& plan) {
  constexpr std::string_view prefix = ".ws-apply-";
  std::vector<std::string> tops;
  for (const std::string& name : changed) {
    std::string top = name.substr(0, name.find('/'));
    if (top.compare(0, prefix.size(), prefix) != 0 || top.size() == prefix.size() ||
        top.find_first_not_of("0123456789-", prefix.size()) != std::string::npos) {
      return false;
    }
    tops.push_back(std::move(top));
  }
  for (const std::string& top : tops) {
    struct stat st {};
    for (const auto& root : {real, upper}) {
      if (::lstat((root / top).c_str(), &st) == 0 || errno != ENOENT) {
        return false;
      }
    }
    for (const PlannedChange& p : plan) {
      for (const std::string* path : {&p.change.path, &p.change.from}) {
        if (path->compare(0, top.size(), top) == 0 &&
            (path->size() == top.size() || (*path)[top.size()] == '/')) {
          return false;
        }
      }
    }
  }
  return true;
}

void drop_plan_cache(const std::filesystem::path& file) {
  ::unlink(file.c_str());
}

} // namespace ws
