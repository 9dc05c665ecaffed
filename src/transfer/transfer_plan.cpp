// Which of the workspace's changes may cross into the real tree: facts from the real
// repository and the view, then one verdict per path from filters/.
#include "src/transfer/transfer_plan.hpp"

#include "filters/policy_rules.hpp"
#include "fuse/agent_git_seed.hpp"
#include "fuse/system_error.hpp"
#include "gitbridge/policy_config.hpp"
#include "gitbridge/real_repo.hpp"
#include "src/cli/error.hpp"
#include "src/transfer/agent_git_facts.hpp"
#include "src/transfer/change_content.hpp"
#include "src/transfer/content_probe.hpp"
#include "src/transfer/decide_all.hpp"
#include "src/transfer/plan_cache.hpp"
#include "src/transfer/plan_inputs.hpp"
#include "src/transfer/plan_update.hpp"
#include "src/transfer/probe_cache.hpp"
#include "src/transfer/self_run_configs.hpp"
#include "src/transfer/symlink_facts.hpp"
#include "src/transfer/view_changes.hpp"
#include "src/transfer/view_probe.hpp"
#include "src/workspace/workspace_edit.hpp"

#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace ws {

using fuse::UniqueFd;

StateSource live_state(const Workspace& w) {
  return StateSource{w.layout, w.layout.bases(), std::nullopt, nullptr};
}

StateSource checkpoint_state(const Workspace& w, unsigned id) {
  CheckpointView view = checkout_checkpoint(w, id);
  return StateSource{view.layout, w.layout.bases(), id, view.keep};
}

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
  case fuse::ChangeKind::Modified:
    break;
  }
  return filters::ChangeType::Modified;
}

namespace {

bool within_any(const std::string& path, const std::vector<std::string>& specs) {
  return std::any_of(specs.begin(), specs.end(),
                     [&](const std::string& s) { return fuse::path_within(path, s); });
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

namespace {

/// `changes` within the request's pathspecs, each with its verdict. `context`: changes of
/// the workspace besides `changes` that other paths' facts depend on (its .gitignore files;
/// planning part of the workspace, plan_update.hpp). `use_probe_cache`: ask and teach the
/// probe cache (which forgets what it is not asked: only for a plan of every change).
std::vector<PlannedChange> plan_of_changes(const Workspace& w, const StateSource& source,
                                           const PlanRequest& request, const PlanProgress& progress,
                                           std::vector<fuse::Change> changes,
                                           const std::vector<fuse::Change>& context,
                                           const timespec& start, bool use_probe_cache) {
  gitbridge::RealRepo repo(w.repo, w.layout.dir / "gitlink-cache");
  filters::PolicyConfig config =
      gitbridge::load_policy_config(repo.git_dir(), gitbridge::default_user_config_file());
  // Hooks run by the person's git from the REAL core.hooksPath: read from the real config.
  gitbridge::load_worktree_config(w.repo, config);
  // Scripts the person's own configs run by themselves: read from the real tree too.
  SelfRunConfigs self_run = read_self_run_configs(w.repo, w.layout.dir / "gitlink-cache");
  config.run_by_configs = std::move(self_run.uses);
  config.run_by_name = std::move(self_run.by_name);
  ViewProbe probe(w, source);
  UniqueFd upper(::open(source.state.upper().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!upper) {
    throw_errno("open the workspace's upper layer", source.state.upper().string());
  }
  ContentReader reader(w, source);
  std::vector<std::string> own = own_paths(w);
  std::vector<fuse::Change> with_context;
  if (!context.empty()) {
    with_context = changes;
    with_context.insert(with_context.end(), context.begin(), context.end());
  }
  const std::vector<fuse::Change>& all = context.empty() ? changes : with_context;
  // What the agent's own conftest.py files import runs once you include them; a plan that
  // holds one is always made in full (plan_update.hpp), so `all` has every one.
  std::vector<std::pair<std::string, std::string>> conftests;
  for (const fuse::Change& c : all) {
    if (c.kind != fuse::ChangeKind::Deleted && S_ISREG(c.mode) && is_conftest(c.path)) {
      conftests.emplace_back(c.path, reader.view(c.path).content);
    }
  }
  add_view_conftest_imports(config, conftests);
  AgentGitFacts agent_git(source, all, reader); // its git, its .gitignore files
  // A path is judged under every name a symlink gives it (all changes: a link outside the
  // pathspecs still leads into them).
  filters::SymlinkAliases aliases = symlink_aliases(
      repo, [&](const std::string& p) { return probe.readlink(p, ViewProbe::World::RealOnly); },
      changed_symlinks(all, [&](const std::string& p) {
        return std::optional<std::string>(reader.view(p).content);
      }));

  if (!request.paths.empty()) {
    std::erase_if(changes, [&](const fuse::Change& c) {
      return !within_any(c.path, request.paths) &&
             !(c.kind == fuse::ChangeKind::Renamed && within_any(c.from, request.paths));
    });
  }
  // Every present regular file is read (is it binary?), all at once: see probe_contents.
  // Not one whose place withholds it whatever it holds (node_modules/, a virtual
  // environment...: most of what an `npm install` writes): its content decides nothing, and
  // if the person includes it, the patch reads it then. Nor, when no content is kept, one
  // read by an earlier command and unchanged since (ProbeCache).
  ProbeCache cache =
      source.checkpoint || !use_probe_cache
          ? ProbeCache()
          : ProbeCache(source.state.dir / "probe-cache", upper.get(), fuse::nanoseconds(start));
  std::vector<const std::string*> regular;
  std::vector<size_t> probe_of(changes.size(), SIZE_MAX);
  std::vector<std::optional<ProbedFacts>> known(changes.size());
  for (size_t i = 0; i < changes.size(); ++i) {
    const fuse::Change& c = changes[i];
    if (c.kind == fuse::ChangeKind::Deleted || !S_ISREG(c.mode)) {
      continue;
    }
    // The cache first: it is asked by inode, the place rules by path. (A file its place
    // withholds is never read, so never cached; known or not, its verdict is its place's.)
    if (!request.keep_content) {
      if ((known[i] = cache.facts({c.ino, c.ctime_ns, c.mtime_ns, c.size}))) {
        continue;
      }
    }
    if (c.from.empty() && filters::find_place(c.path) != nullptr) {
      continue;
    }
    probe_of[i] = regular.size();
    regular.push_back(&c.path);
  }
  std::vector<ContentProbe> probes = probe_contents(upper.get(), regular, request.keep_content);
  for (const ContentProbe& p : probes) {
    cache.learn(p.stamp, {p.binary, p.recoded});
  }
  cache.save();

  std::vector<PlannedChange> plan;
  plan.reserve(changes.size());
  // The facts of a block of changes, then their verdicts on the machine's cores (the policy
  // is pure), then the plan's entries: blocks keep the facts' memory small.
  constexpr size_t k_block = 8192;
  std::vector<filters::PathFacts> block_facts;
  for (size_t i = 0; i < changes.size(); ++i) {
    if (progress && i % 256 == 0) {
      progress(i, changes.size());
    }
    fuse::Change& c = changes[i];
    ContentProbe* read = probe_of[i] == SIZE_MAX ? nullptr : &probes[probe_of[i]];
    filters::PathFacts& f = block_facts.emplace_back();
    f.type = change_type(c.kind);
    f.path = c.path;
    f.from = c.from;
    f.mode = c.mode;
    f.base_mode = c.base ? c.base->mode : 0;
    f.size = c.size;
    bool present = c.kind != fuse::ChangeKind::Deleted;
    if (read) {
      f.binary = read->binary;
      f.recoded = read->recoded;
    } else if (known[i]) {
      f.binary = known[i]->binary;
      f.recoded = known[i]->recoded;
    }
    if (present && S_ISLNK(c.mode)) {
      f.symlink_target = reader.view(c.path).content;
      f.symlink_reach = probe.symlink_reach(c.path, f.symlink_target);
    }
    struct stat real_st {};
    if (c.real_mode) {
      f.real_mode = *c.real_mode; // looked at while the changes were computed
    } else if (probe.lstat(c.path, real_st, ViewProbe::World::RealOnly)) {
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
                           (!c.from.empty() && probe.ancestor_holds(c.from, ".git")) ||
                           probe.inside_bare_repo(c.path) ||
                           (!c.from.empty() && probe.inside_bare_repo(c.from));
    f.in_python_env = probe.ancestor_holds(c.path, "pyvenv.cfg");
    f.workspace_own = within_any(c.path, own);
    agent_git.fill(c, f);
    if (block_facts.size() < k_block && i + 1 < changes.size()) {
      continue;
    }
    std::vector<filters::Decision> decisions = decide_all(block_facts, config, aliases);
    const size_t first = i + 1 - block_facts.size();
    for (size_t k = 0; k < decisions.size(); ++k) {
      PlannedChange& p = plan.emplace_back();
      p.decision = std::move(decisions[k]);
      read = probe_of[first + k] == SIZE_MAX ? nullptr : &probes[probe_of[first + k]];
      if (read && read->whole && p.decision.verdict != filters::Verdict::Blocked) {
        p.view_content = std::move(read->content); // may transfer (or be included): kept
      }
      p.change = std::move(changes[first + k]);
    }
    block_facts.clear();
  }

  return plan;
}

/// Every change of `source` within the request's pathspecs, with its verdict: the full walk.
/// `found`, when given, gets the changes before their verdicts (PlanRequest::found).
std::vector<PlannedChange> plan_changes(const Workspace& w, const StateSource& source,
                                        const PlanRequest& request, const PlanProgress& progress,
                                        const decltype(PlanRequest::found)& found = nullptr) {
  timespec start{};
  ::clock_gettime(CLOCK_REALTIME, &start); // before any file is looked at: see ProbeCache
  std::vector<fuse::Change> changes =
      request.only ? fuse::compute_changes_at(w.repo, source.state, *request.only)
                   : fuse::compute_changes(w.repo, source.state);
  if (found) {
    found(changes);
  }
  return plan_of_changes(w, source, request, progress, std::move(changes), {}, start, true);
}

/// The plan kept by the last command, when it is the plan of now: the daemon says nothing
/// changed since it was made, and nothing else it read did (plan_cache.hpp). With `keep`
/// (ws diff, ws apply), what is read of each file is the content the verdicts were
/// decided on only if nothing changed while it was read either: asked again afterwards.
std::optional<std::vector<PlannedChange>> cached_plan(const Workspace& w, const StateSource& source,
                                                      const PlanRequest& request,
                                                      CachedPlan& cached, const std::string& now) {
  std::vector<PlannedChange> plan = std::move(cached.plan);
  if (!request.paths.empty()) {
    std::erase_if(plan, [&](const PlannedChange& p) {
      const fuse::Change& c = p.change;
      return !within_any(c.path, request.paths) &&
             !(c.kind == fuse::ChangeKind::Renamed && within_any(c.from, request.paths));
    });
  }
  if (!request.keep_content) {
    return plan;
  }
  UniqueFd upper(::open(source.state.upper().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!upper) {
    return std::nullopt;
  }
  std::vector<const std::string*> regular;
  std::vector<size_t> of;
  for (size_t i = 0; i < plan.size(); ++i) {
    const fuse::Change& c = plan[i].change;
    if (c.kind == fuse::ChangeKind::Deleted || !S_ISREG(c.mode) ||
        plan[i].decision.verdict == filters::Verdict::Blocked ||
        (c.from.empty() && filters::find_place(c.path) != nullptr)) {
      continue;
    }
    of.push_back(i);
    regular.push_back(&c.path);
  }
  std::vector<ContentProbe> probes = probe_contents(upper.get(), regular, true);
  std::optional<ViewChanges> since = view_changes_since(w.mountpoint, now, 0);
  if (!since || since->everything || !since->paths.empty()) {
    return std::nullopt; // something changed meanwhile: plan it all again
  }
  for (size_t k = 0; k < probes.size(); ++k) {
    if (probes[k].whole) {
      plan[of[k]].view_content = std::move(probes[k].content);
    }
  }
  return plan;
}

/// How many changed names the daemon may list for the kept plan to be brought up to date
/// with them (more: a full plan), and how many paths at and below them may be looked at.
constexpr size_t k_update_names = 4096;
constexpr size_t k_update_paths = 16384;

/// The kept plan brought up to date with the changes at `names` (plan_update.hpp), or
/// nullopt when only a full plan will do. WS_PLAN_UPDATE=0 turns it off.
std::optional<CachedPlan> updated_plan(const Workspace& w, const StateSource& source,
                                       CachedPlan& cached, const std::vector<std::string>& names) {
  const char* env = std::getenv("WS_PLAN_UPDATE");
  if (env && std::string_view(env) == "0") {
    return std::nullopt;
  }
  timespec start{};
  ::clock_gettime(CLOCK_REALTIME, &start);
  std::optional<PlanUpdate> u = plan_update(w, source, cached.plan, names, k_update_paths);
  if (!u) {
    return std::nullopt;
  }
  std::vector<PlannedChange> fresh = plan_of_changes(
      w, source, PlanRequest{}, {}, std::move(u->changes), u->context, start, false);
  merge_into_by_path(cached.plan, std::move(fresh));
  return CachedPlan{{}, cached.inputs, std::move(cached.plan)};
}

/// The plan cache is for the live workspace, looked at whole; WS_PLAN_CACHE=0 turns it off
/// (the tests compare both ways).
bool plan_cache_allowed(const StateSource& source, const PlanRequest& request) {
  const char* env = std::getenv("WS_PLAN_CACHE");
  return !source.checkpoint && !request.only && !(env && std::string_view(env) == "0");
}

} // namespace

std::vector<PlannedChange> plan_transfer(const Workspace& w, const StateSource& source,
                                         const PlanRequest& request, const PlanProgress& progress) {
  // The question to the daemon comes before any file is looked at: whatever changes from
  // here on is in its next answer, and a plan saved under this token is never trusted past it.
  std::optional<std::string> inputs;
  std::optional<CachedPlan> cached;
  std::optional<std::vector<PlannedChange>> outdated; // kept under other inputs
  std::optional<ViewChanges> changed;
  const std::filesystem::path cache_file = source.state.dir / "plan-cache";
  if (plan_cache_allowed(source, request)) {
    inputs = plan_inputs_digest(w);
    if (inputs) {
      cached = load_plan_cache(cache_file);
      if (cached && cached->inputs != *inputs) {
        outdated = std::move(cached->plan);
        cached.reset();
      }
      changed = view_changes_since(w.mountpoint, cached ? cached->token : "", k_update_names);
    }
  }
  std::optional<std::vector<PlannedChange>> kept;
  // The kept plan was handed to request.outdated, or moved from (nothing left to show).
  bool outdated_done = false;
  bool handed = false; // to request.outdated: the changes found are not shown instead
  bool nothing_changed =
      cached && changed && !changed->everything &&
      (changed->paths.empty() ||
       only_staging_leftovers(changed->paths, w.repo, source.state.upper(), cached->plan));
  if (nothing_changed) {
    kept = cached_plan(w, source, request, *cached, changed->token);
    outdated_done = true;
    spdlog::debug("plan cache: {}", kept ? "the plan of now" : "changed while read");
    if (kept && !changed->paths.empty() && request.paths.empty()) {
      save_plan_cache(cache_file, changed->token, *inputs, *kept); // past the leftovers
    }
  } else if (cached && changed && !changed->everything) {
    // The kept plan is shown as last planned only if a full plan is needed (below): an
    // update costs what changed, and the plan is left whole when it cannot be made.
    if (std::optional<CachedPlan> updated = updated_plan(w, source, *cached, changed->paths)) {
      outdated_done = true; // moved into the update
      // Only the listed names planned again, merged into the kept plan: kept as the plan of
      // the token asked before anything was looked at, as a full plan would be.
      updated->token = changed->token;
      save_plan_cache(cache_file, updated->token, *inputs, updated->plan);
      kept = cached_plan(w, source, request, *updated, changed->token);
      spdlog::debug("plan cache: {}",
                    kept ? "updated for " + std::to_string(changed->paths.size()) + " names"
                         : "changed while read");
    }
  } else if (inputs) {
    spdlog::debug("plan cache: {}", !cached               ? "none"
                                    : !changed            ? "no daemon"
                                    : changed->everything ? "anything may have changed"
                                                          : "changes since");
  }
  std::vector<PlannedChange> plan;
  if (kept) {
    plan = std::move(*kept);
    if (progress) {
      progress(plan.size(), plan.size());
    }
  } else {
    if (request.outdated && !outdated_done && (cached || outdated)) {
      request.outdated(cached ? cached->plan : *outdated);
      handed = true;
    }
    plan = plan_changes(w, source, request, progress, handed ? nullptr : request.found);
    if (changed && request.paths.empty()) {
      save_plan_cache(cache_file, changed->token, *inputs, plan);
    }
  }
  if (changed && request.validity) {
    *request.validity = {changed->token, *inputs};
  }

  for (const auto& inc : request.include) {
    if (fuse::in_agent_git(inc)) {
      throw Error("'" + inc + "' cannot be included: never transferred: the agent's git is its own",
                  "land the agent's commits as commits with 'ws apply --commits'");
    }
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

bool still_as_at(const Workspace& w, const StateSource& source, const std::string& token,
                 const std::vector<PlannedChange>& plan) {
  std::optional<ViewChanges> since = view_changes_since(w.mountpoint, token, 64);
  return since && !since->everything &&
         (since->paths.empty() ||
          only_staging_leftovers(since->paths, w.repo, source.state.upper(), plan));
}

gitbridge::FilePair file_pair(const ContentReader& reader, const PlannedChange& p,
                              bool& base_exact) {
  const fuse::Change& c = p.change;
  gitbridge::FilePair pair;
  pair.new_path = c.path;
  pair.old_path = c.kind == fuse::ChangeKind::Renamed ? c.from : c.path;
  base_exact = true;
  pair.before = reader.base(c, base_exact);
  if (c.kind != fuse::ChangeKind::Deleted) {
    pair.after = p.view_content ? gitbridge::BlobSide{git_mode(c.mode), *p.view_content}
                                : reader.view(c.path);
  }
  return pair;
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
    bool exact = true;
    out.push_back(file_pair(reader, p, exact));
    if (base_exact) {
      base_exact->push_back(exact);
    }
  }
  return out;
}

} // namespace ws
