// ws apply: land the transferable changes in the real tree, per file 3-way, all or nothing.
#include "fuse/hash.hpp"
#include "gitbridge/merge.hpp"
#include "src/cli/commands.hpp"
#include "src/cli/error.hpp"
#include "src/cli/pager.hpp"
#include "src/cli/progress.hpp"
#include "src/cli/text.hpp"
#include "src/daemon/daemon_client.hpp"
#include "src/transfer/change_content.hpp"
#include "src/transfer/conflict_report.hpp"
#include "src/transfer/diff_result.hpp"
#include "src/transfer/landed_versions.hpp"
#include "src/transfer/landing.hpp"
#include "src/transfer/real_tree_writer.hpp"
#include "src/transfer/reviewed_patches.hpp"
#include "src/transfer/transfer_report.hpp"
#include "src/workspace/workspace_edit.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

namespace ws {

namespace {

using gitbridge::BlobSide;
using gitbridge::GitMode;

/// What apply decided for one change.
struct Outcome : LandingResult {
  const PlannedChange* change = nullptr;
  BlobSide agents; ///< the workspace's version this outcome was computed from
};
using How = LandingResult::How;

/// `pair` holds the base and the agent's version, as read for the patch.
Outcome decide_change(const PlannedChange& p, const gitbridge::FilePair& pair, bool base_exact,
                      const ContentReader& reader, const LandedVersions* landed) {
  Outcome out;
  out.change = &p;
  const fuse::Change& c = p.change;
  bool exact = base_exact;
  BlobSide base = pair.before;
  // The real file still holds what an earlier `ws apply --checkpoint` landed: the agent's
  // version grew from that, so it is the base to merge against.
  auto landed_base = [&](const std::string& real_path, const ContentReader::RealObject& real) {
    if (!landed || !real.exists || S_ISDIR(real.mode)) {
      return;
    }
    if (auto b = landed->base_for(real_path, real.side.content)) {
      base = BlobSide{real.side.mode, std::move(*b)};
      exact = true;
    }
  };
  switch (c.kind) {
  case fuse::ChangeKind::Deleted: {
    auto real = reader.real(c.path);
    landed_base(c.path, real);
    if (!real.exists) {
      out.how = How::AlreadyThere;
    } else if (exact && same_blob(real.side, base)) {
      out.landings.push_back(Landing{c.path, {}, 0});
    } else {
      out.how = How::Conflict;
      out.conflict =
          S_ISDIR(real.mode) ? quote_path(c.path) + " is a directory in the real tree now"
          : c.unseen
              ? quote_path(c.path) +
                    " is in the real tree, and the agent removed the directory holding "
                    "it whole (or it appeared since): delete it yourself if that is right"
              : "you changed " + quote_path(c.path) + " in the real tree; the agent deleted it";
    }
    return out;
  }
  case fuse::ChangeKind::Renamed: {
    const BlobSide& agents = pair.after;
    out.agents = agents;
    auto source = reader.real(c.from);
    auto target = reader.real(c.path);
    landed_base(c.from, source);
    if (target.exists && !same_blob(target.side, agents)) {
      out.how = How::Conflict;
      out.conflict = "the agent renamed " + quote_path(c.from) + " to " + quote_path(c.path) +
                     ", which now exists in the real tree";
      return out;
    }
    if (!source.exists) {
      if (target.exists) {
        out.how = How::AlreadyThere;
        out.landings.push_back(write_landing(c.path, agents, target));
      } else {
        out.how = How::Conflict;
        out.conflict = "you deleted " + quote_path(c.from) + "; the agent renamed it";
      }
      return out;
    }
    land_content(out, c.path, base, exact, agents, source, c.from);
    if (out.how != How::Conflict) {
      if (!out.landings.empty()) {
        out.landings.back().perm = landing_perm(source, out.landings.back().content.mode);
      }
      out.landings.push_back(Landing{c.from, {}, 0});
      if (out.how == How::AlreadyThere) {
        out.how = How::Write;
      }
    }
    return out;
  }
  default: {
    const BlobSide& agents = pair.after;
    out.agents = agents;
    auto real = reader.real(c.path);
    landed_base(c.path, real);
    if (c.kind == fuse::ChangeKind::TypeChanged && c.base && S_ISDIR(c.base->mode) && real.exists &&
        S_ISDIR(real.mode)) {
      // A file where a directory stood: the directory's files are deletions of this same
      // apply. If the person put anything else in it, landing fails and nothing changes.
      out.landings.push_back(write_landing(c.path, agents, {}));
      return out;
    }
    land_content(out, c.path, base, exact, agents, real, c.path);
    return out;
  }
  }
}

} // namespace

int cmd_apply(const Context& ctx, const ApplyOptions& o) {
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
  DiffResult r = compute_diff(ctx, w, o.paths, o.include, o.checkpoint);
  bool color = use_color("auto", STDERR_FILENO);
  if (!o.expect.empty()) {
    check_reviewed(w, o.expect, r.patch.id, r.pairs);
  }
  ContentReader reader(w, r.source);
  LandedVersions landed_versions(w.layout);
  std::vector<Outcome> outcomes;
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
  if (outcomes.empty()) {
    progress.finish();
    std::fputs(verdict_report(r.plan, color, "").c_str(), stderr);
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

  RealTreeTransaction tx(w.repo);
  for (const auto& out : outcomes) {
    for (const auto& l : out.landings) {
      tx.stage(l);
    }
  }
  if (o.check) {
    progress.finish();
    std::printf("would apply cleanly: %zu change%s (patch %s)\n", outcomes.size(),
                outcomes.size() == 1 ? "" : "s", r.patch.id.c_str());
    return 0;
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
    std::vector<Landing> staged;
    for (const auto& out : outcomes) {
      if (out.how != How::Conflict) { // markers are for the person to resolve, not to commit
        staged.insert(staged.end(), out.landings.begin(), out.landings.end());
      }
    }
    progress.step("staging");
    stage_landings(w.repo, staged);
  }
  progress.finish();

  std::vector<std::string> landed;
  size_t applied = 0;
  for (const auto& out : outcomes) {
    const fuse::Change& c = out.change->change;
    const char* how = out.how == How::Merged         ? "  (merged with your edits)"
                      : out.how == How::Conflict     ? "  (CONFLICT markers written)"
                      : out.how == How::AlreadyThere ? "  (already so)"
                                                     : "";
    std::printf("%c  %s%s\n", static_cast<char>(c.kind), display_path(c).c_str(), how);
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
  std::string report = verdict_report(r.plan, color, "");
  std::fflush(stdout);
  std::fputs(report.c_str(), stderr);
  std::printf("applied %zu change%s%s\n", applied, applied == 1 ? "" : "s",
              o.index ? " and staged them" : "");
  return conflicts > 0 ? 1 : 0;
}

} // namespace ws
