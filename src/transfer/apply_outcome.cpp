// What `ws apply` decides for one change (see apply_outcome.hpp).
#include "src/transfer/apply_outcome.hpp"

#include "src/cli/text.hpp"

#include <sys/stat.h>

#include <string>

namespace ws {

using gitbridge::BlobSide;

Outcome decide_change(const PlannedChange& p, const gitbridge::FilePair& pair, bool base_exact,
                      const ContentReader& reader, const LandedVersions* landed,
                      const RealAfter* real_after) {
  auto real_of = [&](const std::string& path) {
    if (real_after) {
      if (auto it = real_after->find(path); it != real_after->end()) {
        return it->second;
      }
    }
    return reader.real(path);
  };
  Outcome out;
  out.change = &p;
  const fuse::Change& c = p.change;
  bool exact = base_exact;
  BlobSide& base = out.base;
  base = pair.before;
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
    auto real = real_of(c.path);
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
    auto source = real_of(c.from);
    auto target = real_of(c.path);
    out.symlink_above = target.symlink_above;
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
    land_content(out, c.path, base, exact, agents, source, c.from,
                 ContentReader::why_base_unknown(c));
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
    auto real = real_of(c.path);
    out.symlink_above = real.symlink_above;
    landed_base(c.path, real);
    if (c.kind == fuse::ChangeKind::TypeChanged && c.base && S_ISDIR(c.base->mode) && real.exists &&
        S_ISDIR(real.mode)) {
      // A file where a directory stood: the directory's files are deletions of this same
      // apply. If the person put anything else in it, landing fails and nothing changes.
      out.landings.push_back(write_landing(c.path, agents, {}));
      return out;
    }
    land_content(out, c.path, base, exact, agents, real, c.path,
                 ContentReader::why_base_unknown(c));
    return out;
  }
  }
}

std::vector<LandingResult*> landing_results(std::vector<Outcome>& outcomes) {
  std::vector<LandingResult*> out;
  out.reserve(outcomes.size());
  for (Outcome& o : outcomes) {
    out.push_back(&o);
  }
  return out;
}

} // namespace ws
