// gitignore-style patterns for ws.withhold, ws.flag and the built-in rule tables. Each
// component goes to fnmatch(3) on its own; "**" (which fnmatch does not know) spans whole
// components.
#include "filters/pattern.hpp"

#include "filters/policy.hpp"
#include "filters/text_lines.hpp"

#include <fnmatch.h>

#include <optional>

namespace ws::filters {

namespace {

using Parts = std::vector<std::string>;
using PartViews = std::span<const std::string_view>;

char ascii_lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

using Pattern = CompiledPattern;

std::optional<Pattern> compile(std::string_view text) {
  Pattern p;
  while (!text.empty() && text.back() == '/') {
    p.dir_only = true;
    text.remove_suffix(1);
  }
  // As in gitignore: a '/' anywhere but at the end anchors the pattern at the top.
  const bool anchored = text.find('/') != std::string_view::npos;
  Parts raw = split_path(text);
  if (raw.empty()) {
    return std::nullopt; // "", "/": nothing to match
  }
  if (!anchored) {
    p.parts.emplace_back("**");
  }
  for (auto& part : raw) {
    if (part == "**" && !p.parts.empty() && p.parts.back() == "**") {
      continue; // "a/**/**/b" is "a/**/b"; collapsing keeps the search linear
    }
    p.parts.push_back(std::move(part));
  }
  // "dir/**" is everything inside dir, but not dir itself.
  if (p.parts.back() == "**") {
    p.parts.pop_back();
    p.dir_only = true;
    p.all = p.parts.empty();
  }
  // Most components name a file outright: compared as strings, not through fnmatch (the
  // built-in tables are matched against every changed path).
  for (const auto& part : p.parts) {
    p.literal.push_back(part.find_first_of("*?[\\") == std::string::npos);
  }
  return p;
}

/// Does pat[i..] match path[j..end)? Components hold no '/', so this is FNM_PATHNAME
/// matching of the whole.
bool component_matches(const Pattern& pat, size_t i, std::string_view name, int flags) {
  if (pat.literal[i]) {
    return (flags & FNM_CASEFOLD) != 0 ? iequal(pat.parts[i], name) : pat.parts[i] == name;
  }
  // fnmatch wants a terminated string: a copy, for the few globs that get this far.
  return ::fnmatch(pat.parts[i].c_str(), std::string(name).c_str(), flags | FNM_PATHNAME) == 0;
}

bool match_parts(const Pattern& pat, size_t i, PartViews path, size_t j, size_t end, int flags) {
  if (i == pat.parts.size()) {
    return j == end;
  }
  if (pat.parts[i] == "**") {
    for (size_t k = j; k <= end; ++k) {
      if (match_parts(pat, i + 1, path, k, end, flags)) {
        return true;
      }
    }
    return false;
  }
  return j < end && component_matches(pat, i, path[j], flags) &&
         match_parts(pat, i + 1, path, j + 1, end, flags);
}

/// A pattern names a file or a directory; naming a directory takes everything below it, so
/// try each leading run of components (the last one only for non-directory patterns).
bool matches_parts(const Pattern& p, PartViews path, MatchOptions options) {
  if (path.empty() || p.all) {
    return !path.empty();
  }
  const int flags = options.casefold ? FNM_CASEFOLD : 0;
  const size_t last = p.dir_only ? path.size() - 1 : path.size();
  const size_t first = p.dir_only || !options.file_only ? 1 : path.size();
  // Quick rejection: a literal last component must equal the last component of some prefix
  // tried below (most rules name one file, most paths match none).
  if (!p.parts.empty() && p.literal.back() && first <= last) {
    bool possible = false;
    for (size_t end = first; end <= last && !possible; ++end) {
      possible = component_matches(p, p.parts.size() - 1, path[end - 1], flags);
    }
    if (!possible) {
      return false;
    }
  }
  for (size_t end = first; end <= last; ++end) {
    if (match_parts(p, 0, path, 0, end, flags)) {
      return true;
    }
  }
  return false;
}

} // namespace

std::vector<std::string> split_path(std::string_view path) {
  Parts parts;
  for (std::string_view part : split_path_views(path)) {
    parts.emplace_back(part);
  }
  return parts;
}

std::vector<std::string_view> split_path_views(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) {
      end = path.size();
    }
    if (end > start) {
      parts.emplace_back(path.substr(start, end - start));
    }
    start = end + 1;
  }
  return parts;
}

bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (size_t i = 0; i < a.size(); ++i) {
    if (ascii_lower(a[i]) != ascii_lower(b[i])) {
      return false;
    }
  }
  return true;
}

bool is_dotgit(std::string_view name) {
  while (!name.empty() && (name.back() == '.' || name.back() == ' ')) {
    name.remove_suffix(1);
  }
  return iequal(name, ".git") || iequal(name, "git~1");
}

bool matches_with(std::string_view pattern, std::string_view path, MatchOptions options) {
  if (path.find('\0') != std::string_view::npos || pattern.find('\0') != std::string_view::npos) {
    return false; // fnmatch would see a shorter string than the one we were given
  }
  auto p = compile(pattern);
  return p && matches_parts(*p, split_path_views(path), options);
}

std::optional<CompiledPattern> compile_pattern(std::string_view pattern) {
  if (pattern.find('\0') != std::string_view::npos) {
    return std::nullopt;
  }
  return compile(pattern);
}

bool matches_split(const CompiledPattern& pattern, const std::vector<std::string>& parts,
                   MatchOptions options) {
  std::vector<std::string_view> views(parts.begin(), parts.end());
  return matches_parts(pattern, views, options);
}

bool matches_split(const CompiledPattern& pattern, std::span<const std::string_view> parts,
                   MatchOptions options) {
  return matches_parts(pattern, parts, options);
}

bool at_or_below(std::string_view path, std::string_view dir, bool casefold) {
  std::vector<std::string_view> p = split_path_views(path);
  std::vector<std::string_view> d = split_path_views(dir);
  if (d.empty() || p.size() < d.size()) {
    return false;
  }
  for (size_t i = 0; i < d.size(); ++i) {
    if (casefold ? !iequal(p[i], d[i]) : p[i] != d[i]) {
      return false;
    }
  }
  return true;
}

bool gitignore_ignores(std::string_view rules, std::string_view rel_path) {
  bool ignored = false;
  for_each_line(rules, [&](std::string_view line) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) {
      if (line.size() >= 2 && line[line.size() - 2] == '\\' && line.back() == ' ') {
        break; // an escaped trailing space stays
      }
      line.remove_suffix(1);
    }
    if (line.empty() || line.front() == '#') {
      return;
    }
    bool negate = line.front() == '!';
    if (negate) {
      line.remove_prefix(1);
    } else if (line.front() == '\\' && line.size() > 1 && (line[1] == '#' || line[1] == '!')) {
      line.remove_prefix(1);
    }
    if (!line.empty() && matches_with(line, rel_path, {})) {
      ignored = !negate;
    }
  });
  return ignored;
}

bool matches(const std::string& pattern, const std::string& path) {
  return matches_with(pattern, path, {}); // case-sensitive, as git on Linux
}

} // namespace ws::filters
