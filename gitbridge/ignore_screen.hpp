#pragma once

// A quick, conservative answer to "could any ignore rule match this path?", so that libgit2
// (whose git_ignore_path_is_ignored rebuilds the whole stack of ignore files for every call,
// ~10 µs) is asked only about paths some rule may match. Pure: no I/O; the caller feeds it
// the text of every ignore file libgit2 would read.

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ws::gitbridge {

/// Knows, for each positive rule of the ignore files it was given, something every path the
/// rule matches must contain: a component equal to the rule's name (a rule without wildcards
/// or slashes), or its longest run of literal characters inside one component (any other
/// rule). A path holding none of these cannot be ignored: libgit2 ignores a path only when
/// the first rule matching it, or one of its directories, is positive (negations only ever
/// un-ignore). Comparisons fold ASCII case (core.ignorecase), so the screen never says "no"
/// where libgit2 says "yes"; a rule it cannot reason about (all wildcards, "*" alone, escapes
/// first) makes it answer "maybe" for everything.
class IgnoreScreen {
public:
  IgnoreScreen();
  /// Adds the rules of one ignore file (.gitignore, info/exclude, core.excludesFile).
  void add_file(std::string_view text);
  /// Makes every answer "maybe" (an ignore file could not be read).
  void give_up() { m_always = true; }
  /// False when no rule can match `path` or any directory above it; true when one may.
  bool may_match(std::string_view path);

private:
  bool component_may_match(std::string_view name);
  void add_rule(std::string_view line);

  bool m_always = false;
  std::unordered_set<std::string> m_names;      ///< lower case: a component equal to one may match
  std::vector<std::string> m_runs;              ///< lower case: a component holding one may match
  std::unordered_map<std::string, bool> m_memo; ///< component -> may match (cleared on add)
};

} // namespace ws::gitbridge
