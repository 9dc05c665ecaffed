// Pattern tables looked up by name instead of tried one by one: the policy asks three tables
// about every changed path, and an agent may change hundreds of thousands of paths.
#include "filters/rule_index.hpp"

#include <algorithm>
#include <array>

namespace ws::filters {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
  }
  return out;
}

bool has_any(std::string_view s, std::string_view chars) {
  return s.find_first_of(chars) != std::string_view::npos;
}

} // namespace

RuleIndex::RuleIndex(const std::vector<std::string_view>& patterns, MatchOptions options)
    : m_options(options) {
  m_patterns.reserve(patterns.size());
  for (size_t id = 0; id < patterns.size(); ++id) {
    m_patterns.push_back(compile_pattern(patterns[id]));
    const auto& p = m_patterns.back();
    if (!p) {
      continue; // matches nothing
    }
    // Which components of a path the pattern's last component is compared with (see
    // matches_parts in pattern.cpp): a directory pattern's with the directories, a file
    // pattern's with the last one, or with any when a file pattern may also name a directory.
    const auto where = static_cast<unsigned char>(p->dir_only         ? Dir
                                                  : options.file_only ? Leaf
                                                                      : (Leaf | Dir));
    if (p->all || p->parts.empty()) {
      m_others.push_back(
          {id, {}, {}, static_cast<unsigned char>(Leaf | Dir), true}); // any non-empty path
      continue;
    }
    const std::string& last = p->parts.back();
    if (p->literal.back()) {
      std::string name = lower(last);
      m_name_first.set(static_cast<unsigned char>(name.front()));
      m_by_name[std::move(name)].emplace_back(id, where);
      continue;
    }
    constexpr std::string_view k_glob = "*?[\\";
    if (last.size() > 1 && last[0] == '*' && !has_any(std::string_view(last).substr(1), k_glob)) {
      std::string suffix = lower(std::string_view(last).substr(1));
      auto length = std::find_if(m_suffix_lengths.begin(), m_suffix_lengths.end(),
                                 [&](const auto& l) { return l.first == suffix.size(); });
      if (length == m_suffix_lengths.end()) {
        length = m_suffix_lengths.insert(m_suffix_lengths.end(), {suffix.size(), {}});
      }
      length->second.set(static_cast<unsigned char>(suffix.front()));
      m_by_suffix[std::move(suffix)].emplace_back(id, where);
      continue;
    }
    // Anything else: a name it matches starts with the text before the first special
    // character, and (without brackets or escapes) ends with the text after the last one.
    Other o{id, lower(last.substr(0, last.find_first_of(k_glob))), {}, where, false};
    if (!has_any(last, "[\\")) {
      o.suffix = lower(last.substr(last.find_last_of("*?") + 1));
    }
    m_others.push_back(std::move(o));
  }
}

void RuleIndex::candidates(std::string_view name, unsigned char where,
                           std::vector<size_t>& out) const {
  auto take = [&](const Ids& ids) {
    for (const auto& [id, w] : ids) {
      if (w & where) {
        out.push_back(id);
      }
    }
  };
  // Folded on the stack: this runs for every component of every changed path.
  std::array<char, 256> buf;
  std::string long_name;
  std::string_view folded;
  if (name.size() <= buf.size()) {
    for (size_t i = 0; i < name.size(); ++i) {
      char c = name[i];
      buf[i] = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    }
    folded = std::string_view(buf.data(), name.size());
  } else {
    long_name = lower(name);
    folded = long_name;
  }
  if (!folded.empty() && m_name_first.test(static_cast<unsigned char>(folded.front()))) {
    if (auto it = m_by_name.find(folded); it != m_by_name.end()) {
      take(it->second);
    }
  }
  for (const auto& [n, first] : m_suffix_lengths) {
    if (folded.size() >= n && first.test(static_cast<unsigned char>(folded[folded.size() - n]))) {
      if (auto it = m_by_suffix.find(folded.substr(folded.size() - n)); it != m_by_suffix.end()) {
        take(it->second);
      }
    }
  }
  for (const Other& o : m_others) {
    if ((o.where & where) &&
        (o.any_name || (folded.starts_with(o.prefix) && folded.ends_with(o.suffix)))) {
      out.push_back(o.id);
    }
  }
}

size_t RuleIndex::first_match(const std::vector<std::string>& parts) const {
  std::vector<std::string_view> views(parts.begin(), parts.end());
  return first_match(std::span<const std::string_view>(views));
}

size_t RuleIndex::first_match(std::span<const std::string_view> parts) const {
  if (parts.empty()) {
    return npos;
  }
  std::vector<size_t> ids;
  for (size_t i = 0; i < parts.size(); ++i) {
    candidates(parts[i], i + 1 == parts.size() ? Leaf : Dir, ids);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  for (size_t id : ids) {
    if (matches_split(*m_patterns[id], parts, m_options)) {
      return id;
    }
  }
  return npos;
}

} // namespace ws::filters
