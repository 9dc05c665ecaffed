// ws status: what changed in the view, like `git status --short`.
#include "fuse/changes.hpp"
#include "src/commands.hpp"
#include "src/error.hpp"
#include "src/text.hpp"

#include <sys/stat.h>

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
  std::vector<fuse::Change> changes = fuse::compute_changes(w.repo, w.layout);
  if (json) {
    std::printf("[");
    bool first = true;
    for (const auto& c : changes) {
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
      std::printf("}");
      first = false;
    }
    std::printf("%s]\n", first ? "" : "\n");
    return 0;
  }
  for (const auto& c : changes) {
    if (c.kind == fuse::ChangeKind::Renamed) {
      std::printf("R %s -> %s\n", quote_path(c.from).c_str(), quote_path(c.path).c_str());
    } else {
      std::printf("%c %s\n", static_cast<char>(c.kind), quote_path(c.path).c_str());
    }
  }
  return 0;
}

} // namespace ws
