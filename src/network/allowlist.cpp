// The allowlist of `--network=allow:` (allowlist.hpp): names as the client asked for them.
#include "src/network/allowlist.hpp"

#include "src/cli/error.hpp"

#include <algorithm>
#include <cctype>

#include <arpa/inet.h>

namespace ws::network {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

/// Letters, digits, '-' and '_' in labels of 1-63, at most 253 in all, the last label not
/// all digits (an all-numeric "name" is an address in disguise: getaddrinfo would take
/// "127.1" or "2130706433" for 127.0.0.1).
bool is_host_name(std::string_view name) {
  if (name.empty() || name.size() > 253) {
    return false;
  }
  size_t start = 0;
  bool last_numeric = true;
  while (start <= name.size()) {
    size_t end = name.find('.', start);
    if (end == std::string_view::npos) {
      end = name.size();
    }
    std::string_view label = name.substr(start, end - start);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') {
      return false;
    }
    last_numeric = true;
    for (char c : label) {
      bool digit = c >= '0' && c <= '9';
      bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
      if (!digit && !letter && c != '-' && c != '_') {
        return false;
      }
      last_numeric = last_numeric && digit;
    }
    start = end + 1;
  }
  // "0x7f" is a label with a letter, and still a number to inet_aton.
  std::string_view tail =
      name.substr(name.rfind('.') == std::string_view::npos ? 0 : name.rfind('.') + 1);
  bool hex = tail.size() > 2 && tail[0] == '0' && (tail[1] == 'x' || tail[1] == 'X') &&
             std::all_of(tail.begin() + 2, tail.end(),
                         [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
  return !last_numeric && !hex;
}

/// The canonical text of an IP literal, or "" if `text` is not one (canonical forms only).
std::string canonical_ip(const std::string& text, bool v6) {
  unsigned char buf[16];
  char out[INET6_ADDRSTRLEN];
  int family = v6 ? AF_INET6 : AF_INET;
  if (::inet_pton(family, text.c_str(), buf) != 1 || !::inet_ntop(family, buf, out, sizeof out)) {
    return "";
  }
  return out;
}

std::optional<uint16_t> parse_port(std::string_view s) {
  if (s.empty() || s.size() > 5 ||
      !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  unsigned long n = std::stoul(std::string(s));
  if (n == 0 || n > 65535) {
    return std::nullopt;
  }
  return static_cast<uint16_t>(n);
}

/// Splits "host:port", "[v6]:port", "[v6]", "host" into host text (brackets removed), whether
/// it was bracketed, and the port text ("" if none). False if malformed.
bool split_authority(std::string_view text, std::string& host, bool& bracketed,
                     std::string_view& port, bool& has_port) {
  bracketed = false;
  has_port = false;
  if (!text.empty() && text.front() == '[') {
    size_t close = text.find(']');
    if (close == std::string_view::npos) {
      return false;
    }
    host = std::string(text.substr(1, close - 1));
    bracketed = true;
    std::string_view rest = text.substr(close + 1);
    if (rest.empty()) {
      return true;
    }
    if (rest.front() != ':') {
      return false;
    }
    port = rest.substr(1);
    has_port = true;
    return true;
  }
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) {
    host = std::string(text);
    return true;
  }
  if (text.find(':') != colon) {
    return false; // an IPv6 literal must be bracketed
  }
  host = std::string(text.substr(0, colon));
  port = text.substr(colon + 1);
  has_port = true;
  return true;
}

} // namespace

std::string Target::text() const {
  std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return h + ":" + std::to_string(port);
}

std::optional<Target> parse_authority(std::string_view text, std::optional<uint16_t> default_port) {
  std::string host;
  bool bracketed = false, has_port = false;
  std::string_view port_text;
  if (text.empty() || !split_authority(text, host, bracketed, port_text, has_port)) {
    return std::nullopt;
  }
  Target t;
  if (has_port) {
    std::optional<uint16_t> port = parse_port(port_text);
    if (!port) {
      return std::nullopt;
    }
    t.port = *port;
  } else if (default_port) {
    t.port = *default_port;
  } else {
    return std::nullopt;
  }
  if (bracketed) {
    t.host = canonical_ip(host, true);
    t.is_ip = true;
    return t.host.empty() ? std::nullopt : std::optional<Target>(t);
  }
  if (std::string v4 = canonical_ip(host, false); !v4.empty() && v4 == host) {
    t.host = v4;
    t.is_ip = true;
    return t;
  }
  std::string name = lower(host);
  if (!name.empty() && name.back() == '.') {
    name.pop_back();
  }
  if (!is_host_name(name)) {
    return std::nullopt;
  }
  t.host = name;
  return t;
}

std::string Allowlist::Entry::text() const {
  std::string h = (wildcard ? "*." : "") +
                  (is_ip && host.find(':') != std::string::npos ? "[" + host + "]" : host);
  return port ? h + ":" + std::to_string(*port) : h;
}

Allowlist Allowlist::parse(std::string_view list) {
  Allowlist a;
  size_t start = 0;
  while (start < list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string_view::npos) {
      end = list.size();
    }
    std::string_view raw = list.substr(start, end - start);
    start = end + 1;
    while (!raw.empty() && raw.front() == ' ') {
      raw.remove_prefix(1);
    }
    while (!raw.empty() && raw.back() == ' ') {
      raw.remove_suffix(1);
    }
    if (raw.empty()) {
      continue;
    }
    Entry e;
    std::string_view rest = raw;
    if (rest.starts_with("*.")) {
      e.wildcard = true;
      rest.remove_prefix(2);
    }
    std::optional<Target> t = parse_authority(rest, uint16_t{0});
    if (!t || (e.wildcard && t->is_ip)) {
      throw Error("--network=allow: '" + std::string(raw) +
                      "' is not a host name, *.domain or IP address, with an optional :PORT",
                  "write it as api.example.com, *.example.com, api.example.com:8443, "
                  "203.0.113.7 or [2001:db8::1]:443");
    }
    e.host = t->host;
    e.is_ip = t->is_ip;
    if (t->port != 0) {
      e.port = t->port;
    }
    a.m_entries.push_back(std::move(e));
  }
  return a;
}

Allowlist::Decision Allowlist::decide(const Target& target) const {
  Decision d;
  d.why = target.is_ip ? Refusal::IpLiteral : Refusal::NotListed;
  for (const auto& e : m_entries) {
    bool names = e.is_ip == target.is_ip && (e.wildcard ? target.host.size() > e.host.size() + 1 &&
                                                              target.host.ends_with("." + e.host)
                                                        : target.host == e.host);
    if (!names) {
      continue;
    }
    bool port = e.port ? target.port == *e.port : target.port == 443 || target.port == 80;
    if (port) {
      d.allowed = true;
      d.by = &e;
      return d;
    }
    d.why = Refusal::PortNotListed;
  }
  return d;
}

std::string Allowlist::text() const {
  std::string out;
  for (const auto& e : m_entries) {
    out += (out.empty() ? "" : ",") + e.text();
  }
  return out;
}

std::string entry_allowing(const Target& target) {
  std::string h =
      target.host.find(':') != std::string::npos ? "[" + target.host + "]" : target.host;
  return target.port == 443 || target.port == 80 ? h : h + ":" + std::to_string(target.port);
}

} // namespace ws::network
