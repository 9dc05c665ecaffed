#pragma once

#include <string_view>
#include <utility>
#include <vector>

namespace ws::tui {

/// Intra-line highlighting: for an old and a new line, which bytes changed in each, as
/// [begin, end) ranges (word granularity, dtl). Empty when the lines share too little for
/// highlighting to help.
struct WordDiff {
  std::vector<std::pair<size_t, size_t>> old_ranges, new_ranges;
};
WordDiff word_diff(std::string_view old_line, std::string_view new_line);

} // namespace ws::tui
