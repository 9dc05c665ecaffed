// The kept id, manifest and patch text brought up to date by name (patch_update.hpp).
#include "src/transfer/patch_update.hpp"

#include "gitbridge/content_id.hpp"
#include "gitbridge/patch_splice.hpp"
#include "src/transfer/cache_codec.hpp"
#include "src/transfer/change_content.hpp"
#include "src/transfer/patch_cache.hpp"
#include "src/transfer/path_cones.hpp"
#include "src/transfer/plan_cache.hpp"
#include "src/transfer/view_changes.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>

namespace ws {

namespace {

/// How many names the daemon may list since a kept patch (more: read everything), and how
/// many pairs may be read again (more: a full computation costs the same).
constexpr size_t k_names = 4096;
constexpr size_t k_reread = 16384;

constexpr const char* k_text_cache = "patch-cache";

/// What changed since a kept cache's token: the names as cones, and whether none of them
/// touches anything (nothing at all, or only ws's own staging come and gone: the cache is the
/// one of now, as it is).
struct Since {
  Cones cones;
  bool as_is = false;
};

/// nullopt when the daemon cannot list the names.
std::optional<Since> changed_since(const Workspace& w, const StateSource& source,
                                   const std::string& token,
                                   const std::vector<PlannedChange>& plan) {
  std::optional<ViewChanges> since = view_changes_since(w.mountpoint, token, k_names);
  if (!since || since->everything) {
    return std::nullopt;
  }
  bool as_is = since->paths.empty() ||
               only_staging_leftovers(since->paths, w.repo, source.state.upper(), plan);
  return Since{Cones(since->paths), as_is};
}

/// For each of `moving` (sorted by path), whether it is at or below one of the cones: the
/// plan's paths are sorted, so a root's paths are two ranges (the root, then root + "/"...);
/// a rename's old side is asked one by one.
void mark_covered(const std::vector<const PlannedChange*>& moving, const Cones& cones,
                  std::vector<char>& reread) {
  auto path_of = [&](size_t i) -> const std::string& { return moving[i]->change.path; };
  auto lower = [&](std::string_view key) {
    size_t lo = 0, hi = moving.size();
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (std::string_view(path_of(mid)) < key) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  };
  if (cones.has_root()) {
    std::fill(reread.begin(), reread.end(), 1);
    return;
  }
  for (const std::string& root : cones.roots()) {
    size_t i = lower(root);
    if (i < moving.size() && path_of(i) == root) {
      reread[i] = 1;
    }
    const std::string below = root + "/";
    for (i = lower(below); i < moving.size() && path_of(i).starts_with(below); ++i) {
      reread[i] = 1;
    }
  }
  for (size_t i = 0; i < moving.size(); ++i) {
    const std::string& from = moving[i]->change.from;
    if (!from.empty() && cones.covers(from)) {
      reread[i] = 1;
    }
  }
}

const std::string& old_side(const PlannedChange& p) {
  static const std::string none;
  return p.change.kind == fuse::ChangeKind::Renamed ? p.change.from : none;
}

} // namespace

std::optional<KeptPatch> kept_patch(const Workspace& w, const StateSource& source,
                                    const PlanValidity& valid,
                                    const std::vector<PlannedChange>& plan,
                                    const KeptPatchRequest& request) {
  auto none = [](const char* why) {
    spdlog::debug("patch cache: read in full: {}", why);
    return std::nullopt;
  };
  const char* env = std::getenv("WS_PLAN_UPDATE");
  const bool by_name = !(env && std::string_view(env) == "0");
  if (valid.token.empty() || source.checkpoint) {
    return none("no daemon vouches for the plan");
  }
  const bool want_text = !request.text_what.empty();
  std::optional<CachedPatch> ids = load_patch_cache(source.state.dir / k_manifest_cache);
  if (!ids ||
      ids->key != patch_cache_key(valid.inputs, k_manifest_key, *request.paths, *request.include)) {
    return none("no manifest kept for these inputs");
  }
  std::optional<CachedPatch> text;
  if (want_text) {
    text = load_patch_cache(source.state.dir / k_text_cache);
    if (!text || text->key != patch_cache_key(valid.inputs, request.text_what, *request.paths,
                                              *request.include)) {
      return none("no patch kept for these inputs");
    }
  }
  std::optional<Since> ids_since = changed_since(w, source, ids->token, plan);
  std::optional<Since> text_since;
  if (want_text) {
    text_since =
        text->token == ids->token ? ids_since : changed_since(w, source, text->token, plan);
  }
  if (!ids_since || (want_text && !text_since)) {
    return none("the daemon cannot list what changed since");
  }
  if (ids_since->as_is && (!want_text || text_since->as_is)) {
    // Both are of the state of now, as they are (the rule the plan cache follows).
    KeptPatch out;
    out.patch = std::move(ids->patch);
    if (want_text) {
      out.text.pieces = std::move(text->text);
      out.text.kept = std::move(text->text_bytes);
      out.patch.files = std::move(text->patch.files);
      out.patch.stat = std::move(text->patch.stat);
    }
    if (!still_as_at(w, source, valid.token, plan)) {
      return none("changed while read");
    }
    return out;
  }

  if (!by_name) {
    return none("WS_PLAN_UPDATE=0");
  }
  // The transferring changes, in plan order (sorted by path): one entry each.
  std::vector<const PlannedChange*> moving;
  for (const PlannedChange& p : plan) {
    if (p.transfers()) {
      if (!moving.empty() && !(moving.back()->change.path < p.change.path)) {
        return none("the plan is out of order");
      }
      moving.push_back(&p);
    }
  }
  std::vector<char> reread(moving.size(), 0);
  mark_covered(moving, ids_since->cones, reread);
  if (want_text) {
    mark_covered(moving, text_since->cones, reread);
  }

  // The kept entries, matched by path in order (both sorted by path; an entry out of order
  // is only not found, and its change read again).
  std::vector<gitbridge::ManifestEntry>& kept_entries = ids->patch.manifest;
  std::vector<gitbridge::ManifestEntry*> entry(moving.size(), nullptr);
  size_t matched = 0;
  for (size_t t = 0, k = 0; t < moving.size(); ++t) {
    const std::string& path = moving[t]->change.path;
    while (k < kept_entries.size() && kept_entries[k].path < path) {
      ++k;
    }
    if (k < kept_entries.size() && kept_entries[k].path == path &&
        kept_entries[k].from == old_side(*moving[t])) {
      entry[t] = &kept_entries[k];
      ++matched;
    } else {
      reread[t] = 1;
    }
  }

  // The kept text's files, each matched to its change (a change's files name its path; a
  // rename's one file names both sides). Files of a change no longer moving are dropped.
  std::vector<size_t> owner; // per kept file: its change, or SIZE_MAX
  if (want_text) {
    const std::vector<gitbridge::FileStat>& files = text->patch.files;
    owner.assign(files.size(), SIZE_MAX);
    std::vector<unsigned> plain_files(moving.size(), 0), rename_files(moving.size(), 0);
    auto find = [&](const std::string& path) {
      auto it = std::lower_bound(
          moving.begin(), moving.end(), path,
          [](const PlannedChange* p, const std::string& v) { return p->change.path < v; });
      return it != moving.end() && (*it)->change.path == path ? size_t(it - moving.begin())
                                                              : SIZE_MAX;
    };
    for (size_t f = 0, t = 0; f < files.size(); ++f) {
      const gitbridge::FileStat& file = files[f];
      size_t at = SIZE_MAX;
      if (file.old_path != file.path) {
        at = find(file.path);
        if (at != SIZE_MAX && old_side(*moving[at]) != file.old_path) {
          at = SIZE_MAX;
        }
      } else {
        // Non-renames are in path order (their old path is their path): one walk.
        while (t < moving.size() && moving[t]->change.path < file.path) {
          ++t;
        }
        if (t < moving.size() && moving[t]->change.path == file.path) {
          at = t;
        }
      }
      owner[f] = at;
      if (at != SIZE_MAX) {
        ++(file.old_path != file.path ? rename_files : plain_files)[at];
      }
    }
    for (size_t t = 0; t < moving.size(); ++t) {
      if (moving[t]->change.kind == fuse::ChangeKind::Renamed) {
        // A rename is formatted with both its sides (one file, "R"): kept as it was, or the
        // whole patch is made again.
        if (reread[t] || rename_files[t] != 1 || plain_files[t] != 0) {
          return none("a rename to format again");
        }
      } else if (plain_files[t] == 0) {
        reread[t] = 1; // (a pair with no file, e.g. content put back as it was: cheap)
      }
    }
  }

  std::vector<size_t> reading;
  for (size_t t = 0; t < moving.size(); ++t) {
    if (reread[t]) {
      reading.push_back(t);
    }
  }
  if (reading.size() > k_reread) {
    return none("too many changed pairs");
  }
  std::vector<gitbridge::FilePair> pairs;
  pairs.reserve(reading.size());
  try {
    ContentReader reader(w, source);
    for (size_t t : reading) {
      bool exact = true;
      pairs.push_back(file_pair(reader, *moving[t], exact));
    }
  } catch (const std::exception& e) {
    spdlog::debug("patch cache: {}", e.what());
    return none("a changed file could not be read");
  }
  gitbridge::Patch fresh = gitbridge::build_patch(pairs, {.text = want_text, .stat = false});

  KeptPatch out;
  out.reread = reading.size();
  gitbridge::Patch& patch = out.patch;
  patch.manifest.reserve(moving.size());
  for (size_t t = 0, r = 0; t < moving.size(); ++t) {
    if (reread[t]) {
      patch.manifest.push_back(std::move(fresh.manifest[r++]));
    } else {
      patch.manifest.push_back(std::move(*entry[t]));
    }
  }
  out.manifest_changed = !reading.empty() || matched != kept_entries.size();
  patch.id = out.manifest_changed ? gitbridge::change_id(patch.manifest) : std::move(ids->patch.id);
  if (want_text) {
    std::vector<bool> keep(owner.size());
    bool dropped = false;
    for (size_t f = 0; f < owner.size(); ++f) {
      keep[f] = owner[f] != SIZE_MAX && !reread[owner[f]];
      dropped = dropped || !keep[f];
    }
    out.text_changed = dropped || !fresh.files.empty();
    out.text.kept = std::move(text->text_bytes);
    if (!out.text_changed) {
      out.text.pieces = std::move(text->text);
      patch.files = std::move(text->patch.files);
      patch.stat = std::move(text->patch.stat);
    } else if (request.stat) {
      return none("a stat is not updated by name");
    } else {
      // The kept text's stretches and the fresh files' text, as pieces of the two: the text
      // is not put together (tens of MB) but written out, and kept, in pieces.
      std::optional<gitbridge::Splice> spliced =
          gitbridge::splice_files(text->text.size, std::move(text->patch.files), keep, fresh);
      if (!spliced) {
        return none("the files to replace cannot be spliced");
      }
      out.text.fresh = std::make_shared<const std::string>(std::move(fresh.text));
      const std::string_view fresh_text = *out.text.fresh;
      Pieces::Cursor cursor;
      for (const gitbridge::TextRange& r : spliced->text) {
        if (r.fresh) {
          out.text.pieces.append(fresh_text.substr(r.at, r.size));
        } else if (!out.text.pieces.append_slice(text->text, r.at, r.size, cursor)) {
          return none("the kept text does not hold the files to keep");
        }
      }
      if (out.text.pieces.size != spliced->size) {
        return none("the spliced text does not add up");
      }
      patch.files = std::move(spliced->files);
    }
  }
  // Read from a plan made under `valid`: vouched for only if nothing changed since.
  if (!still_as_at(w, source, valid.token, plan)) {
    return none("changed while read");
  }
  return out;
}

void keep_patch(const StateSource& source, const PlanValidity& valid,
                const KeptPatchRequest& request, const gitbridge::Patch& patch, bool manifest,
                bool text, const PatchText* text_pieces) {
  if (valid.token.empty() || source.checkpoint) {
    return;
  }
  if (text && !request.text_what.empty()) {
    save_patch_cache(
        source.state.dir / k_text_cache, valid.token,
        patch_cache_key(valid.inputs, request.text_what, *request.paths, *request.include), patch,
        PatchPart::Text, text_pieces);
  }
  if (manifest) {
    save_patch_cache(
        source.state.dir / k_manifest_cache, valid.token,
        patch_cache_key(valid.inputs, k_manifest_key, *request.paths, *request.include), patch,
        PatchPart::Manifest);
  }
}

} // namespace ws
