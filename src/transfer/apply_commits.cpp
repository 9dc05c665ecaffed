// ws apply --commits: the agent's commits land as commits on the person's branch (3-way each,
// all or nothing, no hook run), then its uncommitted rest as working-tree changes.
#include "gitbridge/commit_replay.hpp"
#include "gitbridge/real_pins.hpp"
#include "src/cli/commands.hpp"
#include "src/cli/error.hpp"
#include "src/cli/pager.hpp"
#include "src/cli/text.hpp"
#include "src/daemon/daemon_client.hpp"
#include "src/transfer/agent_commits.hpp"
#include "src/transfer/apply_outcome.hpp"
#include "src/transfer/commit_report.hpp"
#include "src/transfer/conflict_report.hpp"
#include "src/transfer/diff_result.hpp"
#include "src/transfer/transfer_report.hpp"
#include "src/workspace/workspace_edit.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <set>

namespace ws {

namespace {

using gitbridge::BlobSide;

/// One path the commits change in the person's working tree.
struct CommitPath {
  std::string path;
  BlobSide before, after; ///< the person's HEAD's, the new HEAD's
  LandingResult result;
};

ContentReader::RealObject object_of(const BlobSide& side) {
  ContentReader::RealObject o;
  o.exists = side.present();
  o.mode = side.mode == gitbridge::GitMode::Symlink      ? S_IFLNK | 0777
           : side.mode == gitbridge::GitMode::Executable ? S_IFREG | 0755
                                                         : S_IFREG | 0644;
  o.side = side;
  return o;
}

/// The working tree for a path the commits change: the new HEAD's version, merged with the
/// person's uncommitted edits (3-way against their HEAD's).
CommitPath land_commit_path(const gitbridge::CommitChange& c, const ContentReader& reader) {
  CommitPath cp{c.path, c.before, c.after, {}};
  ContentReader::RealObject real = reader.real(c.path);
  cp.result.symlink_above = real.symlink_above;
  if (!c.after.present()) {
    if (!real.exists) {
      cp.result.how = LandingResult::How::AlreadyThere;
    } else if (same_blob(real.side, c.before)) {
      cp.result.landings.push_back(Landing{c.path, {}, 0});
    } else {
      cp.result.how = LandingResult::How::Conflict;
      cp.result.conflict = "you changed " + quote_path(c.path) + "; the agent's commits delete it";
    }
    return cp;
  }
  land_content(cp.result, c.path, c.before, true, c.after, real, c.path);
  return cp;
}

std::string hooks_note(size_t made) {
  std::string n = std::to_string(made);
  return "no hook ran: ws made these commits itself, so your pre-commit and commit-msg hooks "
         "did not check them. Run pre-commit over them with: git rebase -x 'git hook run "
         "pre-commit' HEAD~" +
         n + "  (or land the work staged for your own 'git commit': ws apply --index)";
}

} // namespace

int cmd_apply_commits(const Context& ctx, const ApplyOptions& o) {
  Workspace w = ctx.ws();
  if (o.checkpoint) {
    throw Error("--commits lands the live workspace's commits, not a checkpoint's",
                "restore the checkpoint first ('ws restore N'), or apply it without --commits");
  }
  if (!o.paths.empty() || !o.expect.empty()) {
    throw Error("--commits lands whole commits: it takes no paths and no --expect",
                "review them with 'ws diff --commits'; land parts with 'ws apply PATH...'");
  }
  std::optional<WriterPause> pause = pause_writers(w);
  DiffResult r = compute_diff(ctx, w, {}, {}, std::nullopt);
  std::vector<std::string> include;
  for (const auto& inc : o.include) {
    include.push_back(ctx.repo_relative(inc));
  }
  CommitsPlan plan = plan_commits(w, r.source, include);
  for (auto& p : r.plan) { // --include for the uncommitted rest too
    for (const auto& inc : include) {
      bool hit = fuse::path_within(p.change.path, inc) ||
                 (!p.change.from.empty() && fuse::path_within(p.change.from, inc));
      if (hit && p.decision.verdict == filters::Verdict::Withheld) {
        p.included = true;
      }
    }
  }
  if (!include.empty()) {
    r.pairs = file_pairs(w, r.source, r.plan, &r.base_exact);
  }
  if (plan.merge) {
    throw Error("the agent's history has a merge commit, " + gitbridge::short_id(plan.merge->id) +
                    " " + quote_path(plan.merge->summary()) +
                    ": --commits lands a line of commits, nothing was applied",
                "land everything as one change with 'ws apply', or have the agent rebase its work "
                "onto where it started (git rebase " +
                    gitbridge::short_id(plan.from) + ")");
  }
  bool color = use_color("auto", STDERR_FILENO);
  gitbridge::AgentHead person = gitbridge::real_head(w.repo);
  if (!plan.commits.empty()) {
    if (person.id.empty()) {
      throw Error("your branch has no commit yet: there is nothing to put the agent's commits on",
                  "make a first commit, or land the work with 'ws apply'");
    }
    if (auto problem = gitbridge::committer_problem(w.repo)) {
      throw Error(*problem, "set them: git config user.name 'Your Name' && git config "
                            "user.email you@example.com");
    }
  }

  // 1. The commits, replayed onto the person's branch (new objects, no ref moved yet).
  std::vector<gitbridge::ReplayCommit> replay;
  for (const auto& pc : plan.commits) {
    replay.push_back({pc.info, pc.left_out()});
  }
  gitbridge::ReplayResult rr;
  rr.head = person.id;
  if (!replay.empty()) {
    rr = gitbridge::replay_commits({w.repo, true}, *plan.git, replay, person.id);
  }
  if (rr.failed) {
    const PlannedCommit& bad = plan.commits[*rr.failed];
    std::string files;
    for (const auto& f : rr.conflicts) {
      files += (files.empty() ? "" : ", ") + quote_path(f);
    }
    throw Error("commit " + std::to_string(*rr.failed + 1) + " of " +
                    std::to_string(plan.commits.size()) + ", " + gitbridge::short_id(bad.info.id) +
                    " " + quote_path(bad.info.summary()) + ", does not apply onto your " +
                    (person.ref.empty() ? std::string("HEAD")
                                        : gitbridge::AgentHead{person.ref, ""}.branch()) +
                    ": it conflicts in " + files + "; nothing was applied",
                "land everything as one change with 'ws apply' (per-file 3-way, conflicts "
                "shown, --conflicts=markers to resolve them in your tree)");
  }

  // 2. The working tree: what the commits change, merged with the person's uncommitted edits.
  ContentReader reader(w, r.source);
  std::vector<CommitPath> commit_paths;
  RealAfter after;
  if (rr.head != person.id) {
    for (const auto& c : gitbridge::tree_changes(w.repo, person.id, rr.head)) {
      commit_paths.push_back(land_commit_path(c, reader));
      const CommitPath& cp = commit_paths.back();
      ContentReader::RealObject now = reader.real(c.path);
      for (const auto& l : cp.result.landings) {
        now = object_of(l.content);
      }
      after[c.path] = now;
    }
  }
  // 3. The uncommitted rest, on top of the commits.
  std::vector<Outcome> rest;
  for (const auto& rp : uncommitted_pairs(plan, r.plan, r.pairs)) {
    size_t k = 0; // the pair's index among transferring changes, for base_exact
    for (size_t i = 0; i < rp.plan_index; ++i) {
      k += r.plan[i].transfers() ? 1 : 0;
    }
    bool exact = rp.after_commits || r.base_exact.at(k);
    rest.push_back(decide_change(r.plan[rp.plan_index], rp.pair, exact, reader, nullptr, &after));
  }

  // A file beneath a symlink the person made is a conflict as in `ws apply`, whether a commit
  // or the rest brings it; a commit that deletes the link makes way for it.
  std::vector<LandingResult*> results = landing_results(rest);
  for (auto& cp : commit_paths) {
    results.push_back(&cp.result);
  }
  refuse_writes_through_symlinks(results);
  size_t conflicts = 0;
  for (const auto& cp : commit_paths) {
    if (cp.result.how == How::Conflict) {
      ++conflicts;
      std::fputs(conflict_report(cp.result, color).c_str(), stderr);
    }
  }
  for (const auto& out : rest) {
    if (out.how == How::Conflict) {
      ++conflicts;
      std::fputs(conflict_report(out, color).c_str(), stderr);
    }
  }
  if (conflicts > 0) {
    throw Error(std::to_string(conflicts) + " conflicting file" + (conflicts > 1 ? "s" : "") +
                    " with your uncommitted edits: nothing was applied",
                "commit or stash your edits to these files and apply again, or land everything "
                "as one change with 'ws apply' (--conflicts=markers writes the markers)");
  }

  // 4. The index: the commits' paths move with HEAD (refused where the person staged something
  //    of their own); the rest is staged only with --index.
  std::vector<IndexChange> commit_index;
  for (const auto& cp : commit_paths) {
    commit_index.push_back({cp.path, cp.path, cp.before, cp.after, cp.result.landings});
  }
  std::vector<gitbridge::StagedPath> staged = index_changes(w.repo, commit_index);
  if (o.index) {
    std::vector<IndexChange> rest_index;
    for (const auto& out : rest) {
      const fuse::Change& c = out.change->change;
      if (after.count(c.path)) {
        continue; // staged with the commit's version; the rest shows as your unstaged edit
      }
      rest_index.push_back({c.path, c.kind == fuse::ChangeKind::Renamed ? c.from : c.path, out.base,
                            c.kind == fuse::ChangeKind::Deleted ? BlobSide{} : out.agents,
                            out.landings});
    }
    auto more = index_changes(w.repo, rest_index);
    staged.insert(staged.end(), more.begin(), more.end());
  }
  std::map<std::string, Landing> landings; // the rest lands on top of the commits' version
  for (const auto& cp : commit_paths) {
    for (const auto& l : cp.result.landings) {
      landings[l.path] = l;
    }
  }
  for (const auto& out : rest) {
    for (const auto& l : out.landings) {
      landings[l.path] = l;
    }
  }
  RealTreeTransaction tx(w.repo);
  for (const auto& [path, l] : landings) {
    tx.stage(l);
  }
  size_t made = 0;
  for (const auto& id : rr.ids) {
    made += id.empty() ? 0 : 1;
  }
  if (o.check) {
    std::fputs(verdict_report(r.plan, color, "").c_str(), stderr);
    std::printf("would apply cleanly: %zu commit%s and %zu uncommitted change%s\n", made,
                made == 1 ? "" : "s", rest.size(), rest.size() == 1 ? "" : "s");
    return 0;
  }

  // 5. Land: the branch moves (only if nobody moved it meanwhile), then the tree, then the index.
  std::string ref = person.ref.empty() ? "HEAD" : person.ref;
  if (rr.head != person.id) {
    gitbridge::move_ref(w.repo, ref, person.id, rr.head,
                        "ws apply --commits: " + std::to_string(made) + " commits of workspace '" +
                            w.name + "'");
  }
  try {
    tx.commit();
  } catch (...) {
    if (rr.head != person.id) {
      try {
        gitbridge::move_ref(w.repo, ref, rr.head, person.id, "ws apply --commits: undone");
      } catch (const std::exception& e) {
        std::fprintf(stderr, "ws: error: %s moved, and could not be moved back: %s\n", ref.c_str(),
                     visible_text(e.what()).c_str());
      }
    }
    throw;
  }
  if (!staged.empty()) {
    stage_landings(w.repo, staged);
  }

  // 6. Say what landed, and drop it from the workspace.
  std::string branch = person.ref.empty()
                           ? "a detached HEAD"
                           : visible_text(gitbridge::AgentHead{person.ref, ""}.branch());
  for (size_t i = 0; i < plan.commits.size(); ++i) {
    const PlannedCommit& pc = plan.commits[i];
    std::string subject = quote_path(pc.info.summary());
    if (rr.ids[i].empty()) {
      std::printf("-  %s %s: left empty (everything it changed is withheld or already yours), "
                  "not made\n",
                  gitbridge::short_id(pc.info.id).c_str(), subject.c_str());
    } else {
      std::printf("+  %s %s  (the agent's %s)\n", gitbridge::short_id(rr.ids[i]).c_str(),
                  subject.c_str(), gitbridge::short_id(pc.info.id).c_str());
    }
    for (const auto& line : commit_change_lines(pc, CommitLines::LeftOut, !o.verbose, false)) {
      std::printf("     left out: %s\n", line.c_str());
    }
  }
  // What landed leaves the workspace where the view still holds the agent's version of it
  // (the agent may have written again since: a newer version stays a change).
  std::vector<std::string> drop;
  auto view_is = [&](const std::string& path, const BlobSide& want) {
    try {
      return same_blob(reader.view(path), want);
    } catch (const std::exception&) {
      return !want.present(); // nothing there in the workspace
    }
  };
  std::set<std::string> in_rest;
  for (const auto& out : rest) {
    const fuse::Change& c = out.change->change;
    in_rest.insert(c.path);
    if (view_is(c.path, c.kind == fuse::ChangeKind::Deleted ? BlobSide{} : out.agents)) {
      drop.push_back(c.path);
      if (c.kind == fuse::ChangeKind::Renamed) {
        drop.push_back(c.from);
      }
    }
  }
  for (const auto& cp : commit_paths) {
    if (!in_rest.count(cp.path) && view_is(cp.path, cp.after)) {
      drop.push_back(cp.path);
    }
  }
  for (const auto& out : rest) {
    const fuse::Change& c = out.change->change;
    std::printf("%c  %s%s\n", static_cast<char>(c.kind), display_path(c).c_str(),
                out.how == How::Merged ? "  (merged with your edits)" : "");
  }
  if (!drop.empty()) {
    try {
      drop_changes(w, drop);
    } catch (const std::exception& e) {
      std::fprintf(stderr,
                   "ws: warning: applied, but the workspace still holds these changes: %s\n",
                   visible_text(e.what()).c_str());
    }
  }
  set_agent_landed(w, plan.head.id);
  std::fflush(stdout);
  std::fputs(verdict_report(r.plan, color, "").c_str(), stderr);
  std::printf("landed %zu commit%s on %s and %zu uncommitted change%s%s\n", made,
              made == 1 ? "" : "s", branch.c_str(), rest.size(), rest.size() == 1 ? "" : "s",
              o.index ? " (staged)" : "");
  if (made > 0) {
    std::printf("%s\n", hooks_note(made).c_str());
  }
  return 0;
}

} // namespace ws
