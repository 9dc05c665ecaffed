// Request heads the proxy accepts (http_request.hpp): CONNECT and absolute-form http://.
#include "src/network/http_request.hpp"

#include <algorithm>
#include <cctype>

namespace ws::network {

namespace {

bool is_tchar(unsigned char c) {
  // RFC 9110 token characters.
  return std::isalnum(c) ||
         std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

bool is_token(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(),
                                   [](char c) { return is_tchar(static_cast<unsigned char>(c)); });
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

/// Comma-separated list elements of every value, trimmed, empty ones dropped.
std::vector<std::string> list_items(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const auto& v : values) {
    size_t start = 0;
    while (start <= v.size()) {
      size_t end = v.find(',', start);
      if (end == std::string::npos) {
        end = v.size();
      }
      std::string_view item = trim(std::string_view(v).substr(start, end - start));
      if (!item.empty()) {
        out.emplace_back(item);
      }
      start = end + 1;
    }
  }
  return out;
}

HeadParse invalid(int status, std::string why) {
  HeadParse p;
  p.state = HeadParse::State::Invalid;
  p.status = status;
  p.why = std::move(why);
  return p;
}

bool parse_request_line(std::string_view line, HttpHead& head, HeadParse& error) {
  size_t sp1 = line.find(' ');
  size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    error = invalid(400, "not an HTTP request line");
    return false;
  }
  std::string_view method = line.substr(0, sp1);
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view version = line.substr(sp2 + 1);
  if (!is_token(method) || target.empty() ||
      !std::all_of(target.begin(), target.end(), [](char c) { return c > 0x20 && c < 0x7f; })) {
    error = invalid(400, "not an HTTP request line");
    return false;
  }
  if (version != "HTTP/1.1" && version != "HTTP/1.0") {
    error = version.starts_with("HTTP/") ? invalid(505, "only HTTP/1.0 and HTTP/1.1")
                                         : invalid(400, "not an HTTP request line");
    return false;
  }
  head.method = method;
  head.target = target;
  head.version = version;
  return true;
}

bool parse_field(std::string_view line, HttpHead& head, HeadParse& error) {
  if (line.front() == ' ' || line.front() == '\t') {
    error = invalid(400, "folded header field (obsolete line folding)");
    return false;
  }
  size_t colon = line.find(':');
  if (colon == std::string_view::npos || !is_token(line.substr(0, colon))) {
    error = invalid(400, "malformed header field");
    return false;
  }
  std::string_view value = trim(line.substr(colon + 1));
  for (char ch : value) {
    auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t') || c == 0x7f) {
      error = invalid(400, "control character in a header field");
      return false;
    }
  }
  head.fields.emplace_back(std::string(line.substr(0, colon)), std::string(value));
  return true;
}

/// "host" or "host:port", "[v6]:port": the Host field for `t` (its port left out when it is
/// the scheme's default).
std::string host_field(const Target& t, uint16_t default_port) {
  std::string h = t.host.find(':') != std::string::npos ? "[" + t.host + "]" : t.host;
  return t.port == default_port ? h : h + ":" + std::to_string(t.port);
}

/// Every Host field must name `target` (at most one, RFC 9112 section 3.2).
std::optional<BadRequest> check_host(const HttpHead& head, const Target& target,
                                     uint16_t default_port) {
  std::vector<std::string> hosts = head.values("host");
  if (hosts.size() > 1) {
    return BadRequest{400, "more than one Host field"};
  }
  if (hosts.empty()) {
    return std::nullopt;
  }
  std::optional<Target> named = parse_authority(hosts[0], default_port);
  if (!named || named->host != target.host || named->port != target.port) {
    return BadRequest{400, "the Host field (" + hosts[0] +
                               ") names another host than the "
                               "request (" +
                               target.text() + ")"};
  }
  return std::nullopt;
}

} // namespace

std::vector<std::string> HttpHead::values(std::string_view name) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : fields) {
    if (iequals(k, name)) {
      out.push_back(v);
    }
  }
  return out;
}

HeadParse parse_request_head(std::string_view buf) {
  HeadParse p;
  size_t pos = 0;
  bool have_request_line = false;
  for (;;) {
    size_t nl = buf.find('\n', pos);
    if (nl == std::string_view::npos) {
      return buf.size() >= k_max_head ? invalid(431, "request head too large") : p;
    }
    if (nl + 1 > k_max_head) {
      return invalid(431, "request head too large");
    }
    std::string_view line = buf.substr(pos, nl - pos);
    pos = nl + 1;
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    if (line.find('\r') != std::string_view::npos || line.find('\0') != std::string_view::npos) {
      return invalid(400, "bare CR or NUL in the request head");
    }
    if (!have_request_line) {
      if (line.empty() && pos <= 4) {
        continue; // a CRLF before the request line may be ignored (RFC 9112 section 2.2)
      }
      if (!parse_request_line(line, p.head, p)) {
        return p;
      }
      have_request_line = true;
      continue;
    }
    if (line.empty()) {
      p.state = HeadParse::State::Complete;
      p.length = pos;
      return p;
    }
    if (p.head.fields.size() >= k_max_fields) {
      return invalid(431, "too many header fields");
    }
    if (!parse_field(line, p.head, p)) {
      return p;
    }
  }
}

std::variant<ProxyRequest, BadRequest> interpret_request(const HttpHead& head) {
  ProxyRequest r;
  if (head.method == "CONNECT") {
    std::optional<Target> t = parse_authority(head.target, std::nullopt);
    if (!t) {
      return BadRequest{400, "CONNECT needs host:port (got " + head.target + ")"};
    }
    if (auto bad = check_host(head, *t, t->port)) {
      return *bad;
    }
    r.kind = ProxyRequest::Kind::Tunnel;
    r.target = *t;
    return r;
  }
  std::string_view target = head.target;
  if (target.size() < 7 || !iequals(target.substr(0, 7), "http://")) {
    if (target.size() >= 8 && iequals(target.substr(0, 8), "https://")) {
      return BadRequest{400, "an https:// URL goes through CONNECT"};
    }
    return BadRequest{400, "a proxy takes CONNECT host:port or an absolute http:// URL (got " +
                               std::string(target.substr(0, 200)) + ")"};
  }
  target.remove_prefix(7);
  size_t end = target.find_first_of("/?#");
  std::string_view authority = target.substr(0, end);
  std::string path(end == std::string_view::npos ? "" : target.substr(end));
  if (authority.find('@') != std::string_view::npos) {
    return BadRequest{400, "user information in the URL"};
  }
  std::optional<Target> t = parse_authority(authority, uint16_t{80});
  if (!t) {
    return BadRequest{400, "not a host in the URL (" + std::string(authority.substr(0, 200)) + ")"};
  }
  if (auto bad = check_host(head, *t, 80)) {
    return *bad;
  }
  if (size_t hash = path.find('#'); hash != std::string::npos) {
    path.resize(hash);
  }
  if (path.empty() || path.front() != '/') {
    path.insert(0, "/");
  }
  // Body framing: exactly one way to read where the body ends (RFC 9112 section 6.3).
  std::vector<std::string> codings = list_items(head.values("transfer-encoding"));
  std::vector<std::string> lengths = list_items(head.values("content-length"));
  if (!codings.empty() && !lengths.empty()) {
    return BadRequest{400, "both Transfer-Encoding and Content-Length"};
  }
  if (!codings.empty()) {
    if (codings.size() != 1 || lower(codings[0]) != "chunked") {
      return BadRequest{501, "a transfer coding other than chunked"};
    }
    r.body = RequestBody::chunked();
  } else if (!lengths.empty()) {
    for (const auto& l : lengths) {
      if (l != lengths[0] || l.size() > 18 ||
          !std::all_of(l.begin(), l.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return BadRequest{400, "an invalid or ambiguous Content-Length"};
      }
    }
    r.body = RequestBody::length(std::stoull(lengths[0]));
  } else {
    r.body = RequestBody::none();
  }
  // Hop-by-hop fields stay here, and so does everything the client's Connection names;
  // upstream gets one request and closes.
  std::vector<std::string> hop{"host",
                               "connection",
                               "proxy-connection",
                               "keep-alive",
                               "proxy-authorization",
                               "proxy-authenticate",
                               "te",
                               "upgrade"};
  for (const auto& c : list_items(head.values("connection"))) {
    hop.push_back(lower(c));
  }
  std::string out =
      head.method + " " + path + " " + head.version + "\r\nHost: " + host_field(*t, 80) + "\r\n";
  for (const auto& [k, v] : head.fields) {
    if (std::find(hop.begin(), hop.end(), lower(k)) == hop.end()) {
      out += k + ": " + v + "\r\n";
    }
  }
  out += "Connection: close\r\n\r\n";
  r.kind = ProxyRequest::Kind::Forward;
  r.target = *t;
  r.forward_head = std::move(out);
  return r;
}

const char* status_text(int status) {
  switch (status) {
  case 200:
    return "Connection established";
  case 400:
    return "Bad Request";
  case 403:
    return "Forbidden";
  case 408:
    return "Request Timeout";
  case 431:
    return "Request Header Fields Too Large";
  case 501:
    return "Not Implemented";
  case 502:
    return "Bad Gateway";
  case 503:
    return "Service Unavailable";
  case 504:
    return "Gateway Timeout";
  case 505:
    return "HTTP Version Not Supported";
  default:
    return "Error";
  }
}

} // namespace ws::network
