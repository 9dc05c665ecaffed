#pragma once

#include "gitbridge/patch.hpp"
#include "src/transfer/patch_cache.hpp"
#include "src/transfer/transfer_plan.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ws {

/// Which kept patch to bring up to date, and under which keys (patch_cache.hpp).
struct KeptPatchRequest {
  const std::vector<std::string>* paths = nullptr;   ///< the command's pathspecs
  const std::vector<std::string>* include = nullptr; ///< its --include
  /// The parts of `ws diff`'s text cache wanted too (its key's `what`); empty: the id and
  /// manifest alone (`ws apply --check`).
  std::string text_what;
  bool stat = false; ///< the text cache holds a stat (kept whole only: never updated)
};

/// The patch of the plan of now, from what earlier commands kept.
struct KeptPatch {
  gitbridge::Patch patch;        ///< id and manifest; the files (and stat) when asked
  PatchText text;                ///< the text, when asked (patch.text stays empty)
  size_t reread = 0;             ///< pairs read again
  bool manifest_changed = false; ///< differs from the kept manifest: keep it again
  bool text_changed = false;     ///< differs from the kept text: keep it again
};

/// The id and manifest (and, when asked, the text and files) of `plan` (the plan of the live
/// workspace of now, made under `valid`), from the manifest `ws diff` or `ws apply --check`
/// kept (manifest-cache) and the text `ws diff` kept (patch-cache), each brought up to date
/// with the names the daemon's change record lists since it was kept: only the transferring
/// changes at or below those names, and those the kept ones lack, are read (their pairs,
/// file_pair); every other entry and file is the kept one (each is a function of its own
/// pair, and nothing at its paths changed since). The id is computed from the entries, as
/// build_patch computes it, so it equals a full computation's. nullopt whenever any of it
/// cannot be vouched for (no daemon, a list too long or "everything", no cache under these
/// keys, a rename among the text files to redo, more than a few thousand pairs to read, a
/// change while reading): then the caller reads everything.
std::optional<KeptPatch> kept_patch(const Workspace& w, const StateSource& source,
                                    const PlanValidity& valid,
                                    const std::vector<PlannedChange>& plan,
                                    const KeptPatchRequest& request);

/// Keeps what kept_patch changed (or a whole patch) under `valid`'s token; the text is
/// `text_pieces` when given (kept_patch's), else the patch's.
void keep_patch(const StateSource& source, const PlanValidity& valid,
                const KeptPatchRequest& request, const gitbridge::Patch& patch, bool manifest,
                bool text, const PatchText* text_pieces = nullptr);

} // namespace ws
