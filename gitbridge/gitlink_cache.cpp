#include "gitbridge/gitlink_cache.hpp"

#include "fuse/unique_fd.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>

namespace ws::gitbridge {

namespace {

constexpr std::string_view k_magic = "ws-gitlinks 1\n";

int64_t ns_of(const timespec& t) {
  return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

/// The key line: which index content the entries below belong to.
std::string key_of(const IndexStamp& index) {
  std::string key;
  char hex[3];
  for (unsigned char b : index.checksum) {
    std::snprintf(hex, sizeof hex, "%02x", b);
    key += hex;
  }
  return key + " " + std::to_string(index.size) + "\n";
}

} // namespace

std::optional<IndexStamp> index_stamp(const std::filesystem::path& index_file) {
  fuse::UniqueFd fd(::open(index_file.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st {};
  IndexStamp s;
  // The smallest index: a 12-byte header and the checksum.
  if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) ||
      st.st_size < static_cast<off_t>(12 + s.checksum.size())) {
    return std::nullopt;
  }
  off_t at = st.st_size - static_cast<off_t>(s.checksum.size());
  if (::pread(fd.get(), s.checksum.data(), s.checksum.size(), at) !=
      static_cast<ssize_t>(s.checksum.size())) {
    return std::nullopt;
  }
  if (std::all_of(s.checksum.begin(), s.checksum.end(), [](unsigned char b) { return b == 0; })) {
    return std::nullopt; // index.skipHash: no content identity
  }
  s.dev = st.st_dev;
  s.ino = st.st_ino;
  s.size = static_cast<uint64_t>(st.st_size);
  s.ctime_ns = ns_of(st.st_ctim);
  s.mtime_ns = ns_of(st.st_mtim);
  return s;
}

std::optional<Gitlinks> load_gitlinks(const std::filesystem::path& cache, const IndexStamp& index) {
  std::ifstream in(cache, std::ios::binary);
  if (!in) {
    return std::nullopt;
  }
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string head = std::string(k_magic) + key_of(index);
  if (text.compare(0, head.size(), head) != 0) {
    return std::nullopt; // another index's, or not ours
  }
  // Then one record per gitlink: '0' (at stage 0) or '1' (only in a conflict), its path, NUL.
  Gitlinks links;
  for (size_t at = head.size(); at < text.size();) {
    size_t end = text.find('\0', at);
    if (end == std::string::npos || end - at < 2 || (text[at] != '0' && text[at] != '1')) {
      return std::nullopt; // cut short or foreign: read the index
    }
    links.emplace(text.substr(at + 1, end - at - 1), text[at] == '0');
    at = end + 1;
  }
  return links;
}

void save_gitlinks(const std::filesystem::path& cache, const IndexStamp& index,
                   const Gitlinks& links) {
  std::string text = std::string(k_magic) + key_of(index);
  for (const auto& [path, staged] : links) {
    text += staged ? '0' : '1';
    text += path;
    text += '\0';
  }
  std::filesystem::path tmp = cache;
  tmp += ".tmp." + std::to_string(::getpid());
  fuse::UniqueFd fd(
      ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) {
    return;
  }
  bool ok = ::write(fd.get(), text.data(), text.size()) == static_cast<ssize_t>(text.size());
  fd.reset();
  if (!ok || ::rename(tmp.c_str(), cache.c_str()) != 0) {
    ::unlink(tmp.c_str());
  }
}

} // namespace ws::gitbridge
