// ws review: the model's plain values from the transfer plan, and the landing of decisions.
#include "src/review/review_session.hpp"

#include "fuse/hash.hpp"
#include "gitbridge/content_id.hpp"
#include "gitbridge/hunks.hpp"
#include "gitbridge/merge.hpp"
#include "src/cli/progress.hpp"
#include "src/cli/text.hpp"
#include "src/transfer/change_content.hpp"
#include "src/transfer/landing.hpp"
#include "src/transfer/transfer_report.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <map>

namespace ws {

namespace {

using gitbridge::BlobSide;
using gitbridge::GitMode;

std::string mode_text(GitMode m) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%06o", static_cast<unsigned>(m));
  return buf;
}

std::string size_text(size_t n) {
  char buf[32];
  if (n < 1024) {
    std::snprintf(buf, sizeof buf, "%zu bytes", n);
  } else if (n < 1024 * 1024) {
    std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(n) / 1024);
  } else if (n < 1024ull * 1024 * 1024) {
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(n) / (1024 * 1024));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(n) / (1024 * 1024 * 1024));
  }
  return buf;
}

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

/// What a person needs to read about changes a text diff cannot show.
std::vector<std::string> notes_for(const gitbridge::FilePair& p, bool binary) {
  std::vector<std::string> notes;
  const BlobSide &b = p.before, &a = p.after;
  if (b.present() && a.present() && b.mode != a.mode) {
    notes.push_back("mode " + mode_text(b.mode) + " -> " + mode_text(a.mode));
  }
  if (!b.present() && a.present() && a.mode != GitMode::Symlink) {
    notes.push_back("new file, mode " + mode_text(a.mode));
  }
  if (b.mode == GitMode::Symlink) {
    notes.push_back("was a symlink to '" + b.content + "'");
  }
  if (a.mode == GitMode::Symlink) {
    notes.push_back("symlink to '" + a.content + "'");
  }
  if (binary) {
    notes.push_back(!b.present()   ? "binary file, " + size_text(a.content.size())
                    : !a.present() ? "binary file deleted (" + size_text(b.content.size()) + ")"
                                   : "binary content: " + size_text(b.content.size()) + " -> " +
                                         size_text(a.content.size()));
  }
  if (!a.present()) {
    notes.push_back("file deleted");
  }
  return notes;
}

/// The hunks of `p` as gitbridge::text_hunks gives them. A file only one side has (added or
/// deleted) is every line of it: no diff is run, so a review of 200,000 new files runs none.
std::optional<std::vector<gitbridge::TextHunk>> hunks_for(const gitbridge::FilePair& p) {
  const std::string &b = p.before.content, &a = p.after.content;
  if (!b.empty() && !a.empty()) {
    return gitbridge::text_hunks(b, a);
  }
  const std::string& text = b.empty() ? a : b;
  if (std::memchr(text.data(), '\0', std::min<size_t>(text.size(), 8000)) != nullptr) {
    return std::nullopt; // binary, as text_hunks decides
  }
  std::vector<gitbridge::TextHunk> out;
  if (!text.empty()) {
    gitbridge::TextHunk h;
    char origin = b.empty() ? '+' : '-';
    for (std::string_view line : tui::split_lines(text)) {
      h.lines.push_back({origin, std::string(line)});
    }
    out.push_back(std::move(h));
  }
  return out;
}

/// What a deferred item's review identity covers: the file as probed, and its base.
std::string deferred_identity(const ReviewItem& item) {
  const fuse::Change& c = item.change.change;
  std::string base;
  if (c.base) {
    base = c.base->hash ? c.base->hash->hex()
                        : std::to_string(c.base->size) + ":" + std::to_string(c.base->ino) + ":" +
                              std::to_string(c.base->mtime_ns);
  }
  return item.deferred->identity + "/" + base;
}

tui::FileEntry entry_for(const ReviewItem& item) {
  const fuse::Change& c = item.change.change;
  tui::FileEntry f;
  f.status = status_letter(c);
  f.path = c.path;
  f.old_path = c.kind == fuse::ChangeKind::Renamed ? c.from : c.path;
  f.group = group_of(item.change.decision.verdict);
  f.reason = item.change.decision.reason;
  f.overridable =
      item.change.decision.overridable() && (item.pair.has_value() || item.deferred.has_value());
  if (item.deferred) {
    // Described, not diffed: nothing of it is read unless the person takes it.
    const FileProbe& p = *item.deferred;
    if (c.kind == fuse::ChangeKind::Added || !c.base) {
      f.notes.push_back("new file, mode " + mode_text(git_mode(c.mode)));
    } else if (c.base->size != p.size || c.kind != fuse::ChangeKind::Modified) {
      f.notes.push_back("was " + size_text(c.base->size));
    }
    f.notes.push_back((p.binary ? "binary file, " : "text file, ") + size_text(p.size) +
                      ": not shown" +
                      (p.binary ? ""
                                : " (withheld files over " + size_text(k_review_diff_limit) +
                                      " are described, not diffed)"));
    f.notes.push_back("taking it lands the whole file as it is when you finish");
    f.identity = deferred_identity(item);
    return f;
  }
  if (!item.pair) {
    f.notes.push_back(f.group == tui::Group::Blocked ? "content not shown: it can never land"
                                                     : "content not shown: git cannot hold it");
    f.identity = std::to_string(c.size) + ":" + std::to_string(c.mode);
    return f;
  }
  const auto& p = *item.pair;
  // SHA-256, as the ids `ws apply --expect` takes: the agent chooses the content.
  f.identity = gitbridge::sha256_hex(mode_text(p.before.mode) + p.before.content) +
               gitbridge::sha256_hex(mode_text(p.after.mode) + p.after.content);
  bool symlink = p.before.mode == GitMode::Symlink || p.after.mode == GitMode::Symlink;
  std::optional<std::vector<gitbridge::TextHunk>> hunks;
  if (!symlink) {
    hunks = hunks_for(p);
  }
  f.notes = notes_for(p, !symlink && !hunks);
  if (hunks) {
    for (const auto& t : *hunks) {
      tui::Hunk h;
      h.old_begin = t.old_begin;
      h.new_begin = t.new_begin;
      for (const auto& l : t.lines) {
        h.lines.push_back({static_cast<tui::Line::Kind>(l.origin), l.text});
        f.added += l.origin == '+' ? 1 : 0;
        f.deleted += l.origin == '-' ? 1 : 0;
      }
      f.hunks.push_back(std::move(h));
    }
  }
  // Hunk by hunk only where the result is still the same kind of file: a text file changed
  // in place, mode kept. Added, deleted, renamed and re-typed files land whole or not.
  f.hunk_level = c.kind == fuse::ChangeKind::Modified && hunks && !f.hunks.empty() &&
                 p.before.mode == p.after.mode &&
                 (p.after.mode == GitMode::File || p.after.mode == GitMode::Executable);
  return f;
}

/// `real_path` (the real tree's object now) should become `target` at `path`, having been
/// `base`: the rules of `ws apply` (src/landing.hpp). Adds the landing, or returns why not.
std::optional<std::string> land_one(std::vector<Landing>& out, const std::string& path,
                                    const BlobSide& base, bool exact, const BlobSide& target,
                                    const ContentReader::RealObject& real,
                                    const std::string& real_path) {
  LandingResult r;
  land_content(r, path, base, exact, target, real, real_path);
  if (r.how == LandingResult::How::Conflict) {
    return r.conflict;
  }
  out.insert(out.end(), r.landings.begin(), r.landings.end());
  return std::nullopt;
}

} // namespace

std::filesystem::path decisions_file(const Workspace& w) {
  return w.layout.dir / "review-decisions";
}

ReviewSource load_review(const Workspace& w, const std::vector<std::string>& paths,
                         Progress* progress) {
  ReviewSource r{live_state(w), {}, {}};
  if (progress) {
    progress->step("finding the changes");
  }
  std::vector<PlannedChange> plan = plan_transfer(w, r.source, {paths, {}});
  ContentReader reader(w, r.source);
  UpperFiles upper(r.source);
  if (progress) {
    progress->step("reading the changed files", plan.size());
  }
  for (auto& p : plan) {
    if (progress) {
      progress->advance();
    }
    ReviewItem item{std::move(p), std::nullopt, true, std::nullopt};
    const fuse::Change& c = item.change.change;
    bool representable = c.kind == fuse::ChangeKind::Deleted || git_mode(c.mode) != GitMode::None;
    bool may_land =
        item.change.transfers() || (item.change.decision.overridable() && representable);
    // A withheld file lands only if the person takes it: one that cannot be diffed usefully
    // (binary, or large) is described from a probe and never read here.
    if (may_land && !item.change.transfers() && c.kind != fuse::ChangeKind::Deleted &&
        S_ISREG(c.mode)) {
      std::optional<FileProbe> probe = upper.probe(c.path);
      if (probe && (probe->binary || probe->size > k_review_diff_limit)) {
        item.deferred = std::move(probe);
      }
    }
    if (may_land && !item.deferred) {
      gitbridge::FilePair pair;
      pair.new_path = c.path;
      pair.old_path = c.kind == fuse::ChangeKind::Renamed ? c.from : c.path;
      pair.before = reader.base(c, item.base_exact);
      if (c.kind != fuse::ChangeKind::Deleted) {
        pair.after = reader.view(c.path);
      }
      item.pair = std::move(pair);
    }
    r.review.files.push_back(entry_for(item));
    r.items.push_back(std::move(item));
  }
  r.review.workspace = w.name;
  // The identity of everything that may land, withheld files included (a file's identity
  // hashes both versions with their modes), and of the verdicts: a file that became flagged
  // is not a file already reviewed. Made from the files' hashes rather than from a patch of
  // everything, which a review of 200,000 files would build three times.
  std::string id;
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
                                  const tui::ReviewModel& model) {
  ReviewLanding out;
  std::map<std::string, const ReviewItem*> by_path;
  for (const auto& i : src.items) {
    by_path[i.change.change.path] = &i;
  }
  ContentReader reader(w, src.source);
  UpperFiles upper(src.source);
  std::vector<gitbridge::FilePair> accepted, rejected;
  for (const auto& f : model.files()) {
    const ReviewItem* item = by_path.at(f.path);
    tui::FileState state = tui::file_state(f);
    const fuse::Change& c = item->change.change;
    bool base_exact = item->base_exact;
    std::optional<gitbridge::FilePair> read_now;
    if (!item->pair && item->deferred && state != tui::FileState::Locked &&
        state != tui::FileState::Undecided) {
      // Taken or rejected after being described only: read it now, and only if it is still
      // the file that was described.
      read_now.emplace();
      read_now->new_path = c.path;
      read_now->old_path = c.kind == fuse::ChangeKind::Renamed ? c.from : c.path;
      read_now->before = reader.base(c, base_exact);
      read_now->after = upper.read_checked(c.path, item->deferred->identity);
    }
    if ((!item->pair && !read_now) || state == tui::FileState::Locked) {
      continue;
    }
    const gitbridge::FilePair& p = item->pair ? *item->pair : *read_now;
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
    if (state == tui::FileState::Rejected || (partial && left > 0)) {
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
    gitbridge::FilePair a = p;
    a.after = target;
    accepted.push_back(a);
    std::optional<std::string> conflict;
    if (c.kind == fuse::ChangeKind::Deleted) {
      auto real = reader.real(c.path);
      if (real.exists && !(base_exact && same_blob(real.side, p.before))) {
        conflict = "you changed " + quote_path(c.path) + " in the real tree; the agent deleted it";
      } else if (real.exists) {
        out.landings.push_back(Landing{c.path, {}, 0});
      }
    } else if (c.kind == fuse::ChangeKind::Renamed) {
      auto dest = reader.real(c.path);
      if (dest.exists && !same_blob(dest.side, target)) {
        conflict = quote_path(c.path) + " exists in the real tree now";
      } else {
        conflict = land_one(out.landings, c.path, p.before, base_exact, target, reader.real(c.from),
                            c.from);
        out.landings.push_back(Landing{c.from, {}, 0});
      }
    } else if (c.kind == fuse::ChangeKind::TypeChanged && c.base && S_ISDIR(c.base->mode)) {
      // A file where a directory stood: its files are deletions of this same landing.
      out.landings.push_back(Landing{c.path, target, landing_perm({}, target.mode)});
    } else {
      conflict =
          land_one(out.landings, c.path, p.before, base_exact, target, reader.real(c.path), c.path);
    }
    if (conflict) {
      out.conflicts.push_back(*conflict);
      continue;
    }
    std::string line = std::string(1, f.status) + "  " + display_path(c);
    if (partial) {
      line += "  (" + std::to_string(taken) + " of " + std::to_string(f.hunks.size()) +
              " hunks; the rest stays in the workspace)";
      out.rebase.push_back(c.path);
    } else {
      out.drop.push_back(c.path);
      if (c.kind == fuse::ChangeKind::Renamed) {
        out.drop.push_back(c.from);
      }
    }
    out.summary.push_back(line);
  }
  out.accepted_patch = gitbridge::build_patch(accepted).text;
  out.rejected_patch = gitbridge::build_patch(rejected).text;
  return out;
}

} // namespace ws
