#pragma once

#include "src/network/allowlist.hpp"
#include "src/network/http_body.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace ws::network {

/// The most a request head (request line and header fields) may take: a client that sends
/// more is refused (431), so one connection holds at most this much of it.
constexpr size_t k_max_head = 16384;
constexpr size_t k_max_fields = 100;

/// A request head as a client sent it to the proxy.
struct HttpHead {
  std::string method;
  std::string target;  ///< request-target: authority-form (CONNECT) or absolute-form
  std::string version; ///< "HTTP/1.1" or "HTTP/1.0"
  std::vector<std::pair<std::string, std::string>> fields; ///< names as sent, values trimmed
  /// The values of every field named `name` (case-insensitive).
  std::vector<std::string> values(std::string_view name) const;
};

struct HeadParse {
  enum class State { Incomplete, Complete, Invalid } state = State::Incomplete;
  size_t length = 0; ///< Complete: bytes of `buf` the head took, its empty line included
  HttpHead head;
  int status = 0; ///< Invalid: the HTTP status to answer (400, 431, 505)
  std::string why;
};

/// Parses the request head at the start of `buf`. Strict where a lax parser would let a
/// client smuggle something past the proxy: no field folding, no whitespace before a field's
/// colon, no control bytes, token names; lines end in CRLF (a bare LF is accepted, as RFC
/// 9112 allows, but a bare CR is not). Incomplete until the empty line; Invalid (431) once
/// `buf` holds k_max_head bytes without one. Pure.
HeadParse parse_request_head(std::string_view buf);

/// What the proxy is asked to do.
struct ProxyRequest {
  enum class Kind {
    Tunnel,  ///< CONNECT host:port: a byte tunnel once allowed (TLS passes through untouched)
    Forward, ///< an absolute-form http:// request: forwarded once, then the connection closes
  } kind = Kind::Tunnel;
  Target target;
  std::string forward_head; ///< Forward: what goes upstream (origin-form, Connection: close)
  RequestBody body;         ///< Forward: where the request's body ends
};

struct BadRequest {
  int status = 400;
  std::string why;
};

/// Interprets a parsed head as a proxy request. Refuses (BadRequest) what a proxy must not
/// pass: a Host field that names another authority than the target (a server on an
/// allowed host's address could route by it to one that is not allowed), a target that is
/// neither authority-form nor http:// absolute-form, userinfo in it, ambiguous body framing
/// (Content-Length with Transfer-Encoding, two different lengths, a coding other than
/// chunked). Pure.
std::variant<ProxyRequest, BadRequest> interpret_request(const HttpHead& head);

/// The reason phrase of a status the proxy answers with.
const char* status_text(int status);

} // namespace ws::network
