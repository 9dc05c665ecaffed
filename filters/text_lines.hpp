#pragma once

// Walking a text line by line, one way everywhere (configs, ignore files, refs, messages).

#include <string_view>

namespace ws::filters {

/// Calls `f(line)` for each line of `text`, without its '\n'. A last line without one is a
/// line; the empty rest after a final '\n' is not (as git reads its config and ignore files).
template <class F> void for_each_line(std::string_view text, F&& f) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    f(text.substr(start, end - start));
    start = end + 1;
  }
}

} // namespace ws::filters
