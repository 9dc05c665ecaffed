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

/// Each file's offset in a text of `text_size` bytes (one more: the end), or empty when the sizes
/// do not add up or the files are out of order.
std::vector<size_t> offsets(const std::vector<FileStat>& files, size_t text_size) {
  std::vector<size_t> out;
  out.reserve(files.size() + 1);
  size_t at = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    if (i > 0 && order_key(files[i]) < order_key(files[i - 1])) {
      return {};
    }
    out.push_back(at);
    at += files[i].text_size;
    if (at > text_size) {
      return {};
    }
  }
  if (at != text_size) {
    return {};
  }
  out.push_back(at);
  return out;
}

} // namespace

std::optional<Splice> splice_files(size_t kept_size, std::vector<FileStat> kept_files,
                                   const std::vector<bool>& keep, const Patch& fresh) {
  if (keep.size() != kept_files.size()) {
    return std::nullopt;
  }
  const std::vector<size_t> at_kept = offsets(kept_files, kept_size),
                            at_fresh = offsets(fresh.files, fresh.text.size());
  if (at_kept.empty() || at_fresh.empty()) {
    return std::nullopt;
  }
  size_t files = fresh.files.size();
  for (size_t i = 0; i < kept_files.size(); ++i) {
    if (!keep[i] && renamed(kept_files[i])) {
      return std::nullopt;
    }
    files += keep[i] ? 1 : 0;
  }
  for (const FileStat& f : fresh.files) {
    if (renamed(f)) {
      return std::nullopt;
    }
  }
  Splice out;
  out.files.reserve(files);
  // Kept files one after the other are one stretch of the kept text (after one edit among
  // 200,000 files, two stretches, not 200,000).
  auto put = [&](bool from_fresh, size_t at, size_t size) {
    if (size == 0) {
      return;
    }
    out.size += size;
    if (!out.text.empty()) {
      TextRange& last = out.text.back();
      if (last.fresh == from_fresh && last.at + last.size == at) {
        last.size += size;
        return;
      }
    }
    out.text.push_back({from_fresh, at, size});
  };
  auto take_kept = [&](size_t i) {
    put(false, at_kept[i], kept_files[i].text_size);
    out.files.push_back(std::move(kept_files[i]));
  };
  auto take_fresh = [&](size_t j) {
    put(true, at_fresh[j], fresh.files[j].text_size);
    out.files.push_back(fresh.files[j]);
  };
  size_t i = 0, j = 0;
  while (i < kept_files.size() || j < fresh.files.size()) {
    if (i < kept_files.size() && !keep[i]) {
      ++i;
      continue;
    }
    if (j == fresh.files.size()) {
      take_kept(i++);
      continue;
    }
    if (i == kept_files.size()) {
      take_fresh(j++);
      continue;
    }
    const std::string& a = order_key(kept_files[i]);
    const std::string& b = order_key(fresh.files[j]);
    if (a == b) {
      return std::nullopt; // one path in both: build_patch would have formatted them together
    }
    if (a < b) {
      take_kept(i++);
    } else {
      take_fresh(j++);
    }
  }
  return out;
}

std::optional<Patch> splice_patch(std::string_view kept_text, std::vector<FileStat> kept_files,
                                  const std::vector<bool>& keep, const Patch& fresh) {
  std::optional<Splice> s = splice_files(kept_text.size(), std::move(kept_files), keep, fresh);
  if (!s) {
    return std::nullopt;
  }
  Patch out;
  out.text.reserve(s->size);
  for (const TextRange& r : s->text) {
    out.text.append((r.fresh ? std::string_view(fresh.text) : kept_text).substr(r.at, r.size));
  }
  out.files = std::move(s->files);
  return out;
}

} // namespace ws::gitbridge
