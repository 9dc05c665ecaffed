// ws apply: land the transferable changes in the real tree, per file 3-way, all or nothing.
#include "filters/fold.hpp"
#include "fuse/hash.hpp"
#include "gitbridge/merge.hpp"
#include "src/cli/commands.hpp"
#include "src/cli/error.hpp"
#include "src/cli/pager.hpp"
#include "src/cli/progress.hpp"
#include "src/cli/text.hpp"
#include "src/daemon/daemon_client.hpp"
#include "src/transfer/apply_outcome.hpp"
#include "src/transfer/change_content.hpp"
#include "src/transfer/conflict_report.hpp"
#include "src/transfer/diff_result.hpp"
#include "src/transfer/freed_memory.hpp"
#include "src/transfer/kept_check.hpp"
#include "src/transfer/landed_versions.hpp"
#include "src/transfer/landing.hpp"
#include "src/transfer/real_tree_writer.hpp"
#include "src/transfer/reviewed_patches.hpp"
#include "src/transfer/transfer_report.hpp"
#include "src/workspace/agent_git_state.hpp"
#include "src/workspace/workspace_edit.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string_view>
#include <unordered_map>

namespace ws {

using gitbridge::BlobSide;

int cmd_apply(const Context& ctx, const ApplyOptions& o) {
  keep_freed_memory();
  if (o.commits) {
    return cmd_apply_commits(ctx, o);
  }
  Workspace w = ctx.ws();
  // A writing agent must not make apply read a mix of versions the view never held: its
  // writers wait (reads go on) from the first read of the workspace until what landed has
  // left it. A checkpoint is frozen already.
  std::optional<WriterPause> pause;
  if (!o.checkpoint) {
    pause = pause_writers(w);
  }
  Progress progress("apply");
  progress.step("reading the changes");
  // Apply needs the id and what landing reads, not the patch's text. A check may decide from
  // the id and manifest kept by the last diff or check, if nothing changed since.
  std::optional<KeptCheck> kept;
  if (o.check && !o.checkpoint) {
    kept = check_from_kept(ctx, w, o.paths, o.include);
  }
  DiffResult r =
      kept ? std::move(kept->result)
           : compute_diff(ctx, w, o.paths, o.include, o.checkpoint, {.text = false}, true, o.check);
  bool color = use_color("auto", STDERR_FILENO);
  if (!o.expect.empty()) {
    check_reviewed(w, o.expect, r.patch);
  }
  ContentReader reader(w, r.source);
  LandedVersions landed_versions(w.layout);
  std::vector<Outcome> outcomes;
  if (kept) {
    outcomes = std::move(kept->outcomes);
  } else {
    size_t k = 0; // r.pairs holds one entry per transferring change, in plan order
    progress.step("merging", r.pairs.size());
    for (const auto& p : r.plan) {
      if (p.transfers()) {
        progress.advance();
        outcomes.push_back(decide_change(p, r.pairs.at(k), r.base_exact.at(k), reader,
                                         r.source.checkpoint ? nullptr : &landed_versions));
        ++k;
      }
    }
  }
  refuse_writes_through_symlinks(landing_results(outcomes));
  if (outcomes.empty()) {
    progress.finish();
    std::fputs(verdict_report(r.plan, color, "", !o.verbose).c_str(), stderr);
    std::printf("nothing to apply\n");
    return 0;
  }
  size_t conflicts = 0;
  for (auto& out : outcomes) {
    if (out.how != How::Conflict) {
      continue;
    }
    ++conflicts;
    if (o.markers && !out.markers.empty()) {
      auto real = reader.real(out.change->change.path);
      out.landings.push_back(
          write_landing(out.change->change.path, BlobSide{real.side.mode, out.markers}, real));
      out.markers_written = true;
    }
  }
  if (conflicts > 0 && !o.markers) {
    progress.finish();
    for (const auto& out : outcomes) {
      std::fputs(conflict_report(out, color).c_str(), stderr);
    }
    throw Error(std::to_string(conflicts) + " conflicting file" + (conflicts > 1 ? "s" : "") +
                    ": nothing was applied",
                "resolve them in the real tree or the workspace and apply again, or apply the "
                "other paths alone (ws apply PATH...), or write conflict markers with "
                "--conflicts=markers");
  }

  // What --index stages is decided before anything lands: a staged version of the person's
  // that conflicts with the agent's change refuses the whole apply.
  std::vector<gitbridge::StagedPath> staged;
  if (o.index && !o.check) {
    std::vector<IndexChange> changes;
    for (const auto& out : outcomes) {
      if (out.how != How::Conflict) { // markers are for the person to resolve, not to commit
        const fuse::Change& c = out.change->change;
        changes.push_back({c.path, c.kind == fuse::ChangeKind::Renamed ? c.from : c.path, out.base,
                           c.kind == fuse::ChangeKind::Deleted ? BlobSide{} : out.agents,
                           out.landings});
      }
    }
    staged = index_changes(w.repo, changes);
  }
  RealTreeTransaction tx(w.repo);
  if (o.check) {
    std::vector<const Landing*> all;
    for (const auto& out : outcomes) {
      for (const auto& l : out.landings) {
        all.push_back(&l);
      }
    }
    tx.check(all);
    progress.finish();
    std::fflush(stdout);
    std::fputs(verdict_report(r.plan, color, "", !o.verbose).c_str(), stderr);
    std::printf("would apply cleanly: %zu change%s (patch %s)\n", outcomes.size(),
                outcomes.size() == 1 ? "" : "s", r.patch.id.c_str());
    return 0;
  }
  for (const auto& out : outcomes) {
    for (const auto& l : out.landings) {
      tx.stage(l);
    }
  }
  progress.step("writing the real tree");
  tx.commit();
  {
    std::vector<std::pair<std::string, const std::string*>> written;
    for (const auto& out : outcomes) {
      for (const auto& l : out.landings) {
        if (l.content.present() && out.how != How::Conflict) {
          written.emplace_back(l.path, &l.content.content);
        }
      }
    }
    try {
      landed_versions.record(written);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ws: warning: applied, but could not record what landed: %s\n",
                   visible_text(e.what()).c_str());
    }
  }

  if (o.index) {
    progress.step("staging");
    stage_landings(w.repo, staged);
  }
  progress.finish();

  // Above a screen's worth, a top directory's plain new files are one line (filters/fold.hpp).
  std::vector<std::string_view> folds;
  if (!o.verbose && outcomes.size() > k_report_fold_above) {
    std::vector<std::string_view> paths;
    std::vector<bool> plain;
    for (const auto& out : outcomes) {
      paths.push_back(out.change->change.path);
      plain.push_back(out.change->change.kind == fuse::ChangeKind::Added && out.how == How::Write);
    }
    folds = filters::fold_new_files(paths, plain);
  }
  std::unordered_map<std::string_view, size_t> fold_size;
  for (std::string_view d : folds) {
    if (!d.empty()) {
      ++fold_size[d];
    }
  }
  std::vector<std::string> landed;
  size_t applied = 0, folded = 0;
  for (size_t n = 0; n < outcomes.size(); ++n) {
    const Outcome& out = outcomes[n];
    const fuse::Change& c = out.change->change;
    std::string how = out.how == How::Merged         ? "  (merged with your edits)"
                      : out.how == How::AlreadyThere ? "  (already so)"
                      : out.how != How::Conflict     ? ""
                      : out.markers_written
                          ? "  (CONFLICT markers written)"
                          : "  (CONFLICT, left as it is: " + visible_text(out.conflict) + ")";
    if (!folds.empty() && !folds[n].empty()) {
      if (auto it = fold_size.find(folds[n]); it != fold_size.end()) {
        std::printf("A  %s/  %s new files\n", quote_path(folds[n]).c_str(),
                    filters::with_commas(it->second).c_str());
        ++folded;
        fold_size.erase(it);
      }
    } else {
      std::printf("%c  %s%s\n", static_cast<char>(c.kind), display_path(c).c_str(), how.c_str());
    }
    if (out.how == How::Conflict) {
      continue;
    }
    ++applied;
    // The agent may have written again since the plan was made: only what still is what
    // landed leaves the workspace, a newer version stays a change.
    bool deleted = c.kind == fuse::ChangeKind::Deleted;
    bool unchanged = false;
    try {
      unchanged = !deleted && same_blob(reader.view(c.path), out.agents);
    } catch (const std::exception&) {
      unchanged = deleted; // nothing in the workspace at that path: still deleted
    }
    if (unchanged) {
      landed.push_back(c.path);
      if (c.kind == fuse::ChangeKind::Renamed) {
        landed.push_back(c.from);
      }
    }
  }
  if (!r.source.checkpoint && !landed.empty()) {
    // What landed is no longer a change of the workspace; the view shows the real tree.
    try {
      drop_changes(w, landed);
    } catch (const std::exception& e) {
      std::fprintf(stderr,
                   "ws: warning: applied, but the workspace still holds these changes: %s\n",
                   visible_text(e.what()).c_str());
    }
  }
  if (!r.source.checkpoint && o.paths.empty() && conflicts == 0) {
    // Everything the agent's git holds is in the real tree now: its commits are not new.
    try {
      if (auto start = agent_git_start(w.layout)) {
        set_agent_landed(w, open_agent_git(w, w.layout).head().id);
      }
    } catch (const std::exception&) {
      // an unreadable agent's git keeps its old start; ws status says it is broken
    }
  }
  std::string report = verdict_report(r.plan, color, "", !o.verbose);
  std::fflush(stdout);
  std::fputs(report.c_str(), stderr);
  std::printf("applied %zu change%s%s%s\n", applied, applied == 1 ? "" : "s",
              o.index ? " and staged them" : "",
              folded > 0 ? " (new files folded by top directory; --verbose lists each)" : "");
  return conflicts > 0 ? 1 : 0;
}

} // namespace ws
