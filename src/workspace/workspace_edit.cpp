// Dropping changes and checkpoints. Whoever serves the view does the edit: the daemon when
// one runs (over its control socket, so it can keep the kernel's caches and the agent's
// open files right), else this process on the state files, holding daemon.lock so that no
// daemon starts meanwhile. Checkpoints are directories under state_dir/checkpoints/: made
// under a private name, then renamed to their number once complete (docs/checkpoints.md).
#include "src/workspace/workspace_edit.hpp"

#include "fuse/changes.hpp"
#include "fuse/journal.hpp"
#include "fuse/state_edit.hpp"
#include "fuse/state_tree.hpp"
#include "fuse/unique_fd.hpp"
#include "src/cli/error.hpp"
#include "src/daemon/control_socket.hpp"
#include "src/daemon/daemon.hpp"
#include "src/workspace/checkpoint_files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <thread>

namespace ws {

namespace fs = std::filesystem;

namespace {

/// What an edit does to the state files when no daemon runs; the daemon does the same.
using OfflineEdit = std::function<void(const fuse::StateDirs&, fuse::Trash&)>;

void require_workspace(const Workspace& w) {
  if (!w.exists()) {
    throw Error("no workspace '" + w.name + "' for " + w.repo.string(),
                "create it with 'ws new" + (w.name == "default" ? std::string() : " " + w.name) +
                    "'");
  }
}

/// "ws restore 3", with -w when the workspace is not the default one.
std::string restore_command(const Workspace& w, unsigned id) {
  return "ws " + (w.name == "default" ? std::string() : "-w " + w.name + " ") + "restore " +
         std::to_string(id);
}

/// Journals an edit done without a daemon, as the daemon journals its own.
void journal_offline(const Workspace& w, const char* op, const std::string& path,
                     const std::string& detail) {
  fuse::JournalWriter journal(w.layout.journal_db());
  fuse::JournalEntry e;
  e.time_ns = fuse::now_ns();
  e.op = op;
  e.path = path;
  e.pid = ::getpid();
  e.tid = e.pid;
  e.uid = ::getuid();
  e.comm = "ws";
  e.detail = detail;
  journal.record(std::move(e));
  journal.flush();
}

/// Sends `request` to the daemon serving `w`, or runs `offline` on the state files when
/// no daemon runs. A daemon that is starting or stopping is waited for (up to 15 s).
void run_edit(const Workspace& w, const std::vector<std::string>& request,
              const OfflineEdit& offline) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  for (;;) {
    fuse::UniqueFd lock(::open(w.layout.lock_file().c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    if (!lock) {
      throw Error("cannot open " + w.layout.lock_file().string() + ": " + std::strerror(errno));
    }
    if (::flock(lock.get(), LOCK_EX | LOCK_NB) == 0) {
      fuse::OfflineState state(w.repo, w.layout);
      fuse::Trash trash(state.dirs().work);
      offline(state.dirs(), trash);
      trash.empty();
      return; // closing `lock` lets a daemon start again
    }
    if (errno != EWOULDBLOCK) {
      throw Error("cannot lock " + w.layout.lock_file().string() + ": " + std::strerror(errno));
    }
    warn_if_other_build(w); // before: a daemon of another build may not know the request
    if (control_call(w.layout.dir, request)) {
      return;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      throw Error("the daemon serving workspace '" + w.name + "' does not answer on " +
                      (w.layout.dir / "control.sock").string(),
                  "see its log (" + w.layout.log_file().string() +
                      "); 'ws umount' then 'ws mount' restarts it");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

/// Runs `request` (which saves the state into `draft` first) and publishes the draft as
/// `message`. If the edit fails after the state was saved, the checkpoint is kept anyway
/// and the error says so: it is what the person needs to get their state back.
Checkpoint run_saving_edit(const Workspace& w, CheckpointDraft& draft,
                           const std::vector<std::string>& request, const std::string& message,
                           size_t changes, const OfflineEdit& edit) {
  try {
    run_edit(w, request, [&](const fuse::StateDirs& dirs, fuse::Trash& trash) {
      fuse::freeze_state(dirs, draft.path());
      edit(dirs, trash);
    });
  } catch (const std::exception& e) {
    if (!draft.filled()) {
      throw;
    }
    Checkpoint cp = draft.publish(message, changes);
    throw Error(e.what(), "the state before it is kept as checkpoint " + std::to_string(cp.id) +
                              ": " + restore_command(w, cp.id) + " brings it back");
  }
  return draft.publish(message, changes);
}

/// The number of changes now, unless the caller knows it.
size_t count_changes(const Workspace& w, std::optional<size_t> known) {
  return known ? *known : fuse::count_changes(w.repo, w.layout);
}

/// After a new checkpoint: the retention policy. A broken setting never loses the
/// checkpoint just made: it is reported and nothing is deleted.
void retain(const Workspace& w, const std::vector<unsigned>& spared = {}) {
  try {
    apply_retention(w, load_retention(w), spared);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ws: warning: checkpoints not pruned: %s\n", e.what());
  }
}

} // namespace

void drop_changes(const Workspace& w, const std::vector<std::string>& paths) {
  require_workspace(w);
  std::vector<std::string> roots = fuse::minimal_roots(paths);
  if (roots.empty()) {
    return;
  }
  if (roots.front().empty()) {
    drop_all_changes(w);
    return;
  }
  // Landed: files the agent still has open stay its files (docs/policy.md, "A state the
  // view had").
  std::vector<std::string> request{"drop-landed", ""};
  request.insert(request.end(), roots.begin(), roots.end());
  run_edit(w, request, [&](const fuse::StateDirs& dirs, fuse::Trash& trash) {
    fuse::note_offline_edit(dirs, roots);
    fuse::StateEditor(dirs, trash).drop(roots);
    for (const std::string& p : roots) {
      journal_offline(w, "reset", p, {});
    }
  });
}

void rebase_changes(const Workspace& w, const std::vector<std::string>& paths) {
  require_workspace(w);
  if (paths.empty()) {
    return;
  }
  std::vector<std::string> request{"rebase"};
  request.insert(request.end(), paths.begin(), paths.end());
  run_edit(w, request, [&](const fuse::StateDirs& dirs, fuse::Trash& trash) {
    fuse::note_offline_edit(dirs, paths);
    fuse::StateEditor(dirs, trash).rebase(paths);
  });
}

void drop_all_changes(const Workspace& w) {
  require_workspace(w);
  run_edit(w, {"drop-all", ""}, [&](const fuse::StateDirs& dirs, fuse::Trash& trash) {
    fuse::note_offline_edit(dirs, {""});
    fuse::StateEditor(dirs, trash).drop_all();
    journal_offline(w, "reset", "", "all");
  });
}

Checkpoint checkpoint_and_drop(const Workspace& w,
                               const std::optional<std::vector<std::string>>& paths,
                               const std::string& message, std::optional<size_t> changes) {
  require_workspace(w);
  std::vector<std::string> roots =
      paths ? fuse::minimal_roots(*paths) : std::vector<std::string>{""};
  bool all = !roots.empty() && roots.front().empty();
  size_t count = count_changes(w, changes);
  CheckpointDraft draft(w);
  std::vector<std::string> request{all ? "drop-all" : "drop", draft.request_arg()};
  if (!all) {
    request.insert(request.end(), roots.begin(), roots.end());
  }
  Checkpoint cp = run_saving_edit(w, draft, request, message, count,
                                  [&](const fuse::StateDirs& dirs, fuse::Trash& trash) {
                                    fuse::note_offline_edit(dirs, roots);
                                    fuse::StateEditor editor(dirs, trash);
                                    if (all) {
                                      editor.drop_all();
                                      journal_offline(w, "reset", "", "all");
                                      return;
                                    }
                                    editor.drop(roots);
                                    for (const std::string& p : roots) {
                                      journal_offline(w, "reset", p, {});
                                    }
                                  });
  retain(w);
  return cp;
}

Checkpoint create_checkpoint(const Workspace& w, const std::string& message,
                             std::optional<size_t> changes) {
  require_workspace(w);
  CheckpointDraft draft(w);
  run_edit(w, {"snapshot", draft.request_arg()}, [&](const fuse::StateDirs& dirs, fuse::Trash&) {
    fuse::freeze_state(dirs, draft.path());
  });
  // Counted after the freeze, from its trees where they know (a node_modules/ of 50,000
  // files is one number there): the count costs what is outside such directories.
  size_t count = changes ? *changes : fuse::count_changes(w.repo, w.layout, draft.path());
  Checkpoint cp = draft.publish(message, count);
  retain(w);
  return cp;
}

Checkpoint restore_checkpoint(const Workspace& w, unsigned id) {
  require_workspace(w);
  Checkpoint cp = find_checkpoint(w, id);
  size_t count = count_changes(w, std::nullopt);
  CheckpointDraft draft(w);
  std::string message = "before restore of " + std::to_string(id);
  Checkpoint before = run_saving_edit(
      w, draft, {"restore", draft.request_arg(), "checkpoints/" + std::to_string(id)}, message,
      count, [&](const fuse::StateDirs& dirs, fuse::Trash& trash) {
        fuse::note_offline_edit(dirs, {""});
        fuse::StateEditor(dirs, trash).restore(cp.dir);
        journal_offline(w, "restore", "", "checkpoint " + std::to_string(id));
      });
  restore_git_start(w, cp);
  retain(w, {id});
  return before;
}

} // namespace ws
