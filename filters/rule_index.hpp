#pragma once

// A table of gitignore-style patterns, indexed so that a path is compared only with the
// patterns that could match it. Pure: no I/O.

#include "filters/pattern.hpp"

#include <bitset>
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ws::filters {

/// Finds the first pattern of a table (in table order) that matches a path, as
/// `matches_split` would say for each pattern in turn, but without trying every pattern:
/// most patterns end in a literal name ("Makefile", "node_modules/") or a literal suffix
/// ("*.pth"), looked up by hash; the few others are screened by their literal prefix and
/// suffix before fnmatch. Every candidate is confirmed with `matches_split`, so the answer is
/// the same as trying each pattern in order. Immutable after construction: any thread may use
/// it.
class RuleIndex {
public:
  static constexpr size_t npos = static_cast<size_t>(-1);

  RuleIndex(const std::vector<std::string_view>& patterns, MatchOptions options);

  /// The index of the first pattern matching `parts` (a path split with split_path, holding
  /// no NUL byte), or npos.
  size_t first_match(const std::vector<std::string>& parts) const;
  /// The same for a path split with split_path_views: allocates nothing unless a pattern
  /// may match.
  size_t first_match(std::span<const std::string_view> parts) const;

private:
  /// Where a pattern's last component can match: the path's last component (a pattern
  /// naming a file) or one of its directories (a pattern ending in '/').
  enum Where : unsigned char { Leaf = 1, Dir = 2 };
  struct Other {
    size_t id;
    std::string prefix; ///< lower case: every name it matches starts with this
    std::string suffix; ///< lower case: every name it matches ends with this
    unsigned char where;
    bool any_name; ///< no screen possible ("**", or no last component)
  };
  using Ids = std::vector<std::pair<size_t, unsigned char>>; ///< (pattern id, Where)
  /// Looked up by string_view: no key string made per lookup.
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using Table = std::unordered_map<std::string, Ids, NameHash, std::equal_to<>>;

  void candidates(std::string_view name, unsigned char where, std::vector<size_t>& out) const;

  std::vector<std::optional<CompiledPattern>> m_patterns;
  MatchOptions m_options;
  Table m_by_name;   ///< literal last component, lower case
  Table m_by_suffix; ///< "*SUFFIX": SUFFIX, lower case
  /// Screens before hashing (most names are in no table): the first byte of every name
  /// in m_by_name, and per distinct SUFFIX length the first bytes of those suffixes.
  std::bitset<256> m_name_first;
  std::vector<std::pair<size_t, std::bitset<256>>> m_suffix_lengths;
  std::vector<Other> m_others;
};

} // namespace ws::filters
