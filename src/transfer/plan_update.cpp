// Bringing a kept plan up to date with the names the daemon lists (plan_update.hpp).
#include "src/transfer/plan_update.hpp"

#include "fuse/changes.hpp"
#include "fuse/meta_store.hpp"
#include "fuse/unique_fd.hpp"
#include "gitbridge/real_repo.hpp"
#include "src/transfer/path_cones.hpp"
#include "src/transfer/self_run_configs.hpp"

#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <memory>
#include <string_view>
#include <unordered_set>

namespace ws {

namespace {

using fuse::UniqueFd;

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

/// A name whose presence or content decides other paths' verdicts (see plan_update.hpp).
/// Compared without case: what is left out on a case-folding filesystem is still left out.
bool decides_others(std::string_view path) {
  for (size_t start = 0;;) {
    size_t slash = path.find('/', start);
    std::string_view part =
        path.substr(start, slash == std::string_view::npos ? slash : slash - start);
    if (same_name(part, ".git")) {
      return true;
    }
    if (slash == std::string_view::npos) {
      for (std::string_view special : {".gitignore", ".gitattributes", ".gitmodules", "pyvenv.cfg",
                                       "HEAD", "objects", "refs", "conftest.py"}) {
        if (same_name(part, special)) {
          return true;
        }
      }
      return false;
    }
    start = slash + 1;
  }
}

/// Every path at or below `root` in the upper layer (directories too), into `out`; false
/// when there are more than `limit`. Iterative: directories may nest deeper than a stack.
bool upper_paths(int upper, const std::string& root, std::vector<std::string>& out, size_t limit) {
  return fuse::walk_beneath(upper, root, [&](std::string&& path, bool) {
    out.push_back(std::move(path));
    return out.size() <= limit;
  });
}

bool symlink_involved(const fuse::Change& c) {
  return S_ISLNK(c.mode) || (c.base && S_ISLNK(c.base->mode)) ||
         (c.real_mode && S_ISLNK(*c.real_mode));
}

} // namespace

std::optional<PlanUpdate> plan_update(const Workspace& w, const StateSource& source,
                                      std::vector<PlannedChange>& kept,
                                      const std::vector<std::string>& names, size_t limit) {
  auto full = [](const char* why, std::string_view path = {}) {
    spdlog::debug("plan cache: planned in full: {} {}", why, path);
    return std::nullopt;
  };
  Cones cones(names);
  if (cones.roots().empty() || cones.has_root()) {
    return full("the root changed");
  }
  // A name that decides other paths' verdicts decides those below its own directory: below
  // a listed directory, they are looked at again with it; a listed name itself is another
  // matter (its siblings' cones are not looked at).
  for (const std::string& r : cones.roots()) {
    if (decides_others(r)) {
      return full("decides other paths:", r);
    }
  }
  for (const PlannedChange& p : kept) {
    const fuse::Change& c = p.change;
    if (symlink_involved(c)) {
      return full("a symlink in the plan:", c.path);
    }
    if (c.kind != fuse::ChangeKind::Deleted && is_conftest(c.path)) {
      // What it imports is withheld by what it says (add_view_conftest_imports).
      return full("a conftest.py in the plan:", c.path);
    }
    if (!c.from.empty() && (cones.covers(c.from) || cones.covers(c.path))) {
      return full("a rename in the plan:", c.path);
    }
  }
  // The person's symlinks (the real index's, read in the real tree) give other paths their
  // names: one at or below a listed name may have been retargeted or removed.
  {
    gitbridge::RealRepo repo(w.repo, w.layout.dir / "gitlink-cache");
    for (const std::string& link : repo.symlinks()) {
      if (cones.covers(link)) {
        return full("a symlink of the real index:", link);
      }
    }
  }
  // The paths to look at: everything the upper layer has at or below each name, and the
  // records there and above that hide real files (a whiteout, an opaque directory: their
  // deletions). A rename or copy with a side in a cone pairs with the other side: full plan.
  std::vector<std::string> look;
  UniqueFd upper(::open(source.state.upper().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!upper) {
    return std::nullopt;
  }
  for (const std::string& r : cones.roots()) {
    look.push_back(r);
    if (!upper_paths(upper.get(), r, look, limit)) {
      return full("too many paths below", r);
    }
  }
  {
    fuse::MetaStore meta(source.state.meta_db(), fuse::Db::Mode::ReadOnly);
    std::unordered_set<std::string_view> hiding_above;
    for (const auto& [path, rec] : meta.subtree("")) {
      if (rec.origin_path && *rec.origin_path != path &&
          (cones.covers(path) || cones.covers(*rec.origin_path))) {
        return full("a rename or copy:", path);
      }
      if ((rec.whiteout || rec.opaque) && !cones.covers(path)) {
        for (const std::string& r : cones.roots()) {
          if (fuse::path_within(r, path)) {
            look.push_back(path); // hides real files in the cone: collected, then filtered
          }
        }
      } else if (rec.whiteout || rec.opaque) {
        look.push_back(path);
      }
    }
  }
  std::sort(look.begin(), look.end());
  look.erase(std::unique(look.begin(), look.end()), look.end());
  if (look.size() > limit) {
    return full("too many paths");
  }
  PlanUpdate out;
  out.changes = fuse::compute_changes_at(w.repo, source.state, look);
  std::erase_if(out.changes, [&](const fuse::Change& c) { return !cones.covers(c.path); });
  for (const fuse::Change& c : out.changes) {
    if (!c.from.empty() || c.kind == fuse::ChangeKind::Renamed || symlink_involved(c)) {
      return full("a rename or a symlink:", c.path);
    }
  }
  // The entries outside the names stay, moved down over those at and below them.
  size_t put = 0;
  for (size_t i = 0; i < kept.size(); ++i) {
    PlannedChange& p = kept[i];
    if (cones.covers(p.change.path)) {
      continue;
    }
    if (p.change.kind != fuse::ChangeKind::Deleted && S_ISREG(p.change.mode)) {
      std::string_view path = p.change.path;
      if (path == ".gitignore" ||
          (path.size() > 11 && path.substr(path.size() - 11) == "/.gitignore")) {
        out.context.push_back(p.change);
      }
    }
    if (put != i) {
      kept[put] = std::move(p);
    }
    ++put;
  }
  kept.resize(put);
  return out;
}

void merge_into_by_path(std::vector<PlannedChange>& a, std::vector<PlannedChange> b) {
  if (b.empty()) {
    return;
  }
  size_t i = a.size(), j = b.size(), to = a.size() + b.size();
  a.resize(to);
  // From the end: at equal paths (none are expected) `a`'s entry comes first, as std::merge.
  while (j > 0) {
    if (i > 0 && b[j - 1].change.path < a[i - 1].change.path) {
      a[--to] = std::move(a[--i]);
    } else {
      a[--to] = std::move(b[--j]);
    }
  }
}

} // namespace ws
