// Bounded byte FIFO between sockets (byte_queue.hpp).
#include "src/network/byte_queue.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace ws::network {

void ByteQueue::compact() {
  if (m_begin == 0) {
    return;
  }
  std::memmove(m_data.data(), m_data.data() + m_begin, size());
  m_end -= m_begin;
  m_begin = 0;
}

size_t ByteQueue::append(std::string_view bytes) {
  size_t n = std::min(bytes.size(), room());
  if (m_end + n > m_data.size()) {
    compact();
  }
  std::memcpy(m_data.data() + m_end, bytes.data(), n);
  m_end += n;
  return n;
}

ssize_t ByteQueue::fill(int fd) {
  if (m_end == m_data.size()) {
    compact();
  }
  ssize_t n = ::read(fd, m_data.data() + m_end, m_data.size() - m_end);
  if (n > 0) {
    m_end += static_cast<size_t>(n);
  }
  return n;
}

ssize_t ByteQueue::drain(int fd) {
  ssize_t n = ::send(fd, m_data.data() + m_begin, size(), MSG_NOSIGNAL);
  if (n > 0) {
    consume(static_cast<size_t>(n));
  }
  return n;
}

void ByteQueue::consume(size_t n) {
  m_begin += std::min(n, size());
  if (m_begin == m_end) {
    m_begin = m_end = 0;
  }
}

} // namespace ws::network
