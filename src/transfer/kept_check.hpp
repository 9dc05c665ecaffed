#pragma once

#include "src/cli/commands.hpp"
#include "src/transfer/apply_outcome.hpp"
#include "src/transfer/diff_result.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ws {

/// What `ws apply --check` decided without reading what it need not read.
struct KeptCheck {
  DiffResult result; ///< the plan, and the patch's id and manifest (no text, no pairs)
  std::vector<Outcome> outcomes;
};

/// `ws apply --check` of the live workspace from what an earlier `ws diff` or `ws apply
/// --check` kept (patch_cache.hpp): the plan of now (plan_cache.hpp) and the id and manifest
/// kept then, brought up to date with the names the daemon's change record lists since
/// (patch_update.hpp: only the changes there are read and hashed again), instead of reading
/// and hashing every file. A new file landing where the real tree has nothing (looked at now) lands
/// as it is: its landing is decided from its size and mode alone (Landing::unread_size); every
/// other change is read and decided as `ws apply` does. nullopt whenever any of it cannot be
/// vouched for (no daemon, too much changed since, no kept manifest, WS_PLAN_CACHE=0): then the
/// check reads everything. `paths` and `include` as given on the command line. Only for `--check`:
/// a landing reads every byte it writes.
std::optional<KeptCheck> check_from_kept(const Context& ctx, const Workspace& w,
                                         const std::vector<std::string>& paths,
                                         const std::vector<std::string>& include);

} // namespace ws
