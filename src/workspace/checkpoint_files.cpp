// The checkpoints/ directory: drafts, numbers, info, listing, pruning and retention, and
// reading a checkpoint as a workspace (docs/checkpoints.md).
#include "src/workspace/checkpoint_files.hpp"

#include "fuse/agent_git_seed.hpp"
#include "fuse/changes.hpp"
#include "fuse/disk_usage.hpp"
#include "fuse/journal.hpp"
#include "fuse/line_escape.hpp"
#include "fuse/state_edit.hpp"
#include "fuse/state_tree.hpp"
#include "fuse/store/checkpoint_record.hpp"
#include "fuse/store/snapshot_builder.hpp"
#include "fuse/store/tree.hpp"
#include "fuse/store/tree_writer.hpp"
#include "fuse/unique_fd.hpp"
#include "gitbridge/policy_config.hpp"
#include "gitbridge/real_repo.hpp"
#include "src/cli/error.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <fstream>

namespace ws {

namespace fs = std::filesystem;

namespace {

constexpr const char* k_checkpoints = "checkpoints";

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
      cp.message = fuse::unescape_line(value);
    }
  }
  cp.full_copy = !fuse::store::snapshot_root(dir);
  cp.bytes = cp.full_copy ? 0 : fuse::store::snapshot_added_bytes(dir); // see measure_full_copies
  return cp;
}

std::optional<unsigned> checkpoint_number(const std::string& name) {
  if (name.empty() || name.size() > 9 || name[0] == '0' ||
      !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return static_cast<unsigned>(std::stoul(name));
}

std::string unique_name(const char* prefix) {
  static std::atomic<unsigned> counter{0};
  return prefix + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

/// Drops the references of snapshots `roots` (deleted checkpoints, abandoned drafts):
/// content nothing else names leaves the store.
void release_roots(const Workspace& w, const std::vector<fuse::store::ObjectId>& roots,
                   bool reset_tracker) {
  if (roots.empty() && !reset_tracker) {
    return;
  }
  fuse::store::ContentStore store(w.layout.store());
  auto lock = store.lock();
  auto children = fuse::store::children_in(store);
  for (const auto& root : roots) {
    store.release_root(root, children);
  }
  if (reset_tracker) {
    // No checkpoint is left: nor is the state the next one would have built on. It will
    // read everything again, and the store holds nothing.
    fs::path tracker = w.layout.store() / "tracker";
    fuse::store::TrackerState state = fuse::store::load_tracker(tracker);
    if (state.base && store.contains(*state.base)) {
      store.release_root(*state.base, children);
    }
    state.base.reset();
    state.marks = {};
    state.marks.all = true;
    fuse::store::save_tracker(tracker, state);
  }
}

} // namespace

CheckpointDraft::CheckpointDraft(const Workspace& w)
    : m_w(w), m_parent(w.layout.dir / k_checkpoints) {
  std::error_code ec;
  fs::create_directories(m_parent, ec);
  ::chmod(m_parent.c_str(), 0700);
  m_name = unique_name(".draft-");
}

CheckpointDraft::~CheckpointDraft() {
  if (m_published) {
    return;
  }
  try {
    if (auto root = fuse::store::snapshot_root(path())) {
      release_roots(m_w, {*root}, false);
    }
    fuse::UniqueFd parent(::open(m_parent.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    fuse::remove_tree(parent.get(), m_name);
  } catch (const std::exception&) {
    // Leftovers have a dot name: never listed, never in the way.
  }
}

bool CheckpointDraft::filled() const {
  return fs::exists(path() / "snapshot") || fs::exists(path() / "meta.db");
}

void CheckpointDraft::save_git_start() const {
  std::string lines;
  {
    fuse::MetaStore meta(m_w.layout.meta_db(), fuse::Db::Mode::ReadOnly);
    if (!fuse::agent_git_source(meta)) {
      return;
    }
    for (std::string_view key : fuse::k_git_start_keys) {
      lines += std::string(key) + " " + meta.info(key).value_or("") + "\n";
    }
  }
  std::ofstream out(path() / "git-start");
  out << lines;
  if (!out.flush()) {
    throw Error("cannot write " + (path() / "git-start").string());
  }
}

void restore_git_start(const Workspace& w, const Checkpoint& cp) {
  std::ifstream in(cp.dir / "git-start");
  if (!in) {
    return; // none kept (a full copy keeps them in its meta.db; an old checkpoint, nowhere)
  }
  fuse::MetaStore meta(w.layout.meta_db(), fuse::Db::Mode::ReadWrite);
  std::string line;
  while (std::getline(in, line)) {
    size_t space = line.find(' ');
    std::string key = line.substr(0, space);
    for (std::string_view known : fuse::k_git_start_keys) {
      if (key == known && space != std::string::npos) {
        meta.set_info(key, line.substr(space + 1));
      }
    }
  }
}

Checkpoint CheckpointDraft::publish(const std::string& message, size_t changes) {
  Checkpoint cp;
  cp.time_ns = fuse::now_ns();
  cp.message = message;
  cp.changes = changes;
  cp.bytes = fuse::store::snapshot_added_bytes(path());
  {
    std::ofstream info(path() / "info");
    info << "time_ns " << cp.time_ns << "\nchanges " << cp.changes << "\nmessage "
         << fuse::escape_line(message) << "\n";
    if (!info.flush()) {
      throw Error("cannot write " + (path() / "info").string());
    }
  }
  save_git_start();
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

void measure_full_copies(std::vector<Checkpoint>& checkpoints) {
  for (Checkpoint& cp : checkpoints) {
    if (cp.full_copy) {
      fuse::UniqueFd fd(::open(cp.dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
      cp.bytes = fd ? fuse::measure_allocated(fd.get()) : 0;
    }
  }
}

namespace {

std::vector<Checkpoint> delete_checkpoints(const Workspace& w, std::vector<Checkpoint> doomed,
                                           bool none_left) {
  if (doomed.empty()) {
    return doomed;
  }
  fuse::UniqueFd work(::open(w.layout.work().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  fuse::UniqueFd parent(
      ::open((w.layout.dir / k_checkpoints).c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!work || !parent) {
    throw Error("cannot open " + (w.layout.dir / k_checkpoints).string() + ": " +
                std::strerror(errno));
  }
  // Into the trash (one rename each, however big), then their content is released: a
  // crash midway leaves a checkpoint whole or gone, never half of one listed, and at worst
  // content no one names (never a name without its content).
  fuse::Trash trash(work.get());
  std::vector<fuse::store::ObjectId> roots;
  for (const Checkpoint& cp : doomed) {
    if (auto root = fuse::store::snapshot_root(cp.dir)) {
      roots.push_back(*root);
    }
    std::string name = cp.dir.filename().string();
    trash.take(parent.get(), name, "checkpoints/" + name);
  }
  release_roots(w, roots, none_left);
  trash.empty();
  return doomed;
}

} // namespace

std::vector<Checkpoint> prune_checkpoints(const Workspace& w, size_t keep) {
  std::vector<Checkpoint> all = list_checkpoints(w);
  if (all.size() <= keep) {
    return {};
  }
  std::vector<Checkpoint> doomed(all.begin(), all.end() - static_cast<ptrdiff_t>(keep));
  return delete_checkpoints(w, std::move(doomed), keep == 0);
}

Retention load_retention(const Workspace& w) {
  Retention r;
  fs::path git_dir = gitbridge::RealRepo(w.repo).git_dir();
  fs::path user = gitbridge::default_user_config_file();
  try {
    if (auto keep = gitbridge::load_config_count(git_dir, user, "ws.checkpointKeep")) {
      r.keep = static_cast<size_t>(std::max<uint64_t>(*keep, 1));
    }
    if (auto days = gitbridge::load_config_count(git_dir, user, "ws.checkpointMaxDays")) {
      r.max_days = static_cast<int64_t>(*days);
    }
  } catch (const std::exception& e) {
    throw Error(std::string("cannot read the checkpoint retention settings: ") + e.what(),
                "ws.checkpointKeep is a count (at least 1), ws.checkpointMaxDays a number of "
                "days (0: no limit); see docs/checkpoints.md");
  }
  return r;
}

namespace {

/// Drafts and private views of processes that died before removing them.
void remove_leftovers(const Workspace& w) {
  fs::path parent = w.layout.dir / k_checkpoints;
  fuse::UniqueFd dir(::open(parent.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(parent, ec)) {
    std::string name = e.path().filename().string();
    for (const char* prefix : {".draft-", ".view-"}) {
      size_t n = std::strlen(prefix);
      if (name.compare(0, n, prefix) != 0) {
        continue;
      }
      pid_t pid = static_cast<pid_t>(std::atol(name.c_str() + n));
      if (pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH) {
        try {
          if (auto root = fuse::store::snapshot_root(e.path())) {
            release_roots(w, {*root}, false); // a draft frozen, never published
          }
          fuse::remove_tree(dir.get(), name);
        } catch (const std::exception&) {
        }
      }
    }
  }
}

} // namespace

std::vector<Checkpoint> apply_retention(const Workspace& w, const Retention& policy,
                                        const std::vector<unsigned>& spared) {
  remove_leftovers(w);
  std::vector<Checkpoint> all = list_checkpoints(w);
  if (all.size() <= 1) {
    return {};
  }
  int64_t oldest_allowed =
      policy.max_days > 0 ? fuse::now_ns() - policy.max_days * 86400LL * 1000000000LL : INT64_MIN;
  size_t keep = std::max<size_t>(policy.keep, 1);
  std::vector<Checkpoint> doomed;
  for (size_t i = 0; i + 1 < all.size(); ++i) { // the newest always stays
    if (std::find(spared.begin(), spared.end(), all[i].id) != spared.end()) {
      continue;
    }
    if (all.size() - i > keep || all[i].time_ns < oldest_allowed) {
      doomed.push_back(all[i]);
    }
  }
  return delete_checkpoints(w, std::move(doomed), false);
}

uint64_t checkpoints_total_bytes(const Workspace& w) {
  uint64_t total = 0;
  std::vector<Checkpoint> all = list_checkpoints(w);
  measure_full_copies(all);
  for (const Checkpoint& cp : all) {
    if (cp.full_copy) {
      total += cp.bytes;
    }
  }
  if (fs::exists(w.layout.store() / "refs.db")) {
    fuse::store::ContentStore store(w.layout.store());
    total += store.committed_bytes();
  }
  return total;
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

std::optional<ChangedSince> changed_since_previous(const Workspace& w, const Checkpoint& cp) {
  std::optional<fuse::store::ObjectId> root = fuse::store::snapshot_root(cp.dir);
  if (!root) {
    return std::nullopt;
  }
  ChangedSince out;
  std::optional<fuse::store::ObjectId> before;
  for (const Checkpoint& c : list_checkpoints(w)) {
    if (c.id < cp.id) {
      out.previous = c.id;
      before = fuse::store::snapshot_root(c.dir);
    }
  }
  if (!before) {
    out.previous = 0; // none, or a full copy: everything counts
  }
  fuse::store::ContentStore store(w.layout.store());
  auto lock = store.lock();
  out.paths = fuse::store::changed_paths(store, before, *root);
  return out;
}

CheckpointView checkout_checkpoint(const Workspace& w, unsigned id) {
  Checkpoint cp = find_checkpoint(w, id);
  std::optional<fuse::store::ObjectId> root = fuse::store::snapshot_root(cp.dir);
  if (!root) {
    return {fuse::WorkspaceLayout{cp.dir}, nullptr};
  }
  fs::path parent = w.layout.dir / k_checkpoints;
  std::string name = unique_name(".view-");
  fs::path dir = parent / name;
  // Removed with the last copy of the view (and, after a crash, by the next prune).
  std::shared_ptr<void> keep(nullptr, [parent, name](void*) {
    fuse::UniqueFd p(::open(parent.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    try {
      fuse::remove_tree(p.get(), name);
    } catch (const std::exception&) {
    }
  });
  fuse::WorkspaceLayout layout{dir};
  if (::mkdir(dir.c_str(), 0700) != 0 || ::mkdir(layout.upper().c_str(), 0700) != 0) {
    throw Error("cannot make " + layout.upper().string() + ": " + std::strerror(errno));
  }
  fuse::UniqueFd upper(::open(layout.upper().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  fuse::UniqueFd bases(::open(w.layout.bases().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  try {
    fuse::store::ContentStore store(w.layout.store());
    auto lock = store.lock(); // nothing it names is pruned meanwhile
    auto records = fuse::store::write_tree(store, bases.get(), *root, upper.get());
    fuse::MetaStore(layout.meta_db(), fuse::Db::Mode::ReadWrite).replace_subtree("", records);
  } catch (const std::exception& e) {
    throw Error("cannot read checkpoint " + std::to_string(id) + ": " + e.what(),
                "its content may have been deleted by hand; 'ws checkpoints' lists the others");
  }
  return {layout, keep};
}

} // namespace ws
