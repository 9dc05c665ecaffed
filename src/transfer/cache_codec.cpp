// The byte layout of ws's caches (cache_codec.hpp).
#include "src/transfer/cache_codec.hpp"

#include "fuse/hash.hpp"
#include "fuse/unique_fd.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ws {

void write_cache_file(const std::filesystem::path& file, const std::string& bytes) {
  fuse::Hash128 sum = fuse::hash_bytes(std::string_view(bytes).substr(8));
  std::filesystem::path tmp = file;
  tmp += ".new." + std::to_string(::getpid()); // two commands at once: each its own
  fuse::UniqueFd fd(
      ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) {
    return;
  }
  std::string tail(16, '\0');
  std::memcpy(tail.data(), &sum.high, 8);
  std::memcpy(tail.data() + 8, &sum.low, 8);
  for (const std::string* part : {&bytes, static_cast<const std::string*>(&tail)}) {
    for (size_t done = 0; done < part->size();) {
      ssize_t put = ::write(fd.get(), part->data() + done, part->size() - done);
      if (put < 0 && errno == EINTR) {
        continue;
      }
      if (put <= 0) {
        ::unlink(tmp.c_str());
        return;
      }
      done += static_cast<size_t>(put);
    }
  }
  fd.reset();
  if (::rename(tmp.c_str(), file.c_str()) != 0) {
    ::unlink(tmp.c_str());
  }
}

std::optional<CacheBytes> read_cache_file(const std::filesystem::path& file,
                                          const char (&magic)[8]) {
  fuse::UniqueFd fd(::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 8 + 16) {
    return std::nullopt;
  }
  const size_t n = static_cast<size_t>(st.st_size);
  CacheBytes out;
  out.buffer = std::make_unique_for_overwrite<char[]>(n);
  char* data = out.buffer.get();
  for (size_t done = 0; done < n;) {
    ssize_t got = ::read(fd.get(), data + done, n - done);
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got <= 0) {
      return std::nullopt;
    }
    done += static_cast<size_t>(got);
  }
  const size_t body = n - 8 - 16;
  fuse::Hash128 sum = fuse::hash_bytes(std::string_view(data + 8, body));
  fuse::Hash128 kept{};
  std::memcpy(&kept.high, data + 8 + body, 8);
  std::memcpy(&kept.low, data + 8 + body + 8, 8);
  if (std::memcmp(data, magic, 8) != 0 || !(sum == kept)) {
    return std::nullopt;
  }
  out.data = data + 8;
  out.size = body;
  return out;
}

} // namespace ws
