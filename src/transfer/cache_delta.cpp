// Byte edits between a cache's base and its new bytes (cache_delta.hpp).
#include "src/transfer/cache_delta.hpp"

#include <algorithm>
#include <cstring>
#include <functional>

namespace ws {

namespace {

/// Equal bytes that count as back in step after a difference.
constexpr size_t k_anchor = 32;
/// How far ahead each way of finding the step again looks.
constexpr size_t k_small = 48;     ///< both sides, every pair of offsets
constexpr size_t k_same = 512;     ///< a replacement of equal size
constexpr size_t k_shifted = 8192; ///< the one size difference that puts the tails in step
constexpr size_t k_search = 1 << 18;
/// More edits than this: a base of its own costs less than finding them (each search for the
/// next equal bytes may look through a few hundred KB).
constexpr size_t k_max_edits = 1024;

size_t common_prefix(const char* a, const char* b, size_t n) {
  size_t i = 0;
  // Whole blocks first (memcmp stops at the first difference of a block).
  constexpr size_t k_block = 4096;
  while (i + k_block <= n && std::memcmp(a + i, b + i, k_block) == 0) {
    i += k_block;
  }
  while (i < n && a[i] == b[i]) {
    ++i;
  }
  return i;
}

struct Step {
  size_t i, j; // back in step at base[i], now[j]
};

/// Where `base` (from `i`) and `now` (from `j`), which differ at once, are in step again:
/// the pair of offsets with the fewest bytes between, among the shapes looked for.
std::optional<Step> find_step(std::string_view base, std::string_view now, size_t i, size_t j) {
  const size_t n = base.size(), m = now.size();
  auto equal_at = [&](size_t a, size_t b) {
    return a <= n && b <= m && a >= i && b >= j &&
           ((a + k_anchor <= n && b + k_anchor <= m &&
             std::memcmp(base.data() + a, now.data() + b, k_anchor) == 0) ||
            (n - a == m - b && n - a < k_anchor &&
             std::memcmp(base.data() + a, now.data() + b, n - a) == 0));
  };
  std::optional<Step> best;
  auto offer = [&](size_t a, size_t b) {
    if (!best || (a - i) + (b - j) < (best->i - i) + (best->j - j)) {
      best = Step{a, b};
    }
  };
  // The tails, when what is left is short.
  if (n - i < k_anchor && m - j < k_anchor) {
    return Step{n, m};
  }
  // A small replacement of any sizes (a token, a count, a size).
  for (size_t d = 1; d < 2 * k_small && !best; ++d) {
    for (size_t a = 0; a <= d; ++a) {
      if (a < k_small && d - a < k_small && equal_at(i + a, j + d - a)) {
        offer(i + a, j + d - a);
        break;
      }
    }
  }
  if (best) {
    return best;
  }
  // A replacement of equal size.
  for (size_t k = k_small; k < k_same; ++k) {
    if (equal_at(i + k, j + k)) {
      offer(i + k, j + k);
      break;
    }
  }
  // The size difference that brings the ends in step.
  const int64_t shift = static_cast<int64_t>(m - j) - static_cast<int64_t>(n - i);
  for (size_t k = 0; k < k_shifted; ++k) {
    const int64_t b = static_cast<int64_t>(j + k) + shift;
    if (b >= static_cast<int64_t>(j) && equal_at(i + k, static_cast<size_t>(b))) {
      offer(i + k, static_cast<size_t>(b));
      break;
    }
  }
  // An insertion (the base's next bytes further on in `now`), or a deletion.
  if (n - i >= k_anchor) {
    const size_t window = std::min(m - j, k_search);
    const char* end = now.data() + j + window;
    auto it = std::search(
        now.data() + j, end,
        std::boyer_moore_horspool_searcher(base.data() + i, base.data() + i + k_anchor));
    if (it != end) {
      offer(i, static_cast<size_t>(it - now.data()));
    }
  }
  if (m - j >= k_anchor) {
    const size_t window = std::min(n - i, k_search);
    const char* end = base.data() + i + window;
    auto it =
        std::search(base.data() + i, end,
                    std::boyer_moore_horspool_searcher(now.data() + j, now.data() + j + k_anchor));
    if (it != end) {
      offer(static_cast<size_t>(it - base.data()), j);
    }
  }
  return best;
}

} // namespace

std::optional<std::vector<ByteEdit>> byte_edits(std::string_view base, std::string_view now,
                                                size_t budget) {
  std::vector<ByteEdit> edits;
  size_t spent = 0;
  size_t i = 0, j = 0;
  const size_t n = base.size(), m = now.size();
  for (;;) {
    const size_t same = common_prefix(base.data() + i, now.data() + j, std::min(n - i, m - j));
    i += same;
    j += same;
    if (i == n && j == m) {
      return edits;
    }
    std::optional<Step> step;
    if (i == n || j == m) {
      step = Step{n, m}; // the rest is inserted, or removed
    } else {
      step = find_step(base, now, i, j);
    }
    if (!step) {
      return std::nullopt;
    }
    spent += (step->j - j) + 2 * sizeof(uint64_t) + sizeof(uint64_t);
    if (spent > budget || edits.size() >= k_max_edits) {
      return std::nullopt;
    }
    edits.push_back(ByteEdit{i, step->i - i, std::string(now.substr(j, step->j - j))});
    i = step->i;
    j = step->j;
  }
}

bool apply_byte_edits(std::string_view base, const std::vector<ByteEdit>& edits, size_t size,
                      char* out) {
  size_t from = 0; // in base
  size_t put = 0;  // in out
  auto copy = [&](const char* p, size_t len) {
    if (len > size - put) {
      return false;
    }
    std::memcpy(out + put, p, len);
    put += len;
    return true;
  };
  for (const ByteEdit& e : edits) {
    if (e.at < from || e.at > base.size() || e.old_size > base.size() - e.at) {
      return false;
    }
    if (!copy(base.data() + from, e.at - from) || !copy(e.bytes.data(), e.bytes.size())) {
      return false;
    }
    from = e.at + e.old_size;
  }
  return copy(base.data() + from, base.size() - from) && put == size;
}

} // namespace ws
