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

std::optional<Patch> splice_patch(std::string_view kept_text, std::vector<FileStat> kept_files,
                                  const std::vector<bool>& keep, const Patch& fresh) {
  struct {
    std::string_view text;
    std::vector<FileStat>& files;
  } kept{kept_text, kept_files};
  if (keep.size() != kept.files.size()) {
    return std::nullopt;
  }
  const std::vector<size_t> at_kept = offsets(kept.files, kept.text.size()),
                            at_fresh = offsets(fresh.files, fresh.text.size());
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
  // Kept files one after the other are one stretch of the kept text: copied at once (after
  // one edit among 200,000 files, two copies, not 200,000).
  size_t run_from = 0, run_to = 0;
  auto flush = [&] {
    out.text.append(kept.text.substr(run_from, run_to - run_from));
    run_from = run_to = 0;
  };
  auto take_kept = [&](size_t i) {
    if (run_to != at_kept[i]) {
      flush();
      run_from = run_to = at_kept[i];
    }
    run_to = at_kept[i + 1];
    out.files.push_back(std::move(kept.files[i]));
  };
  auto take_fresh = [&](size_t j) {
    flush();
    out.text.append(std::string_view(fresh.text).substr(at_fresh[j], fresh.files[j].text_size));
    out.files.push_back(fresh.files[j]);
  };
  size_t i = 0, j = 0;
  while (i < kept.files.size() || j < fresh.files.size()) {
    if (i < kept.files.size() && !keep[i]) {
      ++i;
      continue;
    }
    if (j == fresh.files.size()) {
      take_kept(i++);
      continue;
    }
    if (i == kept.files.size()) {
      take_fresh(j++);
      continue;
    }
    const std::string& a = order_key(kept.files[i]);
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
  flush();
  return out;
}

} // namespace ws::gitbridge
