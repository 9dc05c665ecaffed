// A kept patch updated file by file (patch_splice.hpp).
#include "gitbridge/patch_splice.hpp"

#include <string_view>

namespace ws::gitbridge {

namespace {

/// Where build_patch puts a file: libgit2's order, by old path (its own files too).
const std::string& order_key(const FileStat& f) {
  return f.old_path;
}

bool renamed(const FileStat& f) {
  return f.status == 'R' || f.old_path != f.path;
}

/// Each file's offset in `p.text` (one more: the end), or empty when the sizes do not add up
/// or the files are out of order.
std::vector<size_t> offsets(const Patch& p) {
  std::vector<size_t> out;
  out.reserve(p.files.size() + 1);
  size_t at = 0;
  for (size_t i = 0; i < p.files.size(); ++i) {
    if (i > 0 && order_key(p.files[i]) < order_key(p.files[i - 1])) {
      return {};
    }
    out.push_back(at);
    at += p.files[i].text_size;
    if (at > p.text.size()) {
      return {};
    }
  }
  if (at != p.text.size()) {
    return {};
  }
  out.push_back(at);
  return out;
}

} // namespace

std::optional<Patch> splice_patch(const Patch& kept, const std::vector<bool>& keep,
                                  const Patch& fresh) {
  if (keep.size() != kept.files.size()) {
    return std::nullopt;
  }
  const std::vector<size_t> at_kept = offsets(kept), at_fresh = offsets(fresh);
  if (at_kept.empty() || at_fresh.empty()) {
    return std::nullopt;
  }
  size_t size = fresh.text.size(), files = fresh.files.size();
  for (size_t i = 0; i < kept.files.size(); ++i) {
    if (!keep[i] && renamed(kept.files[i])) {
      return std::nullopt;
    }
    size += keep[i] ? kept.files[i].text_size : 0;
    files += keep[i] ? 1 : 0;
  }
  for (const FileStat& f : fresh.files) {
    if (renamed(f)) {
      return std::nullopt;
    }
  }
  Patch out;
  out.text.reserve(size);
  out.files.reserve(files);
  auto take = [&](const Patch& from, const std::vector<size_t>& at, size_t i) {
    out.text.append(std::string_view(from.text).substr(at[i], from.files[i].text_size));
    out.files.push_back(from.files[i]);
  };
  size_t i = 0, j = 0;
  while (i < kept.files.size() || j < fresh.files.size()) {
    if (i < kept.files.size() && !keep[i]) {
      ++i;
      continue;
    }
    if (j == fresh.files.size()) {
      take(kept, at_kept, i++);
      continue;
    }
    if (i == kept.files.size()) {
      take(fresh, at_fresh, j++);
      continue;
    }
    const std::string& a = order_key(kept.files[i]);
    const std::string& b = order_key(fresh.files[j]);
    if (a == b) {
      return std::nullopt; // one path in both: build_patch would have formatted them together
    }
    if (a < b) {
      take(kept, at_kept, i++);
    } else {
      take(fresh, at_fresh, j++);
    }
  }
  return out;
}

} // namespace ws::gitbridge
