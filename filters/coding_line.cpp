#include "filters/coding_line.hpp"

#include <cctype>
#include <string>

namespace ws::filters {

namespace {

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.' ||
         static_cast<unsigned char>(c) >= 0x80;
}

/// The codec a line declares, as Python reads it; empty when the line declares none.
std::string declared_codec(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\f')) {
    ++i;
  }
  if (i == line.size() || line[i] != '#') {
    return {};
  }
  // `.*?coding[:=]`: the first "coding" followed by ':' or '='.
  for (size_t at = line.find("coding", i); at != std::string_view::npos;
       at = line.find("coding", at + 1)) {
    size_t j = at + 6;
    if (j >= line.size() || (line[j] != ':' && line[j] != '=')) {
      continue;
    }
    ++j;
    while (j < line.size() && (line[j] == ' ' || line[j] == '\t')) {
      ++j;
    }
    size_t end = j;
    while (end < line.size() && word_char(line[end])) {
      ++end;
    }
    if (end > j) {
      return std::string(line.substr(j, end - j));
    }
  }
  return {};
}

/// Whether `codec` (as declared) decodes every ASCII byte to itself, one byte at a time.
bool ascii_transparent(std::string codec) {
  for (char& c : codec) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (c == '_') {
      c = '-';
    }
  }
  auto starts = [&](std::string_view p) { return codec.rfind(p, 0) == 0; };
  // Python's own names for UTF-8 and Latin-1 take any suffix ("utf-8-unix", "latin-1-dos").
  if (starts("utf-8") || starts("utf8") || codec == "u8" || codec == "utf" || codec == "cp65001" ||
      starts("latin-1") || starts("latin1") || codec == "l1" || starts("iso-latin-1") ||
      codec == "ascii" || codec == "us-ascii" || codec == "646") {
    return true;
  }
  // Single-byte code pages that keep ASCII as it is.
  for (std::string_view family :
       {"iso-8859-", "iso8859-", "iso-8859", "iso8859", "latin", "cp125", "windows-125", "cp437",
        "cp850", "cp852", "cp866", "koi8-", "mac-roman", "macroman"}) {
    if (starts(family)) {
      std::string_view rest = std::string_view(codec).substr(family.size());
      bool digits = true;
      for (char c : rest) {
        digits = digits && (std::isalnum(static_cast<unsigned char>(c)) != 0);
      }
      if (digits) {
        return true;
      }
    }
  }
  return false;
}

} // namespace

bool recoding_declaration(std::string_view head) {
  // A UTF-8 byte order mark makes Python insist on UTF-8: a declaration of anything else is
  // an error there, never a decoding.
  if (head.substr(0, 3) == "\xEF\xBB\xBF") {
    return false;
  }
  size_t start = 0;
  for (int line = 0; line < 2 && start < head.size(); ++line) {
    size_t end = head.find('\n', start);
    std::string_view text = head.substr(start, end == std::string_view::npos ? end : end - start);
    std::string codec = declared_codec(text);
    if (!codec.empty()) {
      return !ascii_transparent(codec);
    }
    if (end == std::string_view::npos) {
      break;
    }
    start = end + 1;
  }
  return false;
}

} // namespace ws::filters
