// Body framing of a forwarded request (http_body.hpp).
#include "src/network/http_body.hpp"

#include <algorithm>

namespace ws::network {

namespace {
constexpr size_t k_max_line = 4096;      // a chunk-size line with its extensions
constexpr size_t k_max_trailers = 16384; // trailer fields in all
constexpr unsigned k_max_digits = 15;    // chunk sizes below 2^60

int hex_value(char c) {
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}
} // namespace

RequestBody::RequestBody(Mode mode, uint64_t length) : m_mode(mode), m_left(length) {
  if (mode == Mode::Chunked) {
    m_state = State::Size;
  } else if (mode == Mode::Length && length > 0) {
    m_state = State::Data;
  } else {
    m_state = State::Done;
  }
}

size_t RequestBody::take(const char* data, size_t n) {
  size_t i = 0;
  while (i < n && m_state != State::Done && m_state != State::Failed) {
    if (m_state == State::Data) {
      size_t k = static_cast<size_t>(std::min<uint64_t>(m_left, n - i));
      i += k;
      m_left -= k;
      if (m_left == 0) {
        m_state = m_mode == Mode::Length ? State::Done : State::DataCr;
      }
      continue;
    }
    char c = data[i++];
    switch (m_state) {
    case State::Size: {
      int v = hex_value(c);
      if (v >= 0 && m_digits < k_max_digits) {
        m_left = m_left * 16 + static_cast<uint64_t>(v);
        ++m_digits;
        ++m_line;
      } else if (m_digits > 0 && c == ';') {
        m_state = State::Extension;
        ++m_line;
      } else if (m_digits > 0 && c == '\r') {
        m_state = State::SizeLf;
      } else {
        m_state = State::Failed;
      }
      break;
    }
    case State::Extension:
      if (c == '\r') {
        m_state = State::SizeLf;
      } else if (c == '\n' || c == '\0' || ++m_line > k_max_line) {
        m_state = State::Failed;
      }
      break;
    case State::SizeLf:
      if (c != '\n') {
        m_state = State::Failed;
      } else if (m_left == 0) {
        m_state = State::TrailerLine; // the last chunk: trailers, then an empty line
        m_line = 0;
      } else {
        m_state = State::Data;
      }
      m_digits = 0;
      break;
    case State::DataCr:
      m_state = c == '\r' ? State::DataLf : State::Failed;
      break;
    case State::DataLf:
      if (c == '\n') {
        m_state = State::Size;
        m_left = 0;
        m_line = 0;
      } else {
        m_state = State::Failed;
      }
      break;
    case State::TrailerLine:
      if (c == '\r') {
        m_state = State::TrailerLf;
      } else if (c == '\n' || c == '\0' || ++m_trailers > k_max_trailers) {
        m_state = State::Failed;
      } else {
        ++m_line;
      }
      break;
    case State::TrailerLf:
      if (c != '\n') {
        m_state = State::Failed;
      } else if (m_line == 0) {
        m_state = State::Done; // the empty line after the trailers
      } else {
        m_state = State::TrailerLine;
        m_line = 0;
      }
      break;
    default:
      m_state = State::Failed;
      break;
    }
  }
  return m_state == State::Failed ? 0 : i;
}

} // namespace ws::network
