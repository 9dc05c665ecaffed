#include "fuse/hash.hpp"

#include "fuse/system_error.hpp"

#include <xxhash.h>

#include <unistd.h>

#include <array>
#include <cstdio>

namespace ws::fuse {

std::string Hash128::hex() const {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(high),
                static_cast<unsigned long long>(low));
  return buf;
}

std::optional<Hash128> Hash128::from_hex(std::string_view hex) {
  if (hex.size() != 32) {
    return std::nullopt;
  }
  Hash128 h;
  for (size_t i = 0; i < 32; ++i) {
    char c = hex[i];
    uint64_t v;
    if (c >= '0' && c <= '9') {
      v = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      v = c - 'a' + 10;
    } else {
      return std::nullopt;
    }
    uint64_t& part = i < 16 ? h.high : h.low;
    part = (part << 4) | v;
  }
  return h;
}

Hasher::Hasher() : m_state(XXH3_createState()) {
  XXH3_128bits_reset(static_cast<XXH3_state_t*>(m_state));
}
Hasher::~Hasher() {
  XXH3_freeState(static_cast<XXH3_state_t*>(m_state));
}

void Hasher::update(const void* data, size_t size) {
  XXH3_128bits_update(static_cast<XXH3_state_t*>(m_state), data, size);
}

Hash128 Hasher::digest() const {
  XXH128_hash_t d = XXH3_128bits_digest(static_cast<XXH3_state_t*>(m_state));
  return {d.high64, d.low64};
}

Hash128 hash_bytes(std::string_view bytes) {
  XXH128_hash_t d = XXH3_128bits(bytes.data(), bytes.size());
  return {d.high64, d.low64};
}

Hash128 hash_fd(int fd, std::string_view path_for_errors) {
  Hasher hasher;
  std::array<char, 1 << 16> buf;
  off_t off = 0;
  for (;;) {
    ssize_t n = ::pread(fd, buf.data(), buf.size(), off);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      throw_errno("hash: read", path_for_errors);
    }
    if (n == 0) {
      break;
    }
    hasher.update(buf.data(), static_cast<size_t>(n));
    off += n;
  }
  return hasher.digest();
}

} // namespace ws::fuse
