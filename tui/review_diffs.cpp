// The review's diffs, made when a file is shown and kept in a bounded cache: what is on
// screen, the files whose hunks carry decisions of their own, and a few recent ones.
#include "tui/review_model.hpp"

#include <algorithm>

namespace ws::tui {

namespace {

/// The most diffs and bytes of diff text held beyond those that must stay.
constexpr size_t k_cache_files = 64;
constexpr size_t k_cache_bytes = 16u << 20;

size_t diff_bytes(const FileEntry& f) {
  size_t n = 0;
  for (const auto& h : f.hunks) {
    for (const auto& l : h.lines) {
      n += l.text.size() + sizeof(Line);
    }
  }
  return n;
}

bool uniform_hunks(const FileEntry& f) {
  return std::all_of(f.hunks.begin(), f.hunks.end(),
                     [&](const Hunk& h) { return h.decision == f.hunks.front().decision; });
}

} // namespace

bool ReviewModel::pinned(const FileEntry& f) const {
  // Hunks decided one by one, or split, exist only here: they stay until the review ends.
  if (f.hunk_level && !uniform_hunks(f)) {
    return true;
  }
  return std::any_of(m_splits.begin(), m_splits.end(),
                     [&](const auto& s) { return s.first == f.path; });
}

void ReviewModel::ensure_loaded(size_t index) {
  FileEntry& f = m_review.files[index];
  auto cached = std::find(m_cache.begin(), m_cache.end(), index);
  if (f.diff_loaded) {
    if (cached != m_cache.end()) {
      m_cache.erase(cached); // shown again: the most recent
      m_cache.push_back(index);
    }
    return;
  }
  if (!m_source) {
    return;
  }
  FileDiff d = m_source->diff(f);
  f.notes = std::move(d.notes);
  f.hunks = std::move(d.hunks);
  f.hunk_level = d.hunk_level && !f.hunks.empty();
  f.added = f.deleted = 0;
  for (auto& h : f.hunks) {
    for (const auto& l : h.lines) {
      f.added += l.kind == Line::Kind::Added ? 1 : 0;
      f.deleted += l.kind == Line::Kind::Deleted ? 1 : 0;
    }
    // A decision made on the whole file before its hunks were known holds for each.
    h.decision = f.hunk_level ? f.decision : Decision::Undecided;
  }
  f.counted = true;
  f.diff_loaded = true;
  if (f.shown.empty()) {
    f.shown = d.shown;
  } else if (f.shown != d.shown) {
    // Not what was shown before: what was decided on is gone, so nothing of it may land.
    f.notes.insert(f.notes.begin(),
                   "the agent changed this file after you first saw it: finishing will offer "
                   "to reload");
    f.shown = "changed";
  }
  m_cache.push_back(index);
  m_cache_bytes += diff_bytes(f);
  // Drop the oldest diffs that need not stay, never the selected file's or this one.
  for (size_t k = 0;
       k < m_cache.size() && (m_cache.size() > k_cache_files || m_cache_bytes > k_cache_bytes);) {
    size_t i = m_cache[k];
    FileEntry& old = m_review.files[i];
    if (i == index || (i == m_selected && m_on_fold < 0) || pinned(old)) {
      ++k;
      continue;
    }
    if (old.hunk_level && !old.hunks.empty()) {
      old.decision = old.hunks.front().decision; // uniform, or it would be pinned
    }
    m_cache_bytes -= std::min(m_cache_bytes, diff_bytes(old));
    old.hunks.clear();
    old.hunks.shrink_to_fit();
    old.diff_loaded = false;
    m_cache.erase(m_cache.begin() + static_cast<std::ptrdiff_t>(k));
  }
}

size_t ReviewModel::loaded_diffs() const {
  return m_cache.size();
}

} // namespace ws::tui
