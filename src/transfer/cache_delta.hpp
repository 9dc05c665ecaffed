#pragma once

// A cache's new bytes as the few places where they differ from the bytes kept before (the
// base): after one edit among 200,000 files, a cache of tens of MB differs in a few dozen
// bytes (the token, one entry), and only those need writing (cache_codec.hpp, docs/
// transfer.md "The plan cache"). Pure: no I/O.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ws {

/// Replace `old_size` bytes of the base at `at` by `bytes`; what lies between edits is the
/// base's.
struct ByteEdit {
  uint64_t at = 0;
  uint64_t old_size = 0;
  std::string bytes;
};

/// Edits that make `now` from `base`, in increasing `at`, not overlapping; nullopt when
/// finding them would cost more than rewriting (the new bytes of the edits, with 24 bytes
/// for each edit, pass `budget`; more than 1,024 edits; or differences not of a shape it looks
/// for: replacements, insertions and deletions with at least 32 equal bytes between them). Any
/// answer is exact: apply_byte_edits of it gives `now`, byte for byte (the caller checks that
/// anyway, by a digest).
std::optional<std::vector<ByteEdit>> byte_edits(std::string_view base, std::string_view now,
                                                size_t budget);

/// `base` with `edits` applied into `out` (sized `size`); false when the edits do not fit
/// `base` or do not make exactly `size` bytes.
bool apply_byte_edits(std::string_view base, const std::vector<ByteEdit>& edits, size_t size,
                      char* out);

} // namespace ws
