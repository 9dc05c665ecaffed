#include "src/transfer/transfer_report.hpp"

#include "src/cli/text.hpp"

namespace ws {

char status_letter(const fuse::Change& c) {
  return static_cast<char>(c.kind);
}

std::string display_path(const fuse::Change& c) {
  if (c.kind == fuse::ChangeKind::Renamed) {
    return quote_path(c.from) + " -> " + quote_path(c.path);
  }
  return quote_path(c.path);
}

std::string shown_reason(const filters::Decision& d) {
  constexpr std::string_view prefix = "never transferred: "; // the verdict says it already
  std::string_view reason = d.reason;
  if (d.verdict == filters::Verdict::Blocked && reason.starts_with(prefix)) {
    reason.remove_prefix(prefix.size());
  }
  // Reasons quote symlink targets and names the agent chose; the policy escapes C0 controls
  // only, this the rest (C1, bidi, invalid UTF-8).
  return visible_text(reason);
}

namespace {
constexpr const char* k_yellow = "\033[33m";
constexpr const char* k_red = "\033[1;31m";
constexpr const char* k_reset = "\033[m";

void section(std::string& out, const std::vector<const PlannedChange*>& items,
             const std::string& title, const char* colour, bool color, const std::string& prefix) {
  if (items.empty()) {
    return;
  }
  out += prefix + (color ? colour : "") + title + (color ? k_reset : "") + "\n";
  size_t width = 0;
  for (const auto* p : items) {
    width = std::max(width, display_path(p->change).size());
  }
  width = std::min<size_t>(width, 50);
  for (const auto* p : items) {
    std::string shown = display_path(p->change);
    out += prefix + "  " + status_letter(p->change) + "  " + shown;
    out += std::string(shown.size() < width ? width - shown.size() : 0, ' ');
    out += "  " + shown_reason(p->decision) + "\n";
  }
}
} // namespace

std::string verdict_report(const std::vector<PlannedChange>& plan, bool color,
                           const std::string& prefix) {
  std::vector<const PlannedChange*> flagged, included, withheld, blocked;
  for (const auto& p : plan) {
    switch (p.decision.verdict) {
    case filters::Verdict::Flagged:
      flagged.push_back(&p);
      break;
    case filters::Verdict::Withheld:
      (p.included ? included : withheld).push_back(&p);
      break;
    case filters::Verdict::Blocked:
      blocked.push_back(&p);
      break;
    default:
      break;
    }
  }
  std::string out;
  section(out, flagged,
          "FLAGGED: in the patch, and can run code on your machine; read closely:", k_yellow, color,
          prefix);
  section(out, included, "INCLUDED on your request, although withheld by default:", k_yellow, color,
          prefix);
  section(out, withheld, "WITHHELD: not in the patch (take one anyway with --include PATH):", k_red,
          color, prefix);
  section(out, blocked, "BLOCKED: never transferred:", k_red, color, prefix);
  return out;
}

std::string plan_json_entries(const std::vector<PlannedChange>& plan, const std::string& indent) {
  std::string out;
  bool first = true;
  for (const auto& p : plan) {
    out += first ? "\n" : ",\n";
    first = false;
    out += indent + "{\"status\": \"" + std::string(1, status_letter(p.change)) +
           "\", \"path\": " + json_string(p.change.path);
    if (!p.change.from.empty()) {
      out += ", \"from\": " + json_string(p.change.from);
    }
    std::string verdict = filters::verdict_name(p.decision.verdict);
    for (auto& ch : verdict) {
      ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    }
    out += ", \"verdict\": \"" + verdict + "\"";
    if (!p.decision.reason.empty()) {
      out += ", \"reason\": " + json_string(p.decision.reason);
    }
    out += std::string(", \"transfers\": ") + (p.transfers() ? "true" : "false") + "}";
  }
  return out;
}

} // namespace ws
