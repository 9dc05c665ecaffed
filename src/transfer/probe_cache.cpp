// What was read of the workspace's files, kept so that the next command need not read them.
#include "src/transfer/probe_cache.hpp"

#include "fuse/unique_fd.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>

namespace ws {

namespace {

using fuse::UniqueFd;

constexpr char k_magic[8] = {'w', 's', 'p', 'r', 'o', 'b', 'e', '2'};
/// Older than this before the command started, a ctime is settled: no later write can
/// leave it as it is. A tick of the kernel's coarse clock is a few milliseconds; a second
/// covers filesystems that keep whole seconds.
constexpr int64_t k_settle_ns = 2'000'000'000;
constexpr uint64_t k_binary_bit = uint64_t{1} << 63;
constexpr uint64_t k_recoded_bit = uint64_t{1} << 62;
constexpr uint64_t k_fact_bits = k_binary_bit | k_recoded_bit;

/// On disk: the header, then one record per file, sorted by inode.
struct Header {
  char magic[8];
  uint64_t dev;
  uint64_t dir_ino;
  uint64_t count;
};
struct Record {
  uint64_t ino;
  int64_t ctime_ns;
  int64_t mtime_ns;
  uint64_t size_and_binary; ///< the size, k_binary_bit for a binary file, k_recoded_bit
};

bool read_all(int fd, char* out, size_t n) {
  while (n > 0) {
    ssize_t got = ::read(fd, out, n);
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got <= 0) {
      return false;
    }
    out += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

bool write_all(int fd, const char* in, size_t n) {
  while (n > 0) {
    ssize_t put = ::write(fd, in, n);
    if (put < 0 && errno == EINTR) {
      continue;
    }
    if (put <= 0) {
      return false;
    }
    in += put;
    n -= static_cast<size_t>(put);
  }
  return true;
}

} // namespace

ProbeCache::ProbeCache(std::filesystem::path file, int upper, int64_t start_ns)
    : m_file(std::move(file)), m_settled_before(start_ns - k_settle_ns) {
  struct stat dir {};
  if (::fstat(upper, &dir) != 0) {
    return;
  }
  m_enabled = true;
  m_dev = dir.st_dev;
  m_dir_ino = dir.st_ino;
  UniqueFd fd(::open(m_file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  Header h{};
  if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) ||
      !read_all(fd.get(), reinterpret_cast<char*>(&h), sizeof h) ||
      std::memcmp(h.magic, k_magic, sizeof k_magic) != 0 || h.dev != m_dev ||
      h.dir_ino != m_dir_ino ||
      static_cast<uint64_t>(st.st_size) != sizeof h + h.count * sizeof(Record)) {
    return;
  }
  std::vector<Record> records(h.count);
  if (!read_all(fd.get(), reinterpret_cast<char*>(records.data()), h.count * sizeof(Record))) {
    return;
  }
  m_entries.reserve(records.size());
  for (const Record& r : records) {
    if (!m_entries.empty() && m_entries.back().stamp.ino >= r.ino) {
      m_entries.clear(); // not ours: answer nothing
      break;
    }
    m_entries.push_back(
        {{r.ino, r.ctime_ns, r.mtime_ns, r.size_and_binary & ~k_fact_bits},
         {(r.size_and_binary & k_binary_bit) != 0, (r.size_and_binary & k_recoded_bit) != 0}});
  }
  m_used.assign(m_entries.size(), false);
}

std::optional<ProbedFacts> ProbeCache::facts(const FileStamp& stamp) {
  auto it = std::lower_bound(m_entries.begin(), m_entries.end(), stamp.ino,
                             [](const Entry& e, uint64_t ino) { return e.stamp.ino < ino; });
  if (it == m_entries.end() || !(it->stamp == stamp)) {
    return std::nullopt;
  }
  m_used[static_cast<size_t>(it - m_entries.begin())] = true;
  return it->facts;
}

void ProbeCache::learn(const FileStamp& stamp, ProbedFacts facts) {
  if (!m_enabled || stamp.ino == 0 || stamp.ctime_ns >= m_settled_before ||
      (stamp.size & k_fact_bits) != 0) {
    return;
  }
  if (std::optional<ProbedFacts> known = this->facts(stamp); known && *known == facts) {
    return; // known already (ws diff reads every file, known or not)
  }
  m_learned.push_back({stamp, facts});
}

void ProbeCache::save() {
  if (!m_enabled ||
      (m_learned.empty() && std::find(m_used.begin(), m_used.end(), false) == m_used.end())) {
    return; // nothing new, nothing gone
  }
  std::vector<Entry> keep = std::move(m_learned);
  for (size_t i = 0; i < m_entries.size(); ++i) {
    if (m_used[i]) {
      keep.push_back(m_entries[i]);
    }
  }
  // One entry per inode (hard links share one); what was learned now comes first.
  std::stable_sort(keep.begin(), keep.end(),
                   [](const Entry& a, const Entry& b) { return a.stamp.ino < b.stamp.ino; });
  keep.erase(std::unique(keep.begin(), keep.end(),
                         [](const Entry& a, const Entry& b) { return a.stamp.ino == b.stamp.ino; }),
             keep.end());
  std::string bytes(sizeof(Header) + keep.size() * sizeof(Record), '\0');
  Header h{};
  std::memcpy(h.magic, k_magic, sizeof k_magic);
  h.dev = m_dev;
  h.dir_ino = m_dir_ino;
  h.count = keep.size();
  std::memcpy(bytes.data(), &h, sizeof h);
  for (size_t i = 0; i < keep.size(); ++i) {
    const Entry& e = keep[i];
    Record r{e.stamp.ino, e.stamp.ctime_ns, e.stamp.mtime_ns,
             e.stamp.size | (e.facts.binary ? k_binary_bit : 0) |
                 (e.facts.recoded ? k_recoded_bit : 0)};
    std::memcpy(bytes.data() + sizeof h + i * sizeof r, &r, sizeof r);
  }
  // Written aside and renamed over: a reader sees the old file or the new one, whole.
  std::filesystem::path tmp = m_file;
  tmp += ".tmp." + std::to_string(::getpid());
  UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) {
    return;
  }
  bool ok = write_all(fd.get(), bytes.data(), bytes.size());
  fd.reset();
  if (!ok || ::rename(tmp.c_str(), m_file.c_str()) != 0) {
    ::unlink(tmp.c_str());
  }
}

} // namespace ws
