#include "src/transfer/conflict_report.hpp"

#include "filters/text_lines.hpp"
#include "src/cli/text.hpp"

#include <cstdio>

namespace ws {

namespace {
void show_lines(std::string& out, const std::string& who, const std::string& text) {
  out += "    " + who + ":\n";
  filters::for_each_line(
      text, [&out](std::string_view line) { out += "      | " + visible_text(line, true) + "\n"; });
}
} // namespace

std::string conflict_report(const LandingResult& r, bool color) {
  if (r.how != LandingResult::How::Conflict) {
    return {};
  }
  std::string out = std::string(color ? "\033[1;31m" : "") + "CONFLICT" + (color ? "\033[m" : "") +
                    " " + visible_text(r.conflict) + "\n";
  for (const auto& h : r.hunks) {
    out += "  at line " + std::to_string(h.line) + ":\n";
    show_lines(out, "yours (real tree)", h.yours);
    show_lines(out, "the agent's", h.agents);
  }
  return out;
}

} // namespace ws
