#pragma once

// The patch of a file that only one side has (added or deleted), formatted directly: the
// same bytes libgit2 prints for it, at a fraction of the cost (no object database, no tree,
// no diff machinery per file). An agent's 200,000 new files are 200,000 of these. Internal to
// gitbridge; tests compare it with libgit2's output (PatchEngine::LibGit2).

#include "gitbridge/patch.hpp"

#include <string>

namespace ws::gitbridge {

/// True when `pair` is one whose patch one_sided_patch formats as libgit2 would: added or
/// deleted (nothing on the other side), a file or symlink whose content libgit2 takes for
/// text for sure, under a name git prints without quoting.
bool formats_one_sided(const FilePair& pair);

/// The patch text of such a pair; `lines` gets how many lines it adds (or deletes).
std::string one_sided_patch(const FilePair& pair, size_t& lines);

} // namespace ws::gitbridge
