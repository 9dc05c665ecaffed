// The rule index gives, for any path, the answer of trying every pattern in table order: checked
// against that slow answer over the built-in tables and many paths made from their own names.
#include "filters/pattern.hpp"
#include "filters/policy_rules.hpp"
#include "filters/rule_index.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

using namespace ws::filters;

namespace {

using Compiled = decltype(compile_pattern(std::string_view{}));

/// Every pattern compiled once, in table order (the slow answer's tries).
std::vector<Compiled> compile_all(const std::vector<std::string_view>& patterns) {
  std::vector<Compiled> out;
  out.reserve(patterns.size());
  for (std::string_view pattern : patterns) {
    out.push_back(compile_pattern(pattern));
  }
  return out;
}

size_t slow_first(const std::vector<Compiled>& patterns, const std::vector<std::string>& parts,
                  MatchOptions options) {
  for (size_t i = 0; i < patterns.size(); ++i) {
    if (patterns[i] && matches_split(*patterns[i], parts, options)) {
      return i;
    }
  }
  return RuleIndex::npos;
}

/// Names to build paths from: every component of every pattern with its glob characters
/// replaced in a few ways, in several cases, plus ordinary names.
std::vector<std::string> names_from(const std::vector<std::string_view>& patterns) {
  std::set<std::string> names{
      "a",     "f0.txt", "main.c",       "x.PY",         "Makefile.bak", ".hidden",
      "rc.js", ".rc.js", ".x.js",        "config.js",    "pth",          ".pth",
      "dir",   "m0",     "node_modules", "NODE_MODULES", "build",        "BUILD.bazel.txt"};
  for (std::string_view pattern : patterns) {
    for (const std::string& part : split_path(pattern)) {
      for (const char* fill : {"", "x", "ab.c"}) {
        std::string name;
        for (char c : part) {
          if (c == '*') {
            name += fill;
          } else if (c == '?') {
            name += 'q';
          } else if (c != '[' && c != ']' && c != '\\') {
            name += c;
          }
        }
        if (!name.empty()) {
          names.insert(name);
          std::string upper = name;
          for (char& c : upper) {
            c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
          }
          names.insert(upper);
          names.insert(name + ".orig");
          names.insert("pre" + name);
        }
      }
    }
  }
  return {names.begin(), names.end()};
}

void check_table(const std::vector<std::string_view>& patterns, MatchOptions options) {
  RuleIndex index(patterns, options);
  const std::vector<Compiled> compiled = compile_all(patterns);
  std::vector<std::string> names = names_from(patterns);
  size_t checked = 0, matched = 0;
  auto check = [&](const std::vector<std::string>& parts) {
    size_t want = slow_first(compiled, parts, options);
    size_t got = index.first_match(parts);
    ++checked;
    matched += want != RuleIndex::npos;
    if (got != want) {
      std::string path;
      for (const auto& p : parts) {
        path += (path.empty() ? "" : "/") + p;
      }
      FAIL_CHECK("path '" << path << "': index says " << got << ", table order says " << want);
    }
  };
  for (const auto& a : names) {
    check({a});
    check({"src", a});
    check({a, "file.txt"});
    check({"top", a, "deep", "leaf"});
  }
  // Two named components together, for anchored patterns ("/.github/workflows/", ".mvn/wrapper/").
  // Strides grow with the tables so the pairs stay about 100 x 140 (the slow answer tries every
  // pattern for each: the sanitizer build must finish in seconds, whatever the tables hold).
  const size_t first_stride = std::max<size_t>(7, names.size() / 100);
  const size_t second_stride = std::max<size_t>(5, names.size() / 140);
  for (size_t i = 0; i < names.size(); i += first_stride) {
    for (size_t j = 0; j < names.size(); j += second_stride) {
      check({names[i], names[j]});
      check({names[i], names[j], "x"});
    }
  }
  CHECK(checked > 400);
  CHECK(matched > 20); // the paths do reach the rules
}

template <class Rule> std::vector<std::string_view> patterns_of(std::span<const Rule> rules) {
  std::vector<std::string_view> out;
  for (const Rule& r : rules) {
    out.emplace_back(r.pattern);
  }
  return out;
}

} // namespace

TEST_CASE("filters::RuleIndex agrees with trying each built-in rule in order") {
  constexpr MatchOptions k_builtin{.casefold = true, .file_only = true};
  check_table(patterns_of(place_rules()), k_builtin);
  check_table(patterns_of(self_running_rules()), k_builtin);
  check_table(patterns_of(flag_rules()), k_builtin);
}

TEST_CASE("filters::RuleIndex agrees on person-style patterns, case-sensitive, not file-only") {
  std::vector<std::string_view> patterns{
      "*.log", "build/", "/out",  "docs/*.md", "**/gen/**", "a*b",      "?x",   "*.py[cod]", "\\#x",
      "**",    "x/**",   "Make*", "*file",     "lib/**/z",  "*.tar.gz", "*.gz", ".env*"};
  check_table(patterns, {});
  check_table(patterns, {.casefold = true, .file_only = false});
}
