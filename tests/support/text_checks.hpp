#pragma once

// Checks of what a command printed, one CHECK per expected piece so that a failure names the
// piece and shows the whole text.

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

namespace ws::test {

/// CHECKs that `text` holds each of `parts`.
inline void check_has_all(const std::string& text, const std::vector<std::string_view>& parts) {
  for (std::string_view part : parts) {
    CHECK_MESSAGE(text.find(part) != std::string::npos, "'" << std::string(part) << "' is not in:\n"
                                                            << text);
  }
}

} // namespace ws::test
