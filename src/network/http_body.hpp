#pragma once

#include <cstddef>
#include <cstdint>

namespace ws::network {

/// Where a forwarded request's body ends, so that the proxy forwards exactly one request per
/// upstream connection: bytes a client sends after it (a second, pipelined request, which
/// could name another host) are never forwarded. Framing per RFC 9112 section 6: none,
/// Content-Length, or chunked (sizes, extensions, trailers, strict CRLF; anything else fails).
/// Pure: no I/O.
class RequestBody {
public:
  static RequestBody none() { return RequestBody(Mode::None, 0); }
  static RequestBody length(uint64_t n) { return RequestBody(Mode::Length, n); }
  static RequestBody chunked() { return RequestBody(Mode::Chunked, 0); }
  RequestBody() = default;

  /// Of `n` bytes the client sends next, how many belong to the body.
  size_t take(const char* data, size_t n);
  bool done() const { return m_state == State::Done; }
  bool failed() const { return m_state == State::Failed; }

private:
  enum class Mode { None, Length, Chunked };
  enum class State {
    Size,        ///< hex digits of a chunk size
    Extension,   ///< after ';' up to CR
    SizeLf,      ///< LF after a size line's CR
    Data,        ///< chunk data
    DataCr,      ///< CR after chunk data
    DataLf,      ///< LF after chunk data
    TrailerLine, ///< a trailer field line (or the final empty line)
    TrailerLf,   ///< LF after a trailer line's CR
    Done,
    Failed,
  };
  RequestBody(Mode mode, uint64_t length);

  Mode m_mode = Mode::None;
  State m_state = State::Done;
  uint64_t m_left = 0;   ///< Length: bytes left; Chunked: data bytes left in this chunk
  unsigned m_digits = 0; ///< hex digits of the current size
  size_t m_line = 0;     ///< bytes on the current size/trailer line (bounded)
  size_t m_trailers = 0; ///< bytes of trailers in all (bounded)
};

} // namespace ws::network
