// ws new, mount, umount, list, rm: the workspace lifecycle.
#include "fuse/changes.hpp"
#include "src/cli/commands.hpp"
#include "src/cli/error.hpp"
#include "src/cli/text.hpp"
#include "src/daemon/daemon.hpp"

#include <cstdio>

namespace ws {

namespace {
size_t count_changes(const Workspace& w) {
  try {
    return fuse::compute_changes(w.repo, w.layout).size();
  } catch (const std::exception&) {
    return 0;
  }
}
} // namespace

int cmd_new(const Context& ctx, const std::string& name) {
  Workspace w = Workspace::locate(ctx.repo, name.empty() ? ctx.workspace : name);
  w.create();
  std::fprintf(stderr, "created workspace '%s' for %s\n", w.name.c_str(), w.repo.c_str());
  std::fprintf(stderr, "mount it with: ws mount%s\n",
               w.name == "default" ? "" : (" -w " + w.name).c_str());
  return 0;
}

int cmd_mount(const Context& ctx, bool debug) {
  std::filesystem::path mnt = ensure_mounted(ctx.ws(), debug);
  std::printf("%s\n", mnt.c_str());
  return 0;
}

int cmd_umount(const Context& ctx, bool force) {
  Workspace w = ctx.ws();
  if (!w.exists()) {
    throw Error("no workspace '" + w.name + "' for " + w.repo.string(), "list them with 'ws list'");
  }
  if (!unmount_view(w, force)) {
    std::fprintf(stderr, "workspace '%s' is not mounted\n", w.name.c_str());
  }
  return 0;
}

int cmd_list(const Context& ctx) {
  for (const std::string& name : list_workspaces(ctx.repo)) {
    Workspace w = Workspace::locate(ctx.repo, name);
    ViewStatus s = probe_view(w);
    const char* state = s.state == ViewState::Mounted    ? "mounted"
                        : s.state == ViewState::Starting ? "starting"
                        : s.state == ViewState::Stale    ? "stale (daemon died)"
                        : s.state == ViewState::Detached ? "detached (in use)"
                                                         : "not mounted";
    size_t changes = count_changes(w);
    std::printf("%c %-16s %-20s %zu changed path%s", name == ctx.workspace ? '*' : ' ',
                name.c_str(), state, changes, changes == 1 ? "" : "s");
    if (s.state == ViewState::Mounted) {
      std::printf("  %s", quote_path(w.mountpoint.string()).c_str());
    }
    std::printf("\n");
  }
  return 0;
}

int cmd_rm(const Context& ctx, const std::string& name, bool force) {
  Workspace w = Workspace::locate(ctx.repo, name);
  if (!w.exists()) {
    throw Error("no workspace '" + name + "' for " + w.repo.string(), "list them with 'ws list'");
  }
  ViewStatus s = probe_view(w);
  if (s.state != ViewState::Unmounted) {
    if (!force) {
      throw Error("workspace '" + name + "' is mounted at " + w.mountpoint.string(),
                  "unmount it first ('ws umount -w " + name + "'), or use 'ws rm --force " + name +
                      "'");
    }
    unmount_view(w, true);
  }
  size_t changes = count_changes(w);
  if (changes > 0 && !force) {
    throw Error("workspace '" + name + "' has " + std::to_string(changes) + " changed path" +
                    (changes == 1 ? "" : "s") + " that would be lost",
                "see them with 'ws status -w " + name + "'; remove anyway with 'ws rm --force " +
                    name + "'");
  }
  w.remove();
  std::fprintf(stderr, "removed workspace '%s'\n", name.c_str());
  return 0;
}

} // namespace ws
