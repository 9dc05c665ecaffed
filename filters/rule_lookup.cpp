// Finding the first rule of a built-in table that matches a path (the tables are in
// policy_rules.cpp; each is indexed once, on first use).
#include "filters/pattern.hpp"
#include "filters/policy_rules.hpp"
#include "filters/rule_index.hpp"

#include <string_view>
#include <vector>

namespace ws::filters {

namespace {

/// Built-in patterns ignore case (a case-insensitive filesystem opens "MAKEFILE" for
/// "Makefile") and name files, not directories above them.
constexpr MatchOptions k_builtin{.casefold = true, .file_only = true};

/// A table indexed on first use (the tables are constant).
template <class Rule> RuleIndex indexed(std::span<const Rule> rules) {
  std::vector<std::string_view> patterns;
  patterns.reserve(rules.size());
  for (const Rule& rule : rules) {
    patterns.emplace_back(rule.pattern);
  }
  return RuleIndex(patterns, k_builtin);
}

template <class Rule>
const Rule* first_match(std::span<const Rule> rules, const RuleIndex& index,
                        const SplitPath& path) {
  if (!path.valid) {
    return nullptr; // as matches_with: never a shorter path than the one given
  }
  size_t i = index.first_match(std::span<const std::string_view>(path.parts));
  return i == RuleIndex::npos ? nullptr : &rules[i];
}

} // namespace

SplitPath::SplitPath(std::string_view path)
    : parts(split_path_views(path)), valid(path.find('\0') == std::string_view::npos) {}

const PlaceRule* find_place(std::string_view path) {
  return find_place(SplitPath(path));
}

const PlaceRule* find_place(const SplitPath& path) {
  static const RuleIndex index = indexed(place_rules());
  return first_match(place_rules(), index, path);
}

const NameRule* find_rule(std::span<const NameRule> rules, std::string_view path) {
  return find_rule(rules, SplitPath(path));
}

const NameRule* find_rule(std::span<const NameRule> rules, const SplitPath& path) {
  static const RuleIndex self_running = indexed(self_running_rules());
  static const RuleIndex flags = indexed(flag_rules());
  if (rules.data() == self_running_rules().data()) {
    return first_match(rules, self_running, path);
  }
  if (rules.data() == flag_rules().data()) {
    return first_match(rules, flags, path);
  }
  return first_match(rules, indexed(rules), path);
}

} // namespace ws::filters
