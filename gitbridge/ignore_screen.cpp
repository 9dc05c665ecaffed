// What a path must contain for an ignore rule to match it. The rules are read as libgit2
// parses them (attr_file.c git_attr_fnmatch__parse) and matched as its wildmatch does; every
// simplification here can only turn a "no" into a "maybe", never the other way.
#include "gitbridge/ignore_screen.hpp"

#include "filters/text_lines.hpp"

namespace ws::gitbridge {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

bool ascii(std::string_view s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80) {
      return false;
    }
  }
  return true;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
  }
  return out;
}

} // namespace

IgnoreScreen::IgnoreScreen() : m_names{".", "..", ".git"} {} // libgit2's built-in rules

void IgnoreScreen::add_file(std::string_view text) {
  filters::for_each_line(text, [this](std::string_view line) { add_rule(line); });
  m_memo.clear(); // answers given so far may have become "maybe"
}

void IgnoreScreen::add_rule(std::string_view line) {
  // libgit2 reads a file as a C string, and ends a pattern at a newline, vertical tab or
  // form feed: what follows cannot be part of it.
  line = line.substr(0, line.find_first_of(std::string_view("\0\v\f", 3)));
  // One '\r' of a CRLF file, then trailing blanks, as libgit2 trims them.
  if (!line.empty() && line.back() == '\r') {
    line.remove_suffix(1);
  }
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) {
    line.remove_suffix(1);
  }
  if (line.empty() || line.front() == '#') {
    return; // blank or a comment
  }
  if (line.front() == '!') {
    return; // a negation: it can only un-ignore
  }
  if (line == "*" || line == ".") {
    m_always = true; // "*" matches everything ("." alone at the end of a file, too)
    return;
  }
  std::string_view pattern = line;
  if (pattern.front() == '/') {
    pattern.remove_prefix(1);
  }
  if (!pattern.empty() && pattern.back() == '/') {
    pattern.remove_suffix(1);
  }
  if (pattern.empty()) {
    return; // matches no name
  }
  constexpr std::string_view k_special = "*?[\\/";
  bool plain_name = ascii(pattern);
  for (char c : pattern) {
    plain_name = plain_name && !is_space(c) && k_special.find(c) == std::string_view::npos;
  }
  if (plain_name) {
    m_names.insert(lower(pattern)); // matched against whole names only
    return;
  }
  // The longest run of characters that match only themselves. Brackets and escapes are not
  // parsed: the scan stops at the first.
  std::string_view best;
  size_t run = 0;
  for (size_t i = 0; i <= pattern.size(); ++i) {
    char c = i < pattern.size() ? pattern[i] : '*';
    bool literal = !is_space(c) && k_special.find(c) == std::string_view::npos &&
                   static_cast<unsigned char>(c) < 0x80;
    if (literal) {
      continue;
    }
    if (i - run > best.size()) {
      best = pattern.substr(run, i - run);
    }
    run = i + 1;
    if (c == '[' || c == '\\') {
      break;
    }
  }
  if (best.empty()) {
    m_always = true; // nothing literal to look for: any path may match
    return;
  }
  m_runs.push_back(lower(best));
}

bool IgnoreScreen::component_may_match(std::string_view name) {
  auto it = m_memo.find(std::string(name));
  if (it != m_memo.end()) {
    return it->second;
  }
  // Case folding of bytes above ASCII depends on the locale: leave those names to libgit2.
  bool maybe = !ascii(name);
  std::string folded = lower(name);
  maybe = maybe || m_names.count(folded) > 0;
  for (size_t i = 0; !maybe && i < m_runs.size(); ++i) {
    maybe = folded.find(m_runs[i]) != std::string::npos;
  }
  m_memo.emplace(std::string(name), maybe);
  return maybe;
}

bool IgnoreScreen::may_match(std::string_view path) {
  if (m_always) {
    return true;
  }
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) {
      end = path.size();
    }
    if (end > start && component_may_match(path.substr(start, end - start))) {
      return true;
    }
    start = end + 1;
  }
  return false;
}

} // namespace ws::gitbridge
