#pragma once

// The review session's pure model: files, hunks, decisions and the actions that change
// them. No terminal, no libgit2: src/ builds a Review from the transfer plan, the views
// render this model, and src/ reads the decisions back to land exactly what was accepted.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ws::tui {

/// Where a file is listed: the transfer policy's verdict.
enum class Group { Transfer, Flagged, Withheld, Blocked };

enum class Decision : char { Undecided = '?', Accepted = 'a', Rejected = 'r' };

struct Line {
  enum class Kind : char { Context = ' ', Added = '+', Deleted = '-' };
  Kind kind = Kind::Context;
  std::string text; ///< raw bytes, with the '\n' when the file has one there
};

/// A hunk positioned by 0-based line offsets into the old and new file (see
/// gitbridge::TextHunk). Split hunks share the context between them, as `git add -p` shows.
struct Hunk {
  uint32_t old_begin = 0;
  uint32_t new_begin = 0;
  std::vector<Line> lines;
  Decision decision = Decision::Undecided;

  uint32_t old_count() const;
  uint32_t new_count() const;
  /// "@@ -12,7 +12,8 @@", as git numbers it.
  std::string header() const;
  /// Stable identity across sessions: a hash of the position and the lines (16 hex digits).
  std::string key() const;
};

/// One changed path as the person sees it.
struct FileEntry {
  char status = 'M'; ///< A M D R T
  std::string path;
  std::string old_path; ///< == path unless renamed
  Group group = Group::Transfer;
  std::string reason;       ///< why flagged, withheld or blocked ("" for transfer)
  bool overridable = false; ///< withheld, and the person may take it anyway
  bool overridden = false;  ///< the person confirmed taking it
  /// Changes shown in words: binary content, symlink targets, modes, type changes.
  std::vector<std::string> notes;
  size_t added = 0;
  size_t deleted = 0;
  /// Hunks may be decided one by one (a text file modified in place, same mode). Otherwise
  /// the hunks are only shown and the file is taken whole or not at all.
  bool hunk_level = false;
  std::vector<Hunk> hunks;
  Decision decision = Decision::Undecided; ///< for files that are not hunk_level
  /// Set by whoever builds the review: changes whenever either side's content or mode does,
  /// so a saved decision never comes back for different content.
  std::string identity;

  /// Decisions may be made: not blocked, and not withheld unless overridden.
  bool decidable() const;
};

/// What the person is reviewing.
struct Review {
  std::string workspace;
  std::string id; ///< identity of everything shown: any change in the workspace changes it
  std::vector<FileEntry> files;
};

/// A file's overall state, for the list.
enum class FileState { Undecided, Accepted, Rejected, Partial, Locked };
FileState file_state(const FileEntry& f);

/// What the session loop must do after an action (the model itself never prompts).
enum class Effect {
  None,
  Changed,     ///< decisions changed: persist them
  AskOverride, ///< confirm taking the selected withheld file
  AskSearch,   ///< read a search text, then call search()
  AskQuit,     ///< decisions exist: confirm leaving
  Quit,        ///< leave
  ShowHelp,    ///< show the key help
  AskFinish,   ///< choose how to land the accepted changes
  Message,     ///< show message() on the status line
};

enum class Action {
  Up,
  Down,
  PageUp,
  PageDown,
  Top,
  Bottom,
  NextHunk,
  PrevHunk,
  NextFile,
  PrevFile,
  ToggleFocus,
  Accept,   ///< the selected file (list) or hunk (diff)
  Reject,   ///< likewise
  Undecide, ///< likewise
  AcceptFile,
  RejectFile,
  Split,    ///< the current hunk
  Override, ///< ask to take a withheld file
  Search,
  SearchNext,
  SearchPrev,
  Help,
  Finish,
  Quit,
  ToggleWrap,  ///< long lines: wrapped, or cut and scrolled sideways
  ScrollLeft,  ///< scroll mode: show the columns to the left
  ScrollRight, ///< scroll mode: show the columns to the right
};

enum class Focus { Files, Diff };

/// How the diff pane shows a line longer than the pane. Either way every cut is marked.
enum class LineMode { Wrap, Scroll };

/// One row of the diff pane, pointing into the selected file. In wrap mode a long line or
/// note takes several rows, each showing bytes [from, to) of it.
struct DiffRow {
  enum class Kind { Title, Note, HunkHeader, Line } kind = Kind::Line;
  int hunk = -1;    ///< HunkHeader, Line
  int line = -1;    ///< Line
  std::string text; ///< Title, Note
  size_t from = 0;  ///< the first byte shown (of `text`, or of the line without its '\n')
  size_t to = std::string::npos; ///< one past the last byte shown
  size_t column = 0;             ///< the display column `from` is at (for tab stops)
  bool more = false;             ///< wrapped: the text goes on in the next row
  int logical = 0;               ///< which row it would be unwrapped (keeps the place on resize)
};

/// Owns the review and the person's cursor and decisions. Single-threaded; pure: every
/// method only changes this object.
class ReviewModel {
public:
  explicit ReviewModel(Review review);

  Effect apply(Action action);

  /// After Effect::AskOverride was confirmed.
  Effect confirm_override();
  /// After Effect::AskSearch: searches paths and diff lines from the cursor on. Empty repeats.
  Effect search(const std::string& text);
  /// Rows of the panes, for paging and keeping the cursor in view, and the diff pane's
  /// width in columns (origin column included), for wrapping; 0: no wrapping.
  void set_page(int list_rows, int diff_rows, int diff_cols = 0);

  const Review& review() const { return m_review; }
  const std::vector<FileEntry>& files() const { return m_review.files; }
  size_t selected() const { return m_selected; }
  const FileEntry* selected_file() const;
  int current_hunk() const { return m_hunk; }
  Focus focus() const { return m_focus; }
  int diff_top() const { return m_diff_top; }
  LineMode line_mode() const { return m_line_mode; }
  /// Scroll mode: the first display column shown of each line.
  size_t hscroll() const { return m_hscroll; }
  const std::string& message() const { return m_message; }
  void set_message(std::string text) { m_message = std::move(text); }
  const std::string& last_search() const { return m_search; }
  /// The rows of the selected file's diff.
  const std::vector<DiffRow>& diff_rows() const { return m_rows; }

  /// Counts for the title: files with every decision made, and files in total.
  size_t decided_files() const;
  bool any_decision() const;
  bool any_accepted() const;

  /// Divides hunk `h` of file `f` at its context lines; false if it has one change run.
  bool split(size_t f, size_t h);

  /// The decisions, as text to persist (see restore()).
  std::string save() const;
  /// Brings back decisions saved by save(). When `same_review_only`, nothing is restored
  /// unless the saved review id equals this one; otherwise decisions come back wherever the
  /// file and hunk are still the same. Returns how many decisions came back.
  size_t restore(std::string_view saved, bool same_review_only);

private:
  void select(size_t index);
  void rebuild_rows();
  std::vector<DiffRow> rows_for(const FileEntry& f) const;
  void scroll_to_hunk();
  void sync_hunk_to_scroll();
  Effect decide(Decision d, bool whole_file);
  Effect search_from(bool forward);
  int hunk_row(int h) const;
  /// The first row showing unwrapped row `logical`.
  int visual_row(int logical) const;
  FileEntry* current() { return m_review.files.empty() ? nullptr : &m_review.files[m_selected]; }

  Review m_review;
  size_t m_selected = 0;
  int m_hunk = 0;
  Focus m_focus = Focus::Files;
  int m_diff_top = 0;
  int m_match_row = -1; ///< the diff row the last search landed on
  int m_list_rows = 20;
  int m_diff_rows = 20;
  int m_diff_cols = 0;
  LineMode m_line_mode = LineMode::Wrap;
  size_t m_hscroll = 0;
  std::vector<DiffRow> m_rows;
  std::string m_search;
  std::string m_message;
  /// Splits in the order made, replayed by restore(): (path, key of the hunk split).
  std::vector<std::pair<std::string, std::string>> m_splits;
};

/// The text to land for a hunk-level file: `before` with the hunks that `take` accepts
/// applied (by line offsets; the deleted lines must be what `before` holds there). Throws
/// std::runtime_error if a hunk does not fit `before`.
std::string apply_hunks(std::string_view before, const std::vector<Hunk>& hunks,
                        Decision take = Decision::Accepted);

/// The lines of `text`, each with its '\n' (the last may have none).
std::vector<std::string_view> split_lines(std::string_view text);

const char* group_name(Group g); ///< "transfer", "FLAGGED", "WITHHELD", "BLOCKED"

} // namespace ws::tui
