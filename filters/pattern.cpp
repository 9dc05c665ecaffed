// gitignore-style patterns for ws.withhold, ws.flag and the built-in rule tables. Each
// component goes to fnmatch(3) on its own; "**" (which fnmatch does not know) spans whole
// components.
#include "filters/pattern.hpp"

#include "filters/policy.hpp"

#include <fnmatch.h>

#include <optional>

namespace ws::filters {

namespace {

using Parts = std::vector<std::string>;

char ascii_lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

struct Pattern {
  Parts parts;           ///< components; "**" spans any number of directories
  bool dir_only = false; ///< matches a directory, so only paths strictly below it
  bool all = false;      ///< "**" or "/**" alone: everything
};

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
  return p;
}

/// Does pat[i..] match path[j..end)? Components hold no '/', so this is FNM_PATHNAME
/// matching of the whole.
bool match_parts(const Parts& pat, size_t i, const Parts& path, size_t j, size_t end, int flags) {
  if (i == pat.size()) {
    return j == end;
  }
  if (pat[i] == "**") {
    for (size_t k = j; k <= end; ++k) {
      if (match_parts(pat, i + 1, path, k, end, flags)) {
        return true;
      }
    }
    return false;
  }
  return j < end && ::fnmatch(pat[i].c_str(), path[j].c_str(), flags | FNM_PATHNAME) == 0 &&
         match_parts(pat, i + 1, path, j + 1, end, flags);
}

/// A pattern names a file or a directory; naming a directory takes everything below it, so
/// try each leading run of components (the last one only for non-directory patterns).
bool matches_parts(const Pattern& p, const Parts& path, MatchOptions options) {
  if (path.empty() || p.all) {
    return !path.empty();
  }
  const int flags = options.casefold ? FNM_CASEFOLD : 0;
  const size_t last = p.dir_only ? path.size() - 1 : path.size();
  const size_t first = p.dir_only || !options.file_only ? 1 : path.size();
  for (size_t end = first; end <= last; ++end) {
    if (match_parts(p.parts, 0, path, 0, end, flags)) {
      return true;
    }
  }
  return false;
}

} // namespace

std::vector<std::string> split_path(std::string_view path) {
  Parts parts;
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
  return p && matches_parts(*p, split_path(path), options);
}

bool at_or_below(std::string_view path, std::string_view dir, bool casefold) {
  Parts p = split_path(path);
  Parts d = split_path(dir);
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

bool matches(const std::string& pattern, const std::string& path) {
  return matches_with(pattern, path, {}); // case-sensitive, as git on Linux
}

} // namespace ws::filters
