// ws new, mount, umount, list, rm: the workspace lifecycle.
#include "fuse/changes.hpp"
#include "src/cli/build_info.hpp"
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

namespace {

const char* state_name(ViewState s) {
  return s == ViewState::Mounted    ? "mounted"
         : s == ViewState::Starting ? "starting"
         : s == ViewState::Stale    ? "daemon gone; run ws mount"
         : s == ViewState::Detached ? "detached (in use)"
                                    : "not mounted";
}

/// One workspace as `ws list` shows it.
struct ListedWorkspace {
  std::filesystem::path repo;
  std::string name;
  bool current = false;
  ViewStatus view_status;
  size_t changes = 0;
  std::filesystem::path view;
  ViewState state() const { return view_status.state; }
  /// Served by a daemon of another build of ws (daemon.hpp, ViewStatus::this_build).
  bool other_build() const { return view_status.pid > 0 && !view_status.this_build; }
};

std::vector<ListedWorkspace> listed(const std::filesystem::path& repo, const std::string& current) {
  std::vector<ListedWorkspace> out;
  for (const std::string& name : list_workspaces(repo)) {
    Workspace w = Workspace::locate(repo, name);
    out.push_back({repo, name, name == current, probe_view(w), count_changes(w), w.mountpoint});
  }
  return out;
}

void print_rows(const std::vector<ListedWorkspace>& rows) {
  for (const auto& r : rows) {
    std::string state = state_name(r.state());
    if (r.other_build()) {
      state += " (other ws)";
    }
    std::printf("%c %-16s %-20s %zu changed path%s", r.current ? '*' : ' ', r.name.c_str(),
                state.c_str(), r.changes, r.changes == 1 ? "" : "s");
    if (r.state() == ViewState::Mounted) {
      std::printf("  %s", quote_path(r.view.string()).c_str());
    }
    std::printf("\n");
  }
}

/// Under the rows, what "(other ws)" means and what to do, once.
void print_other_build_note(const std::vector<ListedWorkspace>& rows) {
  for (const auto& r : rows) {
    if (r.other_build()) {
      std::printf("(other ws): its daemon is from another build of ws than this one, %s: "
                  "what changed since does not apply to its view; 'ws umount -w NAME && ws "
                  "mount -w NAME' serves it with this one\n",
                  build_identity().c_str());
      return;
    }
  }
}

void print_json(const std::vector<ListedWorkspace>& rows) {
  std::printf("[");
  for (size_t k = 0; k < rows.size(); ++k) {
    const auto& r = rows[k];
    const char* state = r.state() == ViewState::Mounted    ? "mounted"
                        : r.state() == ViewState::Starting ? "starting"
                        : r.state() == ViewState::Stale    ? "stale"
                        : r.state() == ViewState::Detached ? "detached"
                                                           : "unmounted";
    std::string daemon = "null";
    if (r.view_status.pid > 0) {
      daemon = "{\"pid\": " + std::to_string(r.view_status.pid) +
               ", \"build\": " + json_string(r.view_status.build) +
               ", \"this_build\": " + (r.view_status.this_build ? "true" : "false") + "}";
    }
    std::printf("%s\n  {\"repo\": %s, \"name\": %s, \"current\": %s, \"state\": \"%s\", "
                "\"changes\": %zu, \"view\": %s, \"daemon\": %s}",
                k == 0 ? "" : ",", json_string(r.repo.string()).c_str(),
                json_string(r.name).c_str(), r.current ? "true" : "false", state, r.changes,
                json_string(r.view.string()).c_str(), daemon.c_str());
  }
  std::printf("%s]\n", rows.empty() ? "" : "\n");
}

} // namespace

int cmd_list(const Context& ctx, bool json) {
  std::vector<ListedWorkspace> rows = listed(ctx.repo, ctx.workspace);
  if (json) {
    print_json(rows);
  } else {
    print_rows(rows);
    print_other_build_note(rows);
  }
  return 0;
}

int cmd_list_all(const std::optional<Context>& here, bool json) {
  std::vector<ListedWorkspace> all;
  bool first = true;
  for (const std::filesystem::path& repo : repositories_with_workspaces()) {
    std::vector<ListedWorkspace> rows =
        listed(repo, here && here->repo == repo ? here->workspace : "");
    if (json) {
      all.insert(all.end(), rows.begin(), rows.end());
      continue;
    }
    std::error_code ec;
    bool gone = !std::filesystem::is_directory(repo, ec);
    std::string note;
    if (gone) { // 'ws rm' needs the repository; its state is plain files
      note = "  (gone; its workspaces' state: " +
             quote_path(Workspace::locate(repo, "default").layout.dir.parent_path().string()) + ")";
    }
    std::printf("%s%s%s\n", first ? "" : "\n", quote_path(repo.string()).c_str(), note.c_str());
    print_rows(rows);
    all.insert(all.end(), rows.begin(), rows.end());
    first = false;
  }
  if (json) {
    print_json(all);
  } else {
    print_other_build_note(all);
  }
  return 0;
}

int print_workspace_names(const std::string& dir, const std::string& workspace) {
  try {
    Context ctx = make_context(dir, workspace);
    for (const std::string& name : list_workspaces(ctx.repo)) {
      std::printf("%s\n", name.c_str());
    }
  } catch (const std::exception&) {
    // outside a repository: nothing to complete
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
