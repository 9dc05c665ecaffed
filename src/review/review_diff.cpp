// A file's diff for the review, made when it is shown: notes for what a text diff cannot
// show, hunks from libgit2 (gitbridge/hunks.hpp), and a withheld file that is binary or
// large described from a probe rather than read.
#include "src/review/review_diff.hpp"

#include "gitbridge/content_id.hpp"
#include "gitbridge/hunks.hpp"
#include "src/cli/text.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstring>

namespace ws {

namespace {

using gitbridge::BlobSide;
using gitbridge::GitMode;

/// The note a file the agent changed since the review opened gets instead of its diff.
constexpr const char* k_changed_note =
    "the agent changed this file after the review opened: finishing will offer to reload";

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
/// deleted) is every line of it: no diff is run.
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

/// A withheld file that is binary or large, described from a probe and never read: it
/// lands only if the person takes it, and then as it is when they finish.
tui::FileDiff described(const fuse::Change& c, const FileProbe& p) {
  tui::FileDiff d;
  if (c.kind == fuse::ChangeKind::Added || !c.base) {
    d.notes.push_back("new file, mode " + mode_text(git_mode(c.mode)));
  } else if (c.base->size != p.size || c.kind != fuse::ChangeKind::Modified) {
    d.notes.push_back("was " + size_text(c.base->size));
  }
  d.notes.push_back((p.binary ? "binary file, " : "text file, ") + size_text(p.size) +
                    ": not shown" +
                    (p.binary ? ""
                              : " (withheld files over " + size_text(k_review_diff_limit) +
                                    " are described, not diffed)"));
  d.notes.push_back("taking it lands the whole file as it is when you finish");
  return d;
}

} // namespace

gitbridge::FilePair read_pair(const ContentReader& reader, const UpperFiles& upper,
                              const ReviewItem& item, bool& base_exact) {
  const fuse::Change& c = item.change.change;
  gitbridge::FilePair pair;
  pair.new_path = c.path;
  pair.old_path = c.kind == fuse::ChangeKind::Renamed ? c.from : c.path;
  pair.before = reader.base(c, base_exact);
  if (c.kind != fuse::ChangeKind::Deleted) {
    pair.after = upper.read_checked(c.path, item.upper);
  }
  return pair;
}

std::string content_check(const gitbridge::FilePair& p) {
  return gitbridge::sha256_hex(mode_text(p.before.mode) + p.before.content) +
         gitbridge::sha256_hex(mode_text(p.after.mode) + p.after.content);
}

ReviewDiffs::ReviewDiffs(const Workspace& w, const ReviewSource& src)
    : m_src(src), m_reader(w, src.source), m_upper(src.source) {}

tui::FileDiff ReviewDiffs::diff(const tui::FileEntry& file) {
  const ReviewItem& item = m_src.items.at(file.source);
  const fuse::Change& c = item.change.change;
  tui::FileDiff d;
  if (!item.may_land) {
    d.notes.push_back(file.group == tui::Group::Blocked ? "content not shown: it can never land"
                                                        : "content not shown: git cannot hold it");
    return d;
  }
  try {
    // A withheld file lands only if the person takes it: one that cannot be diffed usefully
    // (binary, or large) is described from a probe and never read here.
    if (!item.change.transfers() && c.kind != fuse::ChangeKind::Deleted && S_ISREG(c.mode)) {
      std::optional<FileProbe> probe = m_upper.probe(c.path);
      if (!probe || probe->identity != item.upper) {
        d.notes.push_back(k_changed_note);
        d.shown = "changed";
        return d;
      }
      if (probe->binary || probe->size > k_review_diff_limit) {
        return described(c, *probe);
      }
    }
    bool exact = true;
    gitbridge::FilePair p = read_pair(m_reader, m_upper, item, exact);
    d.shown = content_check(p);
    bool symlink = p.before.mode == GitMode::Symlink || p.after.mode == GitMode::Symlink;
    std::optional<std::vector<gitbridge::TextHunk>> hunks;
    if (!symlink) {
      hunks = hunks_for(p);
    }
    d.notes = notes_for(p, !symlink && !hunks);
    if (hunks) {
      for (const auto& t : *hunks) {
        tui::Hunk h;
        h.old_begin = t.old_begin;
        h.new_begin = t.new_begin;
        for (const auto& l : t.lines) {
          h.lines.push_back({static_cast<tui::Line::Kind>(l.origin), l.text});
        }
        d.hunks.push_back(std::move(h));
      }
    }
    // Hunk by hunk only where the result is still the same kind of file: a text file
    // changed in place, mode kept. Added, deleted, renamed and re-typed files land whole.
    d.hunk_level = c.kind == fuse::ChangeKind::Modified && hunks && !d.hunks.empty() &&
                   p.before.mode == p.after.mode &&
                   (p.after.mode == GitMode::File || p.after.mode == GitMode::Executable);
  } catch (const std::exception& e) {
    // Gone or rewritten since the review opened: the review's id no longer holds.
    d = {};
    d.notes.push_back(k_changed_note);
    d.notes.push_back(e.what());
    d.shown = "changed";
  }
  return d;
}

} // namespace ws
