// Glyphs: what the review draws for raw bytes, and how wide it is.
#include "tui/display.hpp"

#include <langinfo.h>

#include <cstdio>
#include <cstring>
#include <cwchar>

namespace ws::tui {

namespace {

constexpr std::string_view k_spaces = "        ";
static_assert(k_tab_stop <= k_spaces.size());

/// Characters that draw nothing, or reorder what follows them, yet change what a line
/// means: zero-width and joiner characters, bidi controls (Trojan Source, CVE-2021-42574),
/// invisible fillers used as identifiers, line and paragraph separators, tag characters.
/// The same families editors flag (VS Code's invisible characters, GitHub's bidi warning).
bool hidden(char32_t c) {
  return c == 0x00ad || c == 0x034f || c == 0x061c || c == 0x115f || c == 0x1160 || c == 0x17b4 ||
         c == 0x17b5 || (c >= 0x180b && c <= 0x180f) || (c >= 0x200b && c <= 0x200f) ||
         (c >= 0x2028 && c <= 0x202e) || (c >= 0x2060 && c <= 0x206f) || c == 0x2800 ||
         c == 0x3164 || c == 0xfeff || c == 0xffa0 || (c >= 0xfff0 && c <= 0xfffb) ||
         (c >= 0x1d173 && c <= 0x1d17a) || (c >= 0xe0000 && c <= 0xe0fff);
}

/// Decodes one UTF-8 character at `s[i]` strictly (no overlong forms, no surrogates, at
/// most U+10FFFF). Returns its length, or 0 if the bytes there are not valid UTF-8.
size_t decode(std::string_view s, size_t i, char32_t& out) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  unsigned char c = b(0);
  size_t len = c < 0x80                ? 1
               : c >= 0xc2 && c < 0xe0 ? 2
               : c >= 0xe0 && c < 0xf0 ? 3
               : c >= 0xf0 && c < 0xf5 ? 4
                                       : 0;
  if (len == 0 || i + len > s.size()) {
    return 0;
  }
  char32_t v = len == 1 ? c : len == 2 ? c & 0x1f : len == 3 ? c & 0x0f : c & 0x07;
  for (size_t k = 1; k < len; ++k) {
    if ((b(k) & 0xc0) != 0x80) {
      return 0;
    }
    v = (v << 6) | (b(k) & 0x3f);
  }
  bool overlong = (len == 3 && v < 0x800) || (len == 4 && v < 0x10000);
  if (overlong || (v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff) {
    return 0;
  }
  out = v;
  return len;
}

bool locale_is_utf8() {
  const char* cs = ::nl_langinfo(CODESET);
  return cs && (std::strcmp(cs, "UTF-8") == 0 || std::strcmp(cs, "utf8") == 0);
}

} // namespace

GlyphScanner::GlyphScanner(std::string_view text, size_t from, size_t column)
    : m_text(text), m_at(from), m_column(column), m_utf8(locale_is_utf8()) {}

bool GlyphScanner::next(Glyph& g) {
  if (m_at >= m_text.size()) {
    return false;
  }
  g.byte = m_at;
  g.marked = false;
  auto c = static_cast<unsigned char>(m_text[m_at]);
  auto notation = [&](const char* fmt, unsigned long v, size_t bytes) {
    int n = std::snprintf(m_buf, sizeof m_buf, fmt, v);
    g.text = std::string_view(m_buf, static_cast<size_t>(n));
    g.width = g.text.size();
    g.bytes = bytes;
    g.marked = true;
    m_base = false;
  };
  if (c == '\t') {
    g.width = k_tab_stop - m_column % k_tab_stop;
    g.text = k_spaces.substr(0, g.width);
    g.bytes = 1;
    m_base = false;
  } else if (c < 0x20 || c == 0x7f) {
    // Caret notation, as cat -v and git's pager show control characters.
    m_buf[0] = '^';
    m_buf[1] = static_cast<char>(c == 0x7f ? '?' : c + 64);
    g.text = std::string_view(m_buf, 2);
    g.width = 2;
    g.bytes = 1;
    g.marked = true;
    m_base = false;
  } else if (c < 0x80) {
    g.text = m_text.substr(m_at, 1);
    g.width = 1;
    g.bytes = 1;
    m_base = true;
  } else {
    char32_t cp = 0;
    size_t len = decode(m_text, m_at, cp);
    if (len == 0) {
      notation("<0x%02lx>", c, 1);
    } else {
      // C1 controls (U+0080..U+009F) act as escapes on some terminals; what the locale
      // cannot print has width -1; a combining mark needs a character to sit on.
      int w = m_utf8 && cp >= 0xa0 && !hidden(cp) ? ::wcwidth(static_cast<wchar_t>(cp)) : -1;
      if (w < 0 || (w == 0 && !m_base)) {
        notation("<U+%04lX>", static_cast<unsigned long>(cp), len);
      } else {
        g.text = m_text.substr(m_at, len);
        g.width = static_cast<size_t>(w);
        g.bytes = len;
        m_base = true;
      }
    }
  }
  m_at += g.bytes;
  m_column += g.width;
  return true;
}

size_t display_width(std::string_view raw) {
  GlyphScanner s(raw);
  Glyph g;
  while (s.next(g)) {
  }
  return s.column();
}

std::string printable(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  GlyphScanner s(raw);
  Glyph g;
  while (s.next(g)) {
    out.append(g.text);
  }
  return out;
}

std::vector<Segment> wrap(std::string_view raw, size_t width) {
  std::vector<Segment> out{Segment{}};
  width = width == 0 ? 1 : width;
  GlyphScanner s(raw);
  Glyph g;
  size_t used = 0; // columns in the current row
  while (s.next(g)) {
    if (g.width > 0 && used + g.width > width && used > 0) {
      out.back().to = g.byte;
      out.push_back(Segment{g.byte, g.byte, s.column() - g.width});
      used = 0;
    }
    used += g.width;
  }
  out.back().to = raw.size();
  return out;
}

} // namespace ws::tui
