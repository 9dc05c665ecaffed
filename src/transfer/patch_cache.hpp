#pragma once

#include "gitbridge/patch.hpp"
#include "src/transfer/cache_codec.hpp"
#include "src/transfer/transfer_plan.hpp"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ws {

/// The last patch `ws diff` built of the live workspace, kept in the workspace's state like
/// the plan (plan_cache.hpp), under the token of the daemon's change record the plan and
/// the content it was built from were valid at, and a key (the plan's inputs and the diff's
/// options). When nothing changed since that token, it is the patch of now: `ws diff` then
/// prints it without reading a file (docs/transfer.md, "The plan cache").
struct CachedPatch {
  std::string token;
  std::string key;
  gitbridge::Patch patch; ///< all but the text, which is `text`
  /// The text, mapped from its own file (`<file>.text`) and its delta, in pieces: tens of MB
  /// not copied in or out. Lives as long as `text_bytes`.
  Pieces text;
  std::shared_ptr<const CachePieces> text_bytes;
};

/// A patch text in pieces (pieces of a kept text and of fresh files' text), with what holds
/// their bytes: `ws diff` writes it out as it is, never put together.
struct PatchText {
  Pieces pieces;
  std::shared_ptr<const CachePieces> kept;  ///< the kept text's mapping, when pieces are of it
  std::shared_ptr<const std::string> fresh; ///< fresh files' text, when pieces are of it
};

/// Where the id and manifest of the last patch are kept (by `ws diff` beside its patch-cache,
/// by `ws apply --check`), and what its key says was built.
inline constexpr const char* k_manifest_cache = "manifest-cache";
inline constexpr const char* k_manifest_key = "manifest";

/// The key a patch is kept under besides the token: the plan's other inputs (plan_inputs.hpp),
/// what was built (`what`: the parts of `ws diff`'s patch, or "manifest" for the id and
/// manifest alone), the pathspecs and the includes.
std::string patch_cache_key(const std::string& inputs, const std::string& what,
                            const std::vector<std::string>& paths,
                            const std::vector<std::string>& include);

std::optional<CachedPatch> load_patch_cache(const std::filesystem::path& file);
/// What of a patch one cache file keeps: `ws diff`'s text, stat and files (the id too), or the
/// id and manifest (k_manifest_cache: `ws apply --check` reads them without the text).
enum class PatchPart { Text, Manifest };
/// With `text` (PatchPart::Text), the text kept is that one, not the patch's string; its delta
/// found from where its pieces lie in the kept text it was spliced from (write_cache_pieces).
void save_patch_cache(const std::filesystem::path& file, const std::string& token,
                      const std::string& key, const gitbridge::Patch& patch, PatchPart part,
                      const PatchText* text = nullptr);

} // namespace ws
