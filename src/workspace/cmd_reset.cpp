// ws reset [PATH...]: throw away all, or the named, changes of the workspace. The state
// before is kept as a checkpoint first, so a reset is undone with 'ws restore N'.
#include "fuse/changes.hpp"
#include "src/cli/commands.hpp"
#include "src/cli/error.hpp"
#include "src/cli/text.hpp"
#include "src/workspace/agent_git_state.hpp"
#include "src/workspace/workspace_edit.hpp"

#include <cstdio>
#include <set>

namespace ws {

namespace {
void print_change(const fuse::Change& c) {
  if (c.kind == fuse::ChangeKind::Renamed) {
    std::printf("R %s -> %s\n", quote_path(c.from).c_str(), quote_path(c.path).c_str());
  } else {
    std::printf("%c %s\n", static_cast<char>(c.kind), quote_path(c.path).c_str());
  }
}
} // namespace

int cmd_reset(const Context& ctx, const std::vector<std::string>& paths) {
  Workspace w = ctx.ws();
  if (!w.exists()) {
    throw Error("no workspace '" + w.name + "' for " + w.repo.string(), "create it with 'ws new'");
  }
  bool all = paths.empty();
  std::vector<std::string> specs;
  for (const std::string& p : paths) {
    specs.push_back(ctx.repo_relative(p));
    all = all || specs.back().empty();
  }
  std::vector<fuse::Change> changes = fuse::compute_changes(w.repo, w.layout);
  std::vector<const fuse::Change*> selected;
  std::vector<std::string> drop;
  if (all) {
    for (const auto& c : changes) {
      selected.push_back(&c);
    }
  } else {
    // A pathspec selects every change at or below it; a rename when either side matches,
    // and then both sides go (the source comes back, the destination goes).
    std::set<std::string> matched;
    for (const auto& c : changes) {
      bool hit = false;
      for (const std::string& s : specs) {
        if (fuse::path_within(c.path, s) || (!c.from.empty() && fuse::path_within(c.from, s))) {
          matched.insert(s);
          hit = true;
        }
      }
      if (hit) {
        selected.push_back(&c);
        drop.push_back(c.path);
        if (!c.from.empty()) {
          drop.push_back(c.from);
        }
      }
    }
    if (selected.empty()) {
      std::string named;
      for (const std::string& p : paths) {
        named += (named.empty() ? "" : ", ") + quote_path(p);
      }
      throw Error("no changes at or below " + named, "see what changed with 'ws status'");
    }
    // The pathspec itself too: a directory the agent made, or made opaque, goes with it.
    drop.insert(drop.end(), matched.begin(), matched.end());
  }
  if (selected.empty()) {
    drop_all_changes(w);   // leftovers that are no change (empty directories, times)
    record_agent_start(w); // the agent's git started over from yours
    std::printf("nothing to reset: the view shows the real tree\n");
    return 0;
  }
  Checkpoint cp =
      checkpoint_and_drop(w, all ? std::nullopt : std::optional<std::vector<std::string>>(drop),
                          "before reset", changes.size());
  if (all) {
    record_agent_start(w); // the agent's git started over from yours (the checkpoint has the old)
  }
  for (const fuse::Change* c : selected) {
    print_change(*c);
  }
  std::string undo =
      "ws " + (w.name == "default" ? std::string() : "-w " + w.name + " ") + "restore ";
  std::printf("dropped %zu change%s; undo with: %s%u\n", selected.size(),
              selected.size() == 1 ? "" : "s", undo.c_str(), cp.id);
  return 0;
}

} // namespace ws
