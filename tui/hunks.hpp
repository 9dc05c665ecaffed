#pragma once

// Helpers behind the review model's hunks (tui/review_model.hpp declares the types).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ws::tui {

struct Hunk;

/// 64-bit FNV-1a: stable across runs and builds (std::hash is not promised to be), so saved
/// decisions find their hunks again.
uint64_t fnv1a(std::string_view bytes, uint64_t h = 0xcbf29ce484222325ull);
std::string hex64(uint64_t v);

/// `hunk` divided at its context lines into one hunk per run of changes, each keeping the
/// context around it; empty when there is only one run.
std::vector<Hunk> split_hunk(const Hunk& hunk);

} // namespace ws::tui
