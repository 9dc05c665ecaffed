// Intra-line highlighting: which words of a changed line changed (dtl's diff of word tokens).
#include "tui/word_diff.hpp"

#include <dtl/dtl.hpp>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace ws::tui {

WordDiff word_diff(std::string_view a, std::string_view b) {
  // Tokens: runs of word characters, runs of blanks, single other bytes.
  auto tokens = [](std::string_view s) {
    std::vector<std::string> t;
    auto word = [](unsigned char c) { return std::isalnum(c) || c == '_' || c >= 0x80; };
    for (size_t i = 0; i < s.size();) {
      size_t j = i + 1;
      auto c = static_cast<unsigned char>(s[i]);
      if (word(c)) {
        while (j < s.size() && word(static_cast<unsigned char>(s[j]))) {
          ++j;
        }
      } else if (c == ' ' || c == '\t') {
        while (j < s.size() && (s[j] == ' ' || s[j] == '\t')) {
          ++j;
        }
      }
      t.emplace_back(s.substr(i, j - i));
      i = j;
    }
    return t;
  };
  std::vector<std::string> ta = tokens(a), tb = tokens(b);
  dtl::Diff<std::string, std::vector<std::string>> d(ta, tb);
  d.compose();
  WordDiff out;
  size_t ia = 0, ib = 0, pa = 0, pb = 0, common = 0;
  auto mark = [](std::vector<std::pair<size_t, size_t>>& r, size_t from, size_t to) {
    if (!r.empty() && r.back().second == from) {
      r.back().second = to; // one range for adjacent changed words
    } else {
      r.emplace_back(from, to);
    }
  };
  for (const auto& [elem, info] : d.getSes().getSequence()) {
    if (info.type == dtl::SES_DELETE) {
      mark(out.old_ranges, pa, pa + ta[ia].size());
      pa += ta[ia++].size();
    } else if (info.type == dtl::SES_ADD) {
      mark(out.new_ranges, pb, pb + tb[ib].size());
      pb += tb[ib++].size();
    } else {
      common += elem.find_first_not_of(" \t") != std::string::npos ? elem.size() : 0;
      pa += ta[ia++].size();
      pb += tb[ib++].size();
    }
  }
  // Lines that share little are rewritten, not edited: emphasis would be noise.
  if (common * 3 < std::max(a.size(), b.size())) {
    return {};
  }
  return out;
}

} // namespace ws::tui
