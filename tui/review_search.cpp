// Searching paths and diff lines, in steps the session runs between keys: a search through
// 100,000 files never holds the screen.
#include "tui/review_model.hpp"
#include "tui/review_rows.hpp"

#include <algorithm>

namespace ws::tui {

namespace {

/// Work per step: a path costs 1, a file whose diff must be made costs k_diff_cost.
constexpr size_t k_step_budget = 20000;
constexpr size_t k_diff_cost = 50;

} // namespace

Effect ReviewModel::search(const std::string& text) {
  if (!text.empty()) {
    m_search = text;
  }
  if (m_search.empty()) {
    return Effect::None;
  }
  return search_from(true);
}

Effect ReviewModel::search_from(bool forward) {
  if (m_review.files.empty()) {
    return Effect::None;
  }
  // Positions: (file, row), row -1 being the file's name in the list. Searched unwrapped: a
  // match may straddle two rows of a wrapped line. On a folded directory, its first file
  // is still ahead (forward) or behind.
  int here = m_on_fold >= 0            ? (forward ? -2 : -1)
             : m_focus == Focus::Files ? -1
             : m_match_row >= 0        ? m_match_row
                                       : m_diff_top;
  if (m_on_fold < 0 && here >= 0 && here < static_cast<int>(m_rows.size())) {
    here = m_rows[static_cast<size_t>(here)].logical;
  }
  m_job = SearchJob{true, forward, m_selected, 0, here};
  return search_step();
}

Effect ReviewModel::search_step() {
  if (!m_job.active) {
    return Effect::None;
  }
  size_t n = m_review.files.size();
  for (size_t budget = k_step_budget; m_job.step <= n && budget > 0; ++m_job.step) {
    size_t s = m_job.step;
    size_t fi = m_job.forward ? (m_job.start + s) % n : (m_job.start + n - s % n) % n;
    bool hidden = hiding_fold(fi) >= 0;
    size_t cost = hidden || m_review.files[fi].diff_loaded ? 1 : k_diff_cost;
    if (search_file(fi, m_job.here, s == 0, s == n)) {
      m_job.active = false;
      return Effect::None;
    }
    budget -= std::min(budget, cost);
  }
  if (m_job.step <= n) {
    return Effect::Searching;
  }
  m_job.active = false;
  m_message = "not found: " + m_search;
  return Effect::Message;
}

bool ReviewModel::search_file(size_t fi, int here, bool first, bool last) {
  bool forward = m_job.forward;
  // Files in a folded directory are searched by path; their diffs are searched once the
  // directory is expanded (reading 100,000 withheld files to search them is not a search).
  bool hidden = hiding_fold(fi) >= 0;
  std::vector<DiffRow> rs;
  if (!hidden) {
    ensure_loaded(fi);
    rs = logical_rows(m_review.files[fi]);
  }
  const FileEntry& f = m_review.files[fi];
  int count = static_cast<int>(rs.size());
  for (int k = 0; k <= count; ++k) {
    int r = forward ? k - 1 : count - 1 - k;
    if (first && (forward ? r <= here : r >= here)) {
      continue; // only past the cursor in the current file
    }
    if (last && (forward ? r > here : r < here)) {
      continue; // wrapped around: up to the cursor
    }
    std::string_view text =
        r < 0 ? std::string_view(f.path) : search_text(f, rs[static_cast<size_t>(r)]);
    if (text.find(m_search) == std::string_view::npos) {
      continue;
    }
    if (fi != m_selected || m_on_fold >= 0) {
      select_file(fi);
    }
    if (r < 0) {
      m_focus = Focus::Files;
    } else {
      m_focus = Focus::Diff;
      int v = visual_row(r);
      m_diff_top = std::max(0, v - 2);
      m_match_row = v;
      m_hunk = std::max(0, m_rows[static_cast<size_t>(v)].hunk);
    }
    return true;
  }
  return false;
}

void ReviewModel::stop_search() {
  if (m_job.active) {
    m_job.active = false;
    m_message = "search stopped";
  }
}

std::pair<size_t, size_t> ReviewModel::search_progress() const {
  return {m_job.step, m_review.files.size()};
}

} // namespace ws::tui
