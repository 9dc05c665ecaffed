// The review model's decisions: taking or leaving a file, a hunk or a fold, splitting hunks,
// taking withheld files on purpose, and what has been decided. Pure, like the rest of the model.
#include "tui/display.hpp"
#include "tui/hunks.hpp"
#include "tui/review_model.hpp"

#include <algorithm>

namespace ws::tui {

void ReviewModel::set_decision(FileEntry& f, Decision d) {
  f.decision = d;
  for (auto& h : f.hunks) {
    h.decision = f.hunk_level ? d : Decision::Undecided;
  }
}

Effect ReviewModel::decide(Decision d, bool whole_file) {
  if (m_on_fold >= 0) {
    return decide_fold(d);
  }
  FileEntry* f = current();
  if (!f) {
    return Effect::None;
  }
  if (!f->decidable()) {
    m_message = f->group == Group::Blocked
                    ? "never transferred: " + f->reason
                    : "withheld (" + f->reason + "): press o to take it anyway";
    if (f->group == Group::Withheld && !f->overridable) {
      m_message = "withheld (" + f->reason + ") and cannot be taken";
    }
    return Effect::Message;
  }
  bool per_hunk = !whole_file && m_focus == Focus::Diff && f->hunk_level && !f->hunks.empty();
  if (per_hunk) {
    f->hunks[static_cast<size_t>(m_hunk)].decision = d;
    // Like `git add -p`: on to the next hunk.
    if (m_hunk + 1 < static_cast<int>(f->hunks.size())) {
      ++m_hunk;
      scroll_to_hunk();
    }
    return Effect::Changed;
  }
  set_decision(*f, d);
  if (m_focus == Focus::Files && m_cursor + 1 < m_entries.size()) {
    select_entry(m_cursor + 1);
  }
  return Effect::Changed;
}

Effect ReviewModel::decide_fold(Decision d) {
  const Fold& fold = m_folds[static_cast<size_t>(m_on_fold)];
  size_t decided = 0;
  for (size_t i = fold.begin; i < fold.end; ++i) {
    FileEntry& f = m_review.files[i];
    if (f.decidable()) {
      set_decision(f, d);
      ++decided;
    }
  }
  if (decided == 0) {
    const FileEntry& first = m_review.files[fold.begin];
    std::string n = with_commas(fold.files());
    m_message = first.group == Group::Blocked ? "never transferred: " + first.reason
                : first.overridable
                    ? "withheld (" + first.reason + "): press o to take all " + n + " files anyway"
                    : "withheld (" + first.reason + ") and cannot be taken";
    return Effect::Message;
  }
  if (m_focus == Focus::Files && m_cursor + 1 < m_entries.size()) {
    select_entry(m_cursor + 1);
  }
  return Effect::Changed;
}

bool ReviewModel::split(size_t f, size_t h) {
  if (f >= m_review.files.size()) {
    return false;
  }
  ensure_loaded(f);
  if (h >= m_review.files[f].hunks.size()) {
    return false;
  }
  FileEntry& file = m_review.files[f];
  std::vector<Hunk> parts = split_hunk(file.hunks[h]);
  if (parts.empty()) {
    return false;
  }
  m_splits.emplace_back(file.path, file.hunks[h].key());
  file.hunks.erase(file.hunks.begin() + static_cast<std::ptrdiff_t>(h));
  file.hunks.insert(file.hunks.begin() + static_cast<std::ptrdiff_t>(h), parts.begin(),
                    parts.end());
  if (f == m_selected && m_on_fold < 0) {
    rebuild_rows();
  }
  return true;
}

Effect ReviewModel::confirm_override() {
  const Fold* fold = selected_fold();
  size_t from = fold ? fold->begin : m_selected, to = fold ? fold->end : m_selected + 1;
  size_t taken = 0;
  for (size_t i = from; i < to && i < m_review.files.size(); ++i) {
    FileEntry& f = m_review.files[i];
    if (f.group != Group::Withheld || !f.overridable) {
      continue;
    }
    f.overridden = true;
    set_decision(f, Decision::Accepted);
    ++taken;
  }
  if (taken == 0) {
    return Effect::None;
  }
  rebuild_rows();
  m_message = fold ? "taking " + with_commas(taken) + " withheld files: " + fold->shown()
                   : "taking withheld " + m_review.files[from].path;
  return Effect::Changed;
}

std::string ReviewModel::override_question() const {
  if (const Fold* fold = selected_fold()) {
    return "Take WITHHELD '" + fold->shown() + "' (" + with_commas(fold->files()) +
           " files: " + fold->full_reason() + ")? They land in your tree if you accept them. y/N";
  }
  const FileEntry* f = selected_file();
  return f ? "Take WITHHELD '" + f->path + "' (" + f->reason +
                 ")? It lands in your tree if you accept it. y/N"
           : std::string();
}

size_t ReviewModel::decided_files() const {
  return static_cast<size_t>(
      std::count_if(m_review.files.begin(), m_review.files.end(), [](const FileEntry& f) {
        FileState s = file_state(f);
        if (s == FileState::Partial) {
          return std::none_of(f.hunks.begin(), f.hunks.end(),
                              [](const Hunk& h) { return h.decision == Decision::Undecided; });
        }
        return s == FileState::Accepted || s == FileState::Rejected;
      }));
}

size_t ReviewModel::decidable_files() const {
  return static_cast<size_t>(std::count_if(m_review.files.begin(), m_review.files.end(),
                                           [](const FileEntry& f) { return f.decidable(); }));
}

bool ReviewModel::any_decision() const {
  return std::any_of(m_review.files.begin(), m_review.files.end(), [](const FileEntry& f) {
    return f.overridden || f.decision != Decision::Undecided ||
           std::any_of(f.hunks.begin(), f.hunks.end(),
                       [](const Hunk& h) { return h.decision != Decision::Undecided; });
  });
}

bool ReviewModel::any_accepted() const {
  return std::any_of(m_review.files.begin(), m_review.files.end(), [](const FileEntry& f) {
    FileState s = file_state(f);
    return s == FileState::Accepted ||
           (s == FileState::Partial &&
            std::any_of(f.hunks.begin(), f.hunks.end(),
                        [](const Hunk& h) { return h.decision == Decision::Accepted; }));
  });
}

} // namespace ws::tui
