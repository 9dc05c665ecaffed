#include "src/cli/text.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <string>

namespace ws {

namespace {
/// Length of the well-formed UTF-8 sequence at s[i] (RFC 3629: no overlong forms, no
/// surrogates, nothing past U+10FFFF), with its code point in `cp`; 0 if there is none.
size_t utf8_decode(std::string_view s, size_t i, uint32_t& cp) {
  auto c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0x80                ? 1
             : c >= 0xc2 && c < 0xe0 ? 2
             : (c >> 4) == 0xe       ? 3
             : c >= 0xf0 && c < 0xf5 ? 4
                                     : 0;
  if (n == 0 || i + n > s.size()) {
    return 0;
  }
  cp = n == 1 ? c : c & (n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07);
  for (size_t k = 1; k < n; ++k) {
    auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc >> 6) != 0x2) {
      return 0;
    }
    cp = (cp << 6) | (cc & 0x3f);
  }
  bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
  if (overlong || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) {
    return 0;
  }
  return n;
}

/// Code points a terminal acts on or hides rather than shows: C1 controls (U+009B is CSI
/// on terminals that take 8-bit controls), bidi controls that reorder what is shown
/// (Trojan Source, CVE-2021-42574), and invisible separators and joiners that hide text.
bool is_hidden_code_point(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200b || cp == 0x200e ||
         cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x2069) ||
         cp == 0xfeff;
}

// The escapes git's quoting and JSON share; false if `c` has none.
bool append_common_escape(std::string& out, unsigned char c) {
  switch (c) {
  case '\n':
    out += "\\n";
    return true;
  case '\t':
    out += "\\t";
    return true;
  case '\r':
    out += "\\r";
    return true;
  case '"':
    out += "\\\"";
    return true;
  case '\\':
    out += "\\\\";
    return true;
  default:
    return false;
  }
}

/// Calls `bad` with each byte of `s` that starts no well-formed UTF-8 sequence and `good` with
/// each character (its bytes and code point), in order.
template <class Bad, class Good>
void for_each_character(std::string_view s, Bad&& bad, Good&& good) {
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    size_t n = utf8_decode(s, i, cp);
    if (n == 0) {
      bad(static_cast<unsigned char>(s[i]));
      ++i;
      continue;
    }
    good(s.substr(i, n), cp);
    i += n;
  }
}

/// A short escape (under 16 bytes) written as printf writes it.
[[gnu::format(printf, 1, 2)]] std::string escape_printf(const char* format, ...) {
  char buf[16];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return buf;
}
} // namespace

std::string quote_path(std::string_view path) {
  bool plain = true;
  for (char ch : path) {
    auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
      plain = false;
      break;
    }
  }
  if (plain) {
    return std::string(path);
  }
  std::string out = "\"";
  for (char ch : path) {
    auto c = static_cast<unsigned char>(ch);
    if (append_common_escape(out, c)) {
      continue;
    }
    if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  out += '"';
  return out;
}

std::string visible_text(std::string_view s, bool content) {
  std::string out;
  out.reserve(s.size());
  for_each_character(
      s, [&](unsigned char c) { out += escape_printf("\\x%02x", c); },
      [&](std::string_view ch, uint32_t cp) {
        if (ch.size() == 1 && (cp < 0x20 || cp == 0x7f)) {
          if (content && (cp == '\t' || cp == '\n')) {
            out += static_cast<char>(cp);
          } else if (cp == 0x1b) {
            out += "\\e";
          } else if (!append_common_escape(out, static_cast<unsigned char>(cp))) { // \n \t \r, or:
            out += escape_printf("\\x%02x", cp);
          }
        } else if (ch.size() > 1 && is_hidden_code_point(cp)) {
          out += escape_printf("<U+%04X>", cp);
        } else {
          out.append(ch);
        }
      });
  return out;
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for_each_character(
      s, [&](unsigned char c) { out += escape_printf("\\udc%02x", c); },
      [&](std::string_view ch, uint32_t cp) {
        if (ch.size() == 1 && append_common_escape(out, static_cast<unsigned char>(cp))) {
          // \n \t \r \" \\ written
        } else if ((ch.size() == 1 && (cp < 0x20 || cp == 0x7f)) ||
                   (ch.size() > 1 && is_hidden_code_point(cp))) {
          out += escape_printf("\\u%04x", cp);
        } else {
          out.append(ch);
        }
      });
  out += '"';
  return out;
}

std::string format_time(int64_t ns) {
  time_t secs = static_cast<time_t>(ns / 1000000000);
  struct tm tm {};
  localtime_r(&secs, &tm);
  char buf[64];
  size_t len = std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  std::snprintf(buf + len, sizeof buf - len, ".%03d", static_cast<int>((ns / 1000000) % 1000));
  return buf;
}

std::optional<int64_t> parse_since(std::string_view text, int64_t now_ns) {
  if (text.empty()) {
    return std::nullopt;
  }
  if (text[0] == '@') {
    try {
      return static_cast<int64_t>(std::stoll(std::string(text.substr(1)))) * 1000000000;
    } catch (...) {
      return std::nullopt;
    }
  }
  char unit = text.back();
  int64_t scale = unit == 's' ? 1 : unit == 'm' ? 60 : unit == 'h' ? 3600 : unit == 'd' ? 86400 : 0;
  if (scale != 0) {
    std::string num(text.substr(0, text.size() - 1));
    if (!num.empty() && num.find_first_not_of("0123456789") == std::string::npos) {
      return now_ns - std::stoll(num) * scale * 1000000000;
    }
  }
  struct tm tm {};
  std::string s(text);
  const char* end = strptime(s.c_str(), "%Y-%m-%d %H:%M:%S", &tm);
  if (!end || *end) {
    tm = {};
    end = strptime(s.c_str(), "%Y-%m-%d %H:%M", &tm);
  }
  if (!end || *end) {
    tm = {};
    end = strptime(s.c_str(), "%Y-%m-%d", &tm);
  }
  if (!end || *end) {
    return std::nullopt;
  }
  tm.tm_isdst = -1;
  return static_cast<int64_t>(mktime(&tm)) * 1000000000;
}

std::string summarize_ranges(const std::string& detail) {
  size_t count = 0;
  uint64_t bytes = 0, first = UINT64_MAX, last = 0;
  size_t pos = 0;
  while (pos < detail.size()) {
    size_t comma = detail.find(',', pos);
    std::string range =
        detail.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    size_t dash = range.find('-');
    if (dash == std::string::npos) {
      return detail;
    }
    uint64_t a = 0, b = 0;
    try {
      a = std::stoull(range.substr(0, dash));
      b = std::stoull(range.substr(dash + 1));
    } catch (const std::exception&) {
      return detail; // not ours to judge: show it as stored
    }
    bytes += b - a;
    first = std::min(first, a);
    last = std::max(last, b);
    ++count;
    pos = comma == std::string::npos ? detail.size() : comma + 1;
  }
  if (count <= 3) {
    return detail;
  }
  char buf[96];
  if (bytes >= 10 * 1024) {
    std::snprintf(buf, sizeof buf, "%zu ranges, %.1f KiB in %llu-%llu", count, bytes / 1024.0,
                  static_cast<unsigned long long>(first), static_cast<unsigned long long>(last));
  } else {
    std::snprintf(buf, sizeof buf, "%zu ranges, %llu bytes in %llu-%llu", count,
                  static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(first),
                  static_cast<unsigned long long>(last));
  }
  return buf;
}

} // namespace ws
