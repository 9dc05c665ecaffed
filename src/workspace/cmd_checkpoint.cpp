// ws checkpoint / checkpoints / restore: freeze the workspace's state, list the frozen
// states, bring one back.
#include "src/cli/commands.hpp"
#include "src/cli/error.hpp"
#include "src/cli/progress.hpp"
#include "src/cli/text.hpp"
#include "src/workspace/workspace_edit.hpp"

#include <cstdint>
#include <cstdio>
#include <iterator>
#include <string>

namespace ws {

namespace {
const char* plural(size_t n) {
  return n == 1 ? "" : "s";
}

/// "812 B", "4.0 KiB", "54.1 MiB", "1.6 GiB".
std::string human_bytes(uint64_t n) {
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  if (n < 1024) {
    return std::to_string(n) + " B";
  }
  double v = static_cast<double>(n) / 1024;
  size_t u = 0;
  while (v >= 1024 && u + 1 < std::size(units)) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}
} // namespace

int cmd_checkpoint(const Context& ctx, const std::string& message) {
  Progress progress("checkpoint");
  progress.step("copying the workspace's state");
  Checkpoint cp = create_checkpoint(ctx.ws(), message);
  progress.finish();
  std::printf("checkpoint %u: %zu change%s\n", cp.id, cp.changes, plural(cp.changes));
  return 0;
}

int cmd_checkpoints(const Context& ctx, bool json, std::optional<size_t> keep) {
  Workspace w = ctx.ws();
  if (!w.exists()) {
    throw Error("no workspace '" + w.name + "' for " + w.repo.string(), "create it with 'ws new'");
  }
  if (keep) {
    for (const Checkpoint& cp : prune_checkpoints(w, *keep)) {
      std::fprintf(stderr, "deleted checkpoint %u (%s)\n", cp.id, quote_path(cp.message).c_str());
    }
  }
  std::vector<Checkpoint> all = list_checkpoints(w);
  measure_full_copies(all);
  if (json) {
    std::printf("[");
    for (size_t i = 0; i < all.size(); ++i) {
      const Checkpoint& cp = all[i];
      std::printf("%s\n  {\"id\": %u, \"time\": %s, \"time_ns\": %lld, \"bytes\": %llu, "
                  "\"full_copy\": %s, \"changes\": %zu, \"message\": %s}",
                  i ? "," : "", cp.id, json_string(format_time(cp.time_ns)).c_str(),
                  static_cast<long long>(cp.time_ns), static_cast<unsigned long long>(cp.bytes),
                  cp.full_copy ? "true" : "false", cp.changes, json_string(cp.message).c_str());
    }
    std::printf("%s]\n", all.empty() ? "" : "\n");
    return 0;
  }
  if (all.empty()) {
    std::fprintf(stderr, "workspace '%s' has no checkpoints yet; make one with 'ws checkpoint'\n",
                 w.name.c_str());
  }
  // SIZE: what the checkpoint added to the store when it was made (content shared with
  // other checkpoints or with the bases counts once, where it first came).
  for (const Checkpoint& cp : all) {
    std::string changes = std::to_string(cp.changes) + " change" + plural(cp.changes);
    std::printf("%4u  %s  %-12s %10s  %s\n", cp.id, format_time(cp.time_ns).c_str(),
                changes.c_str(), human_bytes(cp.bytes).c_str(), quote_path(cp.message).c_str());
  }
  if (!all.empty()) {
    Retention r = load_retention(w);
    std::string age = r.max_days > 0 ? ", for " + std::to_string(r.max_days) + " days" : "";
    std::printf("%zu checkpoint%s, %s on disk in all (kept: the newest %zu%s)\n", all.size(),
                plural(all.size()), human_bytes(checkpoints_total_bytes(w)).c_str(), r.keep,
                age.c_str());
  }
  return 0;
}

int cmd_restore(const Context& ctx, unsigned id) {
  Workspace w = ctx.ws();
  Checkpoint before = restore_checkpoint(w, id);
  Checkpoint restored = find_checkpoint(w, id);
  std::printf("restored checkpoint %u (%zu change%s); the state before is checkpoint %u: undo "
              "with: ws %srestore %u\n",
              id, restored.changes, plural(restored.changes), before.id,
              w.name == "default" ? "" : ("-w " + w.name + " ").c_str(), before.id);
  return 0;
}

} // namespace ws
