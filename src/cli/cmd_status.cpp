// ws status: what changed in the view, like `git status --short`, with the transfer verdict
// of every path that would not simply transfer.
#include "src/cli/commands.hpp"
#include "src/cli/error.hpp"
#include "src/cli/pager.hpp"
#include "src/cli/text.hpp"
#include "src/transfer/transfer_plan.hpp"
#include "src/transfer/transfer_report.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

namespace ws {

namespace {
std::string mode_string(mode_t mode) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%06o", static_cast<unsigned>(mode));
  return buf;
}
} // namespace

int cmd_status(const Context& ctx, bool json) {
  Workspace w = ctx.ws();
  if (!w.exists()) {
    throw Error("no workspace '" + w.name + "' for " + w.repo.string(), "create it with 'ws new'");
  }
  std::vector<PlannedChange> plan = plan_transfer(w, live_state(w), {});
  if (json) {
    std::printf("[");
    bool first = true;
    for (const auto& p : plan) {
      const fuse::Change& c = p.change;
      std::printf("%s\n  {\"status\": \"%c\", \"path\": %s", first ? "" : ",",
                  static_cast<char>(c.kind), json_string(c.path).c_str());
      if (!c.from.empty()) {
        std::printf(", \"from\": %s", json_string(c.from).c_str());
      }
      if (c.kind != fuse::ChangeKind::Deleted) {
        std::printf(", \"mode\": \"%s\", \"size\": %llu", mode_string(c.mode).c_str(),
                    static_cast<unsigned long long>(c.size));
      }
      if (c.base) {
        std::printf(", \"base_mode\": \"%s\"", mode_string(c.base->mode).c_str());
      }
      std::string verdict = filters::verdict_name(p.decision.verdict);
      for (auto& ch : verdict) {
        ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      }
      std::printf(", \"verdict\": \"%s\"", verdict.c_str());
      if (!p.decision.reason.empty()) {
        std::printf(", \"reason\": %s", json_string(p.decision.reason).c_str());
      }
      std::printf("}");
      first = false;
    }
    std::printf("%s]\n", first ? "" : "\n");
    return 0;
  }
  bool color = use_color("auto", STDOUT_FILENO);
  for (const auto& p : plan) {
    std::string line = std::string(1, status_letter(p.change)) + " " + display_path(p.change);
    if (p.decision.verdict != filters::Verdict::Transfer) {
      const char* colour =
          p.decision.verdict == filters::Verdict::Flagged ? "\033[33m" : "\033[31m";
      line += std::string("  ") + (color ? colour : "") + "(" +
              filters::verdict_name(p.decision.verdict) + ": " + shown_reason(p.decision) + ")" +
              (color ? "\033[m" : "");
    }
    std::printf("%s\n", line.c_str());
  }
  return 0;
}

} // namespace ws
