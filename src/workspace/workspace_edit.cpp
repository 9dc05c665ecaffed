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

constexpr const char* k_checkpoints = "checkpoints";

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

std::string escape_line(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string unescape_line(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      out += s[++i] == 'n' ? '\n' : s[i];
    } else {
      out += s[i];
    }
  }
  return out;
}

std::optional<Checkpoint> read_checkpoint(const fs::path& dir, unsigned id) {
  std::ifstream in(dir / "info");
  if (!in) {
    return std::nullopt;
  }
  Checkpoint cp;
  cp.id = id;
  cp.dir = dir;
  std::string line;
  while (std::getline(in, line)) {
    size_t sp = line.find(' ');
    std::string key = line.substr(0, sp);
    std::string value = sp == std::string::npos ? std::string() : line.substr(sp + 1);
    if (key == "time_ns") {
      cp.time_ns = std::atoll(value.c_str());
    } else if (key == "changes") {
      cp.changes = static_cast<size_t>(std::atoll(value.c_str()));
    } else if (key == "message") {
      cp.message = unescape_line(value);
    }
  }
  return cp;
}

std::optional<unsigned> checkpoint_number(const std::string& name) {
  if (name.empty() || name.size() > 9 || name[0] == '0' ||
      !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return static_cast<unsigned>(std::stoul(name));
}

/// A checkpoint being made: a private directory under checkpoints/ until publish() gives
/// it the next number. Removed if never published.
class Draft {
public:
  explicit Draft(const Workspace& w) : m_w(w), m_parent(w.layout.dir / k_checkpoints) {
    std::error_code ec;
    fs::create_directories(m_parent, ec);
    ::chmod(m_parent.c_str(), 0700);
    static std::atomic<unsigned> counter{0};
    m_name = ".draft-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  }
  ~Draft() {
    if (!m_published) {
      fuse::UniqueFd parent(::open(m_parent.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
      try {
        fuse::remove_tree(parent.get(), m_name);
      } catch (const std::exception&) {
        // Leftovers have a dot name: never listed, never in the way.
      }
    }
  }
  Draft(const Draft&) = delete;
  Draft& operator=(const Draft&) = delete;

  fs::path path() const { return m_parent / m_name; }
  /// How the daemon names it: relative to the state directory.
  std::string request_arg() const { return std::string(k_checkpoints) + "/" + m_name; }
  /// True once the state has been copied into it (even if an edit after that failed).
  bool filled() const { return fs::exists(path() / "meta.db"); }

  Checkpoint publish(const std::string& message) {
    Checkpoint cp;
    cp.time_ns = fuse::now_ns();
    cp.message = message;
    cp.changes = fuse::compute_changes(m_w.repo, fuse::WorkspaceLayout{path()}).size();
    {
      std::ofstream info(path() / "info");
      info << "time_ns " << cp.time_ns << "\nchanges " << cp.changes << "\nmessage "
           << escape_line(message) << "\n";
      if (!info.flush()) {
        throw Error("cannot write " + (path() / "info").string());
      }
    }
    // The next number; RENAME_NOREPLACE makes two concurrent checkpoints take two.
    for (;;) {
      unsigned last = 0;
      for (const Checkpoint& c : list_checkpoints(m_w)) {
        last = std::max(last, c.id);
      }
      cp.id = last + 1;
      cp.dir = m_parent / std::to_string(cp.id);
      if (::renameat2(AT_FDCWD, path().c_str(), AT_FDCWD, cp.dir.c_str(), RENAME_NOREPLACE) == 0) {
        break;
      }
      if (errno != EEXIST) {
        throw Error("cannot store checkpoint " + cp.dir.string() + ": " + std::strerror(errno));
      }
    }
    m_published = true;
    return cp;
  }

private:
  const Workspace& m_w;
  fs::path m_parent;
  std::string m_name;
  bool m_published = false;
};

/// Runs `request` (which saves the state into `draft` first) and publishes the draft as
/// `message`. If the edit fails after the state was saved, the checkpoint is kept anyway
/// and the error says so: it is what the person needs to get their state back.
Checkpoint run_saving_edit(const Workspace& w, Draft& draft,
                           const std::vector<std::string>& request, const std::string& message,
                           const OfflineEdit& edit) {
  try {
    run_edit(w, request, [&](const fuse::StateDirs& dirs, fuse::Trash& trash) {
      fuse::copy_state(dirs, draft.path());
      edit(dirs, trash);
    });
  } catch (const std::exception& e) {
    if (!draft.filled()) {
      throw;
    }
    Checkpoint cp = draft.publish(message);
    throw Error(e.what(), "the state before it is kept as checkpoint " + std::to_string(cp.id) +
                              ": " + restore_command(w, cp.id) + " brings it back");
  }
  return draft.publish(message);
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
  std::vector<std::string> request{"drop", ""};
  request.insert(request.end(), roots.begin(), roots.end());
  run_edit(w, request, [&](const fuse::StateDirs& dirs, fuse::Trash& trash) {
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
    fuse::StateEditor(dirs, trash).rebase(paths);
  });
}

void drop_all_changes(const Workspace& w) {
  require_workspace(w);
  run_edit(w, {"drop-all", ""}, [&](const fuse::StateDirs& dirs, fuse::Trash& trash) {
    fuse::StateEditor(dirs, trash).drop_all();
    journal_offline(w, "reset", "", "all");
  });
}

Checkpoint checkpoint_and_drop(const Workspace& w,
                               const std::optional<std::vector<std::string>>& paths,
                               const std::string& message) {
  require_workspace(w);
  std::vector<std::string> roots =
      paths ? fuse::minimal_roots(*paths) : std::vector<std::string>{""};
  bool all = !roots.empty() && roots.front().empty();
  Draft draft(w);
  std::vector<std::string> request{all ? "drop-all" : "drop", draft.request_arg()};
  if (!all) {
    request.insert(request.end(), roots.begin(), roots.end());
  }
  return run_saving_edit(w, draft, request, message,
                         [&](const fuse::StateDirs& dirs, fuse::Trash& trash) {
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
}

Checkpoint create_checkpoint(const Workspace& w, const std::string& message) {
  require_workspace(w);
  Draft draft(w);
  run_edit(w, {"snapshot", draft.request_arg()}, [&](const fuse::StateDirs& dirs, fuse::Trash&) {
    fuse::copy_state(dirs, draft.path());
  });
  return draft.publish(message);
}

std::vector<Checkpoint> list_checkpoints(const Workspace& w) {
  std::vector<Checkpoint> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(w.layout.dir / k_checkpoints, ec)) {
    if (auto id = checkpoint_number(e.path().filename().string())) {
      if (auto cp = read_checkpoint(e.path(), *id)) {
        out.push_back(std::move(*cp));
      }
    }
  }
  std::sort(out.begin(), out.end(),
            [](const Checkpoint& a, const Checkpoint& b) { return a.id < b.id; });
  return out;
}

std::vector<Checkpoint> prune_checkpoints(const Workspace& w, size_t keep) {
  require_workspace(w);
  std::vector<Checkpoint> all = list_checkpoints(w);
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  std::vector<Checkpoint> removed;
  if (all.size() <= keep) {
    return removed;
  }
  fuse::UniqueFd work(::open(w.layout.work().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  fuse::UniqueFd parent(
      ::open((w.layout.dir / "checkpoints").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!work || !parent) {
    throw Error("cannot open " + (w.layout.dir / "checkpoints").string() + ": " +
                std::strerror(errno));
  }
  // Into the trash (one rename each, however big), then emptied: a crash midway leaves a
  // checkpoint whole or gone, never half of one listed.
  fuse::Trash trash(work.get());
  for (size_t i = 0; i + keep < all.size(); ++i) {
    std::string name = all[i].dir.filename().string();
    trash.take(parent.get(), name, "checkpoints/" + name);
    removed.push_back(all[i]);
  }
  trash.empty();
  return removed;
}

Checkpoint find_checkpoint(const Workspace& w, unsigned id) {
  std::vector<Checkpoint> all = list_checkpoints(w);
  for (const Checkpoint& cp : all) {
    if (cp.id == id) {
      return cp;
    }
  }
  std::string known;
  for (const Checkpoint& cp : all) {
    known += (known.empty() ? "" : ", ") + std::to_string(cp.id);
  }
  throw Error("no checkpoint " + std::to_string(id) + " in workspace '" + w.name + "'",
              known.empty() ? "it has none yet: make one with 'ws checkpoint'"
                            : "its checkpoints are " + known + " (see 'ws checkpoints')");
}

Checkpoint restore_checkpoint(const Workspace& w, unsigned id) {
  require_workspace(w);
  Checkpoint cp = find_checkpoint(w, id);
  Draft draft(w);
  std::string message = "before restore of " + std::to_string(id);
  return run_saving_edit(
      w, draft,
      {"restore", draft.request_arg(), std::string(k_checkpoints) + "/" + std::to_string(id)},
      message, [&](const fuse::StateDirs& dirs, fuse::Trash& trash) {
        fuse::StateEditor(dirs, trash).restore(cp.dir);
        journal_offline(w, "restore", "", "checkpoint " + std::to_string(id));
      });
}

} // namespace ws
