#pragma once

#include "gitbridge/patch.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace ws::gitbridge {

/// SHA-256 of `bytes`, as 64 lowercase hex digits.
std::string sha256_hex(std::string_view bytes);

/// Each pair's entry, in order. An entry covers both paths, both modes and both contents
/// (the base matters: it decides the 3-way merge), length-prefixed so no two different
/// pairs encode alike.
std::vector<ManifestEntry> manifest(const std::vector<FilePair>& pairs);

/// The identity of a whole change: SHA-256 over its manifest entries in order. Two changes
/// with the same id land the same bytes at the same paths; the agent cannot find a second
/// change with a chosen id (as it could with a short or non-cryptographic hash).
std::string change_id(const std::vector<ManifestEntry>& entries);

} // namespace ws::gitbridge
