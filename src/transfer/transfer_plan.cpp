// Which of the workspace's changes may cross into the real tree: facts from the real
// repository and the view, then one verdict per path from filters/.
#include "src/transfer/transfer_plan.hpp"

#include "fuse/system_error.hpp"
#include "gitbridge/policy_config.hpp"
#include "gitbridge/real_repo.hpp"
#include "src/cli/error.hpp"
#include "src/transfer/change_content.hpp"
#include "src/transfer/view_probe.hpp"
#include "src/workspace/workspace_edit.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

namespace ws {

using fuse::UniqueFd;

StateSource live_state(const Workspace& w) {
  return StateSource{w.layout, w.layout.bases(), std::nullopt};
}

StateSource checkpoint_state(const Workspace& w, unsigned id) {
  Checkpoint cp = find_checkpoint(w, id);
  return StateSource{fuse::WorkspaceLayout{cp.dir}, w.layout.bases(), id};
}

namespace {

filters::ChangeType change_type(fuse::ChangeKind k) {
  switch (k) {
  case fuse::ChangeKind::Added:
    return filters::ChangeType::Added;
  case fuse::ChangeKind::Deleted:
    return filters::ChangeType::Deleted;
  case fuse::ChangeKind::Renamed:
    return filters::ChangeType::Renamed;
  case fuse::ChangeKind::TypeChanged:
    return filters::ChangeType::TypeChanged;
  default:
    return filters::ChangeType::Modified;
  }
}

bool within_any(const std::string& path, const std::vector<std::string>& specs) {
  return std::any_of(specs.begin(), specs.end(),
                     [&](const std::string& s) { return fuse::path_within(path, s); });
}

bool looks_binary(int upper, const std::string& path) {
  UniqueFd fd(fuse::open_beneath(upper, path, O_RDONLY | O_NOFOLLOW));
  if (!fd) {
    return false;
  }
  char buf[8000];
  ssize_t n = ::pread(fd.get(), buf, sizeof buf, 0);
  return n > 0 && std::find(buf, buf + n, '\0') != buf + n;
}

/// Paths of the workspace's own state or view, if they lie inside the project.
std::vector<std::string> own_paths(const Workspace& w) {
  std::vector<std::string> out;
  for (const auto& p : {w.layout.dir, w.mountpoint}) {
    std::filesystem::path rel = p.lexically_relative(w.repo);
    if (!rel.empty() && *rel.begin() != "..") {
      out.push_back(rel.string());
    }
  }
  return out;
}

} // namespace

std::vector<PlannedChange> plan_transfer(const Workspace& w, const StateSource& source,
                                         const PlanRequest& request, const PlanProgress& progress) {
  std::vector<fuse::Change> changes = fuse::compute_changes(w.repo, source.state);
  gitbridge::RealRepo repo(w.repo);
  filters::PolicyConfig config =
      gitbridge::load_policy_config(repo.git_dir(), gitbridge::default_user_config_file());
  // Hooks run by the person's git from the REAL core.hooksPath: read from the real config.
  config.hooks_path = gitbridge::hooks_dir_inside(w.repo).value_or("");
  ViewProbe probe(w, source);
  UniqueFd upper(::open(source.state.upper().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  ContentReader reader(w, source);
  std::vector<std::string> own = own_paths(w);

  std::vector<PlannedChange> plan;
  plan.reserve(changes.size());
  size_t seen = 0;
  for (auto& c : changes) {
    if (progress && seen++ % 256 == 0) {
      progress(seen - 1, changes.size());
    }
    if (!request.paths.empty() && !within_any(c.path, request.paths) &&
        !(c.kind == fuse::ChangeKind::Renamed && within_any(c.from, request.paths))) {
      continue;
    }
    filters::PathFacts f;
    f.type = change_type(c.kind);
    f.path = c.path;
    f.from = c.from;
    f.mode = c.mode;
    f.base_mode = c.base ? c.base->mode : 0;
    f.size = c.size;
    bool present = c.kind != fuse::ChangeKind::Deleted;
    if (present && S_ISREG(c.mode)) {
      f.binary = looks_binary(upper.get(), c.path);
    }
    if (present && S_ISLNK(c.mode)) {
      f.symlink_target = reader.view(c.path).content;
      f.symlink_reach = probe.symlink_reach(c.path, f.symlink_target);
    }
    struct stat real_st {};
    if (probe.lstat(c.path, real_st, ViewProbe::World::RealOnly)) {
      f.real_mode = real_st.st_mode;
    }
    if (present && S_ISREG(c.mode) && (c.mode & 0111) && S_ISREG(f.real_mode) &&
        (f.real_mode & 0111)) {
      // Only an executable the person already had, byte for byte, keeps landing quietly: a
      // rename or an edit makes it the agent's program (read both only in this case).
      f.real_exec_same = reader.real(c.path).side.content == reader.view(c.path).content;
    }
    // The index (megabytes on a large repository) is read only when an answer needs it:
    // ignore rules apply to untracked paths only, and a gitlink stands where the real tree
    // has a directory.
    f.ignored = repo.ignored(c.path);
    f.tracked = c.kind == fuse::ChangeKind::Modified && !f.ignored;
    f.gitlink = repo.gitlink(c.path) || (!c.from.empty() && repo.gitlink(c.from));
    f.submodule = repo.containing_submodule(c.path);
    if (f.submodule.empty() && !c.from.empty()) {
      f.submodule = repo.containing_submodule(c.from);
    }
    f.inside_nested_repo = !f.submodule.empty() || probe.ancestor_holds(c.path, ".git") ||
                           (!c.from.empty() && probe.ancestor_holds(c.from, ".git"));
    f.in_python_env = probe.ancestor_holds(c.path, "pyvenv.cfg");
    f.workspace_own = within_any(c.path, own);
    PlannedChange p;
    p.decision = filters::decide(f, config);
    p.change = std::move(c);
    plan.push_back(std::move(p));
  }

  for (const auto& inc : request.include) {
    bool matched = false;
    for (auto& p : plan) {
      bool hit = fuse::path_within(p.change.path, inc) ||
                 (!p.change.from.empty() && fuse::path_within(p.change.from, inc));
      if (!hit) {
        continue;
      }
      if (p.decision.verdict == filters::Verdict::Blocked) {
        throw Error("'" + p.change.path + "' cannot be included: " + p.decision.reason,
                    "paths under .git/, in nested repositories or of the workspace itself never "
                    "transfer; copy them by hand if you must");
      }
      if (p.decision.verdict == filters::Verdict::Withheld) {
        if (git_mode(p.change.mode) == gitbridge::GitMode::None &&
            p.change.kind != fuse::ChangeKind::Deleted) {
          throw Error("'" + p.change.path + "' cannot be included: git cannot hold a " +
                          p.decision.reason,
                      "only files and symlinks transfer");
        }
        p.included = true;
        matched = true;
      }
    }
    if (!matched) {
      throw Error("--include '" + inc + "' names no withheld change",
                  "see what is withheld with 'ws diff --withheld'");
    }
  }
  return plan;
}

std::vector<gitbridge::FilePair> file_pairs(const Workspace& w, const StateSource& source,
                                            const std::vector<PlannedChange>& plan,
                                            std::vector<bool>* base_exact) {
  ContentReader reader(w, source);
  std::vector<gitbridge::FilePair> out;
  for (const auto& p : plan) {
    if (!p.transfers()) {
      continue;
    }
    const fuse::Change& c = p.change;
    gitbridge::FilePair pair;
    pair.new_path = c.path;
    pair.old_path = c.kind == fuse::ChangeKind::Renamed ? c.from : c.path;
    bool exact = true;
    pair.before = reader.base(c, exact);
    if (c.kind != fuse::ChangeKind::Deleted) {
      pair.after = reader.view(c.path);
    }
    out.push_back(std::move(pair));
    if (base_exact) {
      base_exact->push_back(exact);
    }
  }
  return out;
}

} // namespace ws
