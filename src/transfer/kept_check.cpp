// `ws apply --check` from a kept manifest (kept_check.hpp).
#include "src/transfer/kept_check.hpp"

#include "fuse/changes.hpp"
#include "src/transfer/change_content.hpp"
#include "src/transfer/landed_versions.hpp"
#include "src/transfer/landing.hpp"
#include "src/transfer/patch_update.hpp"

#include <spdlog/spdlog.h>

#include <sys/stat.h>

#include <cerrno>

namespace ws {

std::optional<KeptCheck> check_from_kept(const Context& ctx, const Workspace& w,
                                         const std::vector<std::string>& given_paths,
                                         const std::vector<std::string>& given_include) {
  std::vector<std::string> paths, include;
  for (const std::string& a : given_paths) {
    paths.push_back(ctx.repo_relative(a));
  }
  for (const std::string& a : given_include) {
    include.push_back(ctx.repo_relative(a));
  }
  KeptCheck k{DiffResult{live_state(w), {}, {}, {}, {}, {}}, {}};
  DiffResult& r = k.result;
  PlanValidity valid;
  PlanRequest request{paths, include, std::nullopt, false, &valid};
  r.plan = plan_transfer(w, r.source, request);
  if (valid.token.empty()) {
    return std::nullopt;
  }
  // The kept id and manifest, brought up to date with what changed since (patch_update.hpp).
  KeptPatchRequest kept_request{&paths, &include, "", false};
  std::optional<KeptPatch> kept = kept_patch(w, r.source, valid, r.plan, kept_request);
  if (!kept) {
    spdlog::debug("manifest cache: none for the plan of now");
    return std::nullopt;
  }
  r.patch = std::move(kept->patch);
  if (kept->manifest_changed) {
    keep_patch(r.source, valid, kept_request, r.patch, true, false);
  }
  const std::vector<gitbridge::ManifestEntry>& manifest = r.patch.manifest;
  ContentReader reader(w, r.source);
  fuse::BeneathOpener real(reader.real_root());
  LandedVersions landed(w.layout);
  k.outcomes.reserve(manifest.size());
  size_t at = 0; // one manifest entry per transferring change, in plan order
  for (const PlannedChange& p : r.plan) {
    if (!p.transfers()) {
      continue;
    }
    const fuse::Change& c = p.change;
    const bool renamed = c.kind == fuse::ChangeKind::Renamed;
    if (at >= manifest.size() || manifest[at].path != c.path ||
        manifest[at].from != (renamed ? c.from : std::string())) {
      spdlog::debug("manifest cache: not of this plan");
      return std::nullopt;
    }
    ++at;
    const gitbridge::GitMode mode = git_mode(c.mode);
    struct stat st {};
    if (c.kind == fuse::ChangeKind::Added && c.from.empty() && !c.base &&
        mode != gitbridge::GitMode::None && !real.lstat(c.path, st) && errno == ENOENT) {
      // New, over nothing: landed as it is (land_content), whatever it holds.
      Outcome& out = k.outcomes.emplace_back();
      out.change = &p;
      out.agents.mode = mode;
      Landing& l = out.landings.emplace_back();
      l.path = c.path;
      l.content.mode = mode;
      l.perm = landing_perm({}, mode);
      l.unread_size = c.size;
      continue;
    }
    bool exact = true;
    gitbridge::FilePair pair = file_pair(reader, p, exact);
    k.outcomes.push_back(decide_change(p, pair, exact, reader, &landed));
  }
  if (at != manifest.size() || !still_as_at(w, r.source, valid.token, r.plan)) {
    return std::nullopt; // (changed while the rest was read: check it all again)
  }
  spdlog::debug("manifest cache: {}", kept->manifest_changed
                                          ? "updated for " + std::to_string(kept->reread) + " files"
                                          : std::string("the id of now"));
  return k;
}

} // namespace ws
