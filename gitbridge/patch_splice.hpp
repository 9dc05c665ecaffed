#pragma once

#include "gitbridge/patch.hpp"

#include <optional>
#include <string_view>
#include <vector>

namespace ws::gitbridge {

/// A patch brought up to date file by file: `kept` (build_patch's text and files for some
/// pairs, without stat) less the files `keep` leaves out, with the files of `fresh` (build_patch
/// of other pairs) put in among them. The text and files are those build_patch gives for the
/// kept pairs and the fresh ones together: each file's text depends on its own pair alone,
/// and the files follow one order (libgit2's, by old path). The id, manifest and stat are left
/// empty (the caller has the entries). nullopt when that cannot be vouched for: a rename left
/// out or among the fresh files (its pairing looks at both sides), a path both have, files out
/// of that order, text sizes that do not add up. The kept files are taken (moved out).
/// Where each stretch of a spliced text comes from: the kept text or the fresh one, at `at`.
struct TextRange {
  bool fresh = false;
  size_t at = 0;
  size_t size = 0;
};

/// A splice's text as stretches of the two texts (in order; the kept ones in increasing
/// `at`), and its files: the text need not be put together (a kept text of tens of MB is
/// read in pieces from its cache, and written out in pieces).
struct Splice {
  std::vector<TextRange> text;
  size_t size = 0;
  std::vector<FileStat> files;
};

/// splice_patch's answer, with the text as ranges of a kept text of `kept_size` bytes.
std::optional<Splice> splice_files(size_t kept_size, std::vector<FileStat> kept_files,
                                   const std::vector<bool>& keep, const Patch& fresh);

std::optional<Patch> splice_patch(std::string_view kept_text, std::vector<FileStat> kept_files,
                                  const std::vector<bool>& keep, const Patch& fresh);
inline std::optional<Patch> splice_patch(const Patch& kept, const std::vector<bool>& keep,
                                         const Patch& fresh) {
  return splice_patch(kept.text, kept.files, keep, fresh);
}

} // namespace ws::gitbridge
