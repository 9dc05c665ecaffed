#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string_view>
#include <vector>

namespace ws::network {

/// A bounded FIFO of bytes between two sockets: the proxy reads into it only while it has
/// room, so a client or server that sends faster than the other side takes stalls instead of
/// growing it. Not thread-safe (one connection, one loop).
class ByteQueue {
public:
  explicit ByteQueue(size_t capacity) : m_data(capacity) {}
  bool empty() const { return m_begin == m_end; }
  size_t size() const { return m_end - m_begin; }
  size_t room() const { return m_data.size() - size(); }

  /// Appends what fits of `bytes`; returns how much did.
  size_t append(std::string_view bytes);
  /// Reads from `fd` into the free space: bytes read, 0 at end of file, -1 with errno (EAGAIN
  /// when nothing is there).
  ssize_t fill(int fd);
  /// The bytes waiting, oldest first.
  std::string_view data() const { return {m_data.data() + m_begin, size()}; }
  /// Writes what `fd` takes: bytes written or -1 with errno.
  ssize_t drain(int fd);
  void consume(size_t n);
  void clear() { m_begin = m_end = 0; }

private:
  void compact();
  std::vector<char> m_data;
  size_t m_begin = 0;
  size_t m_end = 0;
};

} // namespace ws::network
