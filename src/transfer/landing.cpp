// Landing one path in the real tree: the per-file 3-way rules of `ws apply` and `ws review`.
#include "src/transfer/landing.hpp"

#include "gitbridge/index_stage.hpp"
#include "src/cli/error.hpp"
#include "src/cli/text.hpp"

#include <sys/stat.h>

#include <set>

namespace ws {

using gitbridge::BlobSide;
using gitbridge::GitMode;

bool same_blob(const BlobSide& a, const BlobSide& b) {
  return a.mode == b.mode && a.content == b.content;
}

mode_t landing_perm(const ContentReader::RealObject& real, GitMode mode) {
  // Read once (umask can only be read by setting it): a landing of 200,000 files asks
  // 200,000 times.
  static const mode_t mask = [] {
    mode_t m = ::umask(0);
    ::umask(m);
    return m;
  }();
  mode_t perm = real.exists && S_ISREG(real.mode) ? (real.mode & 0777) : (0666 & ~mask);
  if (mode == GitMode::Executable) {
    perm |= (perm & 0444) >> 2; // x wherever r
  } else {
    perm &= ~0111u;
  }
  return perm;
}

Landing write_landing(const std::string& path, const BlobSide& content,
                      const ContentReader::RealObject& real) {
  return Landing{path, content, landing_perm(real, content.mode)};
}

void land_content(LandingResult& out, const std::string& path, const BlobSide& base,
                  bool base_exact, const BlobSide& agents, const ContentReader::RealObject& real,
                  const std::string& real_path, const std::string& unknown_why) {
  if (!real.exists) {
    if (base.present()) {
      out.how = LandingResult::How::Conflict;
      out.conflict =
          "you deleted " + quote_path(real_path) + " in the real tree; the agent changed it";
      return;
    }
    out.landings.push_back(write_landing(path, agents, real));
    return;
  }
  if (S_ISDIR(real.mode)) {
    out.how = LandingResult::How::Conflict;
    out.conflict = quote_path(real_path) + " is a directory in the real tree now";
    return;
  }
  if (path == real_path && same_blob(real.side, agents)) {
    out.how = LandingResult::How::AlreadyThere;
    out.landings.push_back(write_landing(path, agents, real));
    return;
  }
  if (base_exact && same_blob(real.side, base)) {
    out.landings.push_back(write_landing(path, agents, real));
    return;
  }
  if (!base.present()) {
    out.how = LandingResult::How::Conflict;
    out.conflict = "both added: the real tree has a different " + quote_path(real_path);
    return;
  }
  if (!base_exact) {
    out.how = LandingResult::How::Conflict;
    out.conflict = "you changed " + quote_path(real_path) +
                   " and the version the agent started from was not kept: " + unknown_why;
    return;
  }
  if (base.mode == GitMode::Symlink || agents.mode == GitMode::Symlink ||
      real.side.mode == GitMode::Symlink) {
    out.how = LandingResult::How::Conflict;
    out.conflict = "you and the agent both changed the symlink " + quote_path(real_path);
    return;
  }
  gitbridge::MergeResult m =
      gitbridge::merge_file(base.content, real.side.content, agents.content, path);
  if (!m.clean) {
    out.how = LandingResult::How::Conflict;
    out.conflict = m.conflicts.empty()
                       ? "you and the agent both changed the binary file " + quote_path(real_path)
                       : "you and the agent changed the same lines of " + quote_path(real_path);
    out.hunks = std::move(m.conflicts);
    out.markers = std::move(m.content);
    return;
  }
  // The agent's mode change wins only if it made one; otherwise the person's mode stays.
  BlobSide merged{agents.mode != base.mode ? agents.mode : real.side.mode, std::move(m.content)};
  out.how = LandingResult::How::Merged;
  out.landings.push_back(write_landing(path, merged, real));
}

void refuse_writes_through_symlinks(const std::vector<LandingResult*>& results) {
  std::set<std::string> deleted;
  for (const LandingResult* r : results) {
    if (r->how == LandingResult::How::Conflict) {
      continue;
    }
    for (const Landing& l : r->landings) {
      if (!l.content.present()) {
        deleted.insert(l.path);
      }
    }
  }
  for (LandingResult* r : results) {
    if (r->how == LandingResult::How::Conflict || r->symlink_above.empty() ||
        deleted.count(r->symlink_above) > 0) {
      continue;
    }
    r->how = LandingResult::How::Conflict;
    r->landings.clear();
    r->hunks.clear();
    r->markers.clear();
    r->conflict = quote_path(r->symlink_above) +
                  " is a symlink in the real tree, and this apply does not delete it: "
                  "nothing is written through it";
  }
}

std::vector<gitbridge::StagedPath> index_changes(const std::filesystem::path& worktree,
                                                 const std::vector<IndexChange>& changes) {
  std::vector<std::string> paths;
  for (const auto& c : changes) {
    paths.push_back(c.old_path);
    paths.push_back(c.path);
  }
  std::vector<std::optional<BlobSide>> index = gitbridge::index_entries(worktree, paths);
  std::vector<gitbridge::StagedPath> out;
  std::vector<std::string> conflicts;
  for (size_t i = 0; i < changes.size(); ++i) {
    const IndexChange& c = changes[i];
    const std::optional<BlobSide>& before = index[2 * i]; // the person's, at the old path
    if (!c.agents.present()) {
      if (before && c.base.present() && !same_blob(*before, c.base)) {
        conflicts.push_back(quote_path(c.path) + ": you staged changes; the agent deleted it");
      } else if (before) {
        out.push_back({c.path, {}, true});
      }
      continue;
    }
    BlobSide staged;
    if (!before || same_blob(*before, c.base) || same_blob(*before, c.agents)) {
      staged = c.agents; // the person staged nothing of their own here
    } else if (!c.base.present()) {
      conflicts.push_back(quote_path(c.path) + ": you staged a different new file");
      continue;
    } else {
      gitbridge::MergeResult m =
          gitbridge::merge_file(c.base.content, before->content, c.agents.content, c.path);
      if (!m.clean || c.base.mode == GitMode::Symlink || c.agents.mode == GitMode::Symlink) {
        conflicts.push_back(quote_path(c.path) +
                            ": your staged version conflicts with the agent's change");
        continue;
      }
      staged = BlobSide{c.agents.mode != c.base.mode ? c.agents.mode : before->mode,
                        std::move(m.content)};
    }
    bool matches = false;
    for (const auto& l : c.landings) {
      if (l.path == c.path) {
        matches = same_blob(l.content, staged);
      }
    }
    out.push_back({c.path, std::move(staged), matches});
    if (c.old_path != c.path && index[2 * i]) {
      out.push_back({c.old_path, {}, true});
    }
  }
  if (!conflicts.empty()) {
    std::string list;
    for (const auto& c : conflicts) {
      list += "\n  " + c;
    }
    throw Error("cannot stage only the agent's changes; nothing was applied:" + list,
                "commit or unstage your staged changes to these files (git restore --staged), "
                "or apply without --index");
  }
  return out;
}

void stage_landings(const std::filesystem::path& worktree, const std::vector<Landing>& landed) {
  std::vector<gitbridge::StagedPath> staged;
  for (const auto& l : landed) {
    staged.push_back({l.path, l.content, true});
  }
  stage_landings(worktree, staged);
}

void stage_landings(const std::filesystem::path& worktree,
                    const std::vector<gitbridge::StagedPath>& staged) {
  try {
    gitbridge::stage_paths(worktree, staged);
  } catch (const std::exception& e) {
    throw Error(std::string("the changes are in the real tree, but staging them failed: ") +
                    e.what(),
                "stage them yourself with 'git add'");
  }
}

} // namespace ws
