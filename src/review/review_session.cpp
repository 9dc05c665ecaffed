// ws review: the model's plain values from the transfer plan, and the landing of decisions.
#include "src/review/review_session.hpp"

#include "gitbridge/content_id.hpp"
#include "gitbridge/merge.hpp"
#include "src/cli/error.hpp"
#include "src/cli/text.hpp"
#include "src/review/review_diff.hpp"
#include "src/transfer/change_content.hpp"
#include "src/transfer/landing.hpp"
#include "src/transfer/transfer_report.hpp"
#include "tui/fold.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <numeric>

namespace ws {

namespace {

using gitbridge::BlobSide;
using gitbridge::GitMode;

tui::Group group_of(filters::Verdict v) {
  switch (v) {
  case filters::Verdict::Flagged:
    return tui::Group::Flagged;
  case filters::Verdict::Withheld:
    return tui::Group::Withheld;
  case filters::Verdict::Blocked:
    return tui::Group::Blocked;
  default:
    return tui::Group::Transfer;
  }
}

/// What the agent started from, as the workspace's metadata names it (no reading).
std::string base_identity(const fuse::Change& c) {
  if (!c.base) {
    return "";
  }
  std::string mode = std::to_string(c.base->mode);
  return c.base->hash ? mode + ":" + c.base->hash->hex()
                      : mode + ":" + std::to_string(c.base->size) + ":" +
                            std::to_string(c.base->ino) + ":" + std::to_string(c.base->mtime_ns);
}

/// The list's entry for `item`: what the plan knows. Its diff is made when it is shown.
tui::FileEntry entry_for(const ReviewItem& item, size_t index) {
  const fuse::Change& c = item.change.change;
  tui::FileEntry f;
  f.status = status_letter(c);
  f.path = c.path;
  f.old_path = c.kind == fuse::ChangeKind::Renamed ? c.from : c.path;
  f.group = group_of(item.change.decision.verdict);
  f.reason = item.change.decision.reason;
  f.overridable = item.change.decision.overridable() && item.may_land;
  // Either version's content or mode changes this: the workspace's object by its stat (a
  // write changes its mtime and ctime), the base by the hash the workspace recorded.
  f.identity = item.upper + "/" + base_identity(c) + (c.unseen ? "/unseen" : "");
  f.source = index;
  f.diff_loaded = false;
  f.counted = false;
  return f;
}

/// The provisional list's entry for a change as an earlier plan saw it: where it was
/// listed and why, nothing read (its diff waits for the review of now).
tui::FileEntry outdated_entry(const PlannedChange& p, size_t index) {
  const fuse::Change& c = p.change;
  tui::FileEntry f;
  f.status = status_letter(c);
  f.path = c.path;
  f.old_path = c.kind == fuse::ChangeKind::Renamed ? c.from : c.path;
  f.group = group_of(p.decision.verdict);
  f.reason = p.decision.reason;
  f.notes = {"deciding what may land: the diff shows with the list of now"};
  f.source = index;
  f.counted = false;
  return f;
}

/// The provisional list's entry for a change as found, before its verdict: where it is, and
/// nothing else yet (Review::verdicts_pending).
tui::FileEntry found_entry(const fuse::Change& c, size_t index) {
  tui::FileEntry f;
  f.status = status_letter(c);
  f.path = c.path;
  f.old_path = c.kind == fuse::ChangeKind::Renamed ? c.from : c.path;
  f.group = tui::Group::Found; // its reason and notes are the group's (tui::logical_rows)
  f.source = index;
  f.counted = false;
  return f;
}

} // namespace

std::vector<std::string> landing_report(const ReviewLanding& landing, const tui::ReviewModel& model,
                                        size_t fold_above) {
  if (landing.summary.size() <= fold_above) {
    return landing.summary;
  }
  // The landed files in path order, folded as the review's list folds.
  const auto& files = model.files();
  std::vector<size_t> order(landing.summary.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return files[landing.summary_files[a]].path < files[landing.summary_files[b]].path;
  });
  std::vector<tui::FoldPath> paths;
  for (size_t k : order) {
    const tui::FileEntry& f = files[landing.summary_files[k]];
    paths.push_back({f.path, f.group, f.reason});
  }
  std::vector<std::string> out;
  size_t next = 0;
  for (const auto& d : tui::fold_directories(paths)) {
    for (; next < d.begin; ++next) {
      out.push_back(landing.summary[order[next]]);
    }
    size_t deleted = 0;
    for (size_t k = d.begin; k < d.end; ++k) {
      deleted += files[landing.summary_files[order[k]]].status == 'D' ? 1 : 0;
    }
    out.push_back("   " + quote_path(d.dir) + "/  " + tui::with_commas(d.end - d.begin) + " files" +
                  (deleted > 0 ? " (" + tui::with_commas(deleted) + " deleted)" : "") + "  (" +
                  d.reason + (d.note.empty() ? "" : "; " + d.note) + ", taken on your request)");
    next = d.end;
  }
  for (; next < order.size(); ++next) {
    out.push_back(landing.summary[order[next]]);
  }
  return out;
}

std::filesystem::path decisions_file(const Workspace& w) {
  return w.layout.dir / "review-decisions";
}

ReviewSource load_review(const Workspace& w, const std::vector<std::string>& paths,
                         const LoadProgress& progress, const OutdatedList& outdated) {
  auto tell = [&](const char* step, size_t done, size_t total) {
    if (progress) {
      progress(step, done, total);
    }
  };
  ReviewSource r{live_state(w), {}, {}};
  tell("finding the changes", 0, 0);
  PlanRequest request{paths, {}, std::nullopt};
  auto wanted = [&](const fuse::Change& c) {
    auto within = [&](const std::string& path) {
      return std::any_of(paths.begin(), paths.end(),
                         [&](const std::string& s) { return fuse::path_within(path, s); });
    };
    return paths.empty() || within(c.path) ||
           (c.kind == fuse::ChangeKind::Renamed && within(c.from));
  };
  if (outdated) {
    request.outdated = [&](const std::vector<PlannedChange>& kept) {
      tui::Review list;
      list.workspace = w.name;
      list.provisional = true;
      list.files.reserve(kept.size());
      for (size_t k = 0; k < kept.size(); ++k) {
        if (wanted(kept[k].change)) {
          list.files.push_back(outdated_entry(kept[k], k));
        }
      }
      if (!list.files.empty()) {
        outdated(std::move(list));
      }
    };
    // No kept plan: the changes as found, listed while their verdicts are decided.
    request.found = [&](const std::vector<fuse::Change>& changes) {
      tui::Review list;
      list.workspace = w.name;
      list.provisional = true;
      list.verdicts_pending = true;
      list.files.reserve(changes.size());
      for (size_t k = 0; k < changes.size(); ++k) {
        if (wanted(changes[k])) {
          list.files.push_back(found_entry(changes[k], k));
        }
      }
      if (!list.files.empty()) {
        outdated(std::move(list));
      }
    };
  }
  std::vector<PlannedChange> plan =
      plan_transfer(w, r.source, request, [&](size_t done, size_t total) {
        tell("deciding what may land", done, total);
      });
  UpperFiles upper(r.source);
  r.items.reserve(plan.size());
  r.review.files.reserve(plan.size());
  for (size_t k = 0; k < plan.size(); ++k) {
    if (k % 1024 == 0) {
      tell("looking at the changed files", k, plan.size());
    }
    ReviewItem item{std::move(plan[k]), {}, false};
    const fuse::Change& c = item.change.change;
    bool representable = c.kind == fuse::ChangeKind::Deleted || git_mode(c.mode) != GitMode::None;
    item.may_land =
        item.change.transfers() || (item.change.decision.overridable() && representable);
    if (c.kind != fuse::ChangeKind::Deleted) {
      // The object the verdict was decided on, as the plan saw it (the same stat_identity
      // an fstatat gives now, 100,000 system calls fewer while the review opens); any
      // later write changes it, and every read of the content checks it.
      std::optional<std::string> seen = change_identity(c);
      item.upper = seen ? *seen : upper.identity(c.path).value_or("gone");
    }
    r.review.files.push_back(entry_for(item, k));
    r.items.push_back(std::move(item));
  }
  plan = {}; // moved from: its storage is a fifth of a large review's memory
  r.review.workspace = w.name;
  // The identity of everything that may land, withheld files included (each file's identity
  // covers both versions with their modes), and of the verdicts: a file that became flagged
  // is not a file already reviewed. Made from what the plan and one stat per file tell, so
  // opening a review of 100,000 files reads none of them.
  std::string id;
  size_t id_size = 0;
  for (const tui::FileEntry& f : r.review.files) {
    id_size += f.old_path.size() + f.path.size() + f.identity.size() + f.reason.size() + 80;
  }
  id.reserve(id_size); // one allocation: 15 MB for 100,000 files, not a copy per doubling
  auto field = [&id](std::string_view s) {
    id += std::to_string(s.size()) + ":"; // unambiguous whatever the bytes
    id += s;
  };
  for (size_t k = 0; k < r.items.size(); ++k) {
    const PlannedChange& c = r.items[k].change;
    const tui::FileEntry& f = r.review.files[k];
    field(std::string(1, f.status));
    field(f.old_path);
    field(f.path);
    field(f.identity);
    field(filters::verdict_name(c.decision.verdict));
    field(c.decision.reason);
  }
  r.review.id = gitbridge::sha256_hex(id);
  return r;
}

ReviewLanding plan_review_landing(const Workspace& w, const ReviewSource& src,
                                  const tui::ReviewModel& model, LandingPatches patches) {
  ReviewLanding out;
  ContentReader reader(w, src.source);
  UpperFiles upper(src.source);
  std::vector<gitbridge::FilePair> accepted, rejected;
  /// One accepted file: how it lands (decided per file, then together for symlinks) and what
  /// the summary and the workspace make of it.
  struct Taken {
    LandingResult result;
    size_t file;
    std::string line;
    bool partial;
  };
  std::vector<Taken> taken_files;
  for (size_t fi = 0; fi < model.files().size(); ++fi) {
    const tui::FileEntry& f = model.files()[fi];
    tui::FileState state = tui::file_state(f);
    const ReviewItem& item = src.items.at(f.source);
    if (!item.may_land || state == tui::FileState::Locked || state == tui::FileState::Undecided) {
      continue;
    }
    const fuse::Change& c = item.change.change;
    // Read now, and only if it is still what the review opened on; a file that was shown
    // must hold exactly what was shown (its hunks were decided on that).
    bool base_exact = true;
    gitbridge::FilePair p = read_pair(reader, upper, item, base_exact);
    if (!f.shown.empty() && content_check(p) != f.shown) {
      throw Error(quote_path(c.path) +
                      " is not what you reviewed any more (the agent's version, or the one it "
                      "started from, changed): nothing was landed",
                  "run 'ws review' again; your decisions on unchanged hunks come back");
    }
    bool partial = f.hunk_level && state == tui::FileState::Partial;
    size_t taken = 0, left = 0;
    for (const auto& h : f.hunks) {
      taken += h.decision == tui::Decision::Accepted ? 1 : 0;
      left += h.decision == tui::Decision::Rejected ? 1 : 0;
    }
    // What lands: the agent's version, or the base with only the accepted hunks.
    BlobSide target = p.after;
    if (partial) {
      target.content = tui::apply_hunks(p.before.content, f.hunks);
    }
    if (patches.rejected && (state == tui::FileState::Rejected || (partial && left > 0))) {
      gitbridge::FilePair r = p;
      if (partial) {
        std::vector<tui::Hunk> both = f.hunks;
        for (auto& h : both) {
          h.decision =
              h.decision == tui::Decision::Undecided ? h.decision : tui::Decision::Accepted;
        }
        r.before = target;
        r.after = BlobSide{p.after.mode, tui::apply_hunks(p.before.content, both)};
      }
      rejected.push_back(std::move(r));
    }
    if (state != tui::FileState::Accepted && !(partial && taken > 0)) {
      continue;
    }
    if (patches.accepted) {
      gitbridge::FilePair a = p;
      a.after = target;
      accepted.push_back(std::move(a));
    }
    // The rules of `ws apply` (landing.hpp), on what the person accepted.
    LandingResult r;
    if (c.kind == fuse::ChangeKind::Deleted) {
      auto real = reader.real(c.path);
      if (real.exists && !(base_exact && same_blob(real.side, p.before))) {
        r.how = LandingResult::How::Conflict;
        r.conflict =
            "you changed " + quote_path(c.path) + " in the real tree; the agent deleted it";
      } else if (real.exists) {
        r.landings.push_back(Landing{c.path, {}, 0});
      }
    } else if (c.kind == fuse::ChangeKind::Renamed) {
      auto dest = reader.real(c.path);
      r.symlink_above = dest.symlink_above;
      if (dest.exists && !same_blob(dest.side, target)) {
        r.how = LandingResult::How::Conflict;
        r.conflict = quote_path(c.path) + " exists in the real tree now";
      } else {
        land_content(r, c.path, p.before, base_exact, target, reader.real(c.from), c.from);
        r.landings.push_back(Landing{c.from, {}, 0});
      }
    } else {
      auto real = reader.real(c.path);
      r.symlink_above = real.symlink_above;
      if (c.kind == fuse::ChangeKind::TypeChanged && c.base && S_ISDIR(c.base->mode)) {
        // A file where a directory stood: its files are deletions of this same landing.
        r.landings.push_back(Landing{c.path, target, landing_perm({}, target.mode)});
      } else {
        land_content(r, c.path, p.before, base_exact, target, real, c.path);
      }
    }
    std::string line = std::string(1, f.status) + "  " + display_path(c);
    if (partial) {
      line += "  (" + std::to_string(taken) + " of " + std::to_string(f.hunks.size()) +
              " hunks; the rest stays in the workspace)";
    }
    taken_files.push_back({std::move(r), fi, std::move(line), partial});
  }
  std::vector<LandingResult*> results;
  for (Taken& t : taken_files) {
    results.push_back(&t.result);
  }
  refuse_writes_through_symlinks(results);
  for (Taken& t : taken_files) {
    if (t.result.how == LandingResult::How::Conflict) {
      out.conflicts.push_back(std::move(t.result));
      continue;
    }
    const fuse::Change& c = src.items.at(model.files()[t.file].source).change.change;
    out.landings.insert(out.landings.end(), t.result.landings.begin(), t.result.landings.end());
    if (t.partial) {
      out.rebase.push_back(c.path);
    } else {
      out.drop.push_back(c.path);
      if (c.kind == fuse::ChangeKind::Renamed) {
        out.drop.push_back(c.from);
      }
    }
    out.summary.push_back(std::move(t.line));
    out.summary_files.push_back(t.file);
  }
  if (patches.accepted) {
    out.accepted_patch = gitbridge::build_patch(accepted).text;
  }
  if (patches.rejected) {
    out.rejected_patch = gitbridge::build_patch(rejected).text;
  }
  return out;
}

} // namespace ws
