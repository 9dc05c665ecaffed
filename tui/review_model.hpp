#pragma once

// The review session's pure model: files, hunks, decisions and the actions that change
// them. No terminal, no libgit2: src/ builds a Review from the transfer plan, the views
// render this model, and src/ reads the decisions back to land exactly what was accepted.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace ws::tui {

/// Where a file is listed: the transfer policy's verdict. `Found`: none yet (a provisional
/// list of the changes as found, Review::verdicts_pending).
enum class Group { Transfer, Flagged, Withheld, Blocked, Found };

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
  /// The builder's index of this file (the model sorts files; src/ finds its own by this).
  size_t source = 0;
  /// `notes`, `hunks` and `hunk_level` are known. When false, the model asks its DiffSource
  /// the first time the file is shown, and may drop the hunks again (a bounded cache).
  bool diff_loaded = true;
  /// `added` and `deleted` are known (they stay when the hunks are dropped).
  bool counted = true;
  /// What the DiffSource said identifies the content first shown ("" until shown, or for a
  /// file only described): whoever lands the file checks it still holds exactly that.
  std::string shown;

  /// Decisions may be made: not blocked, and not withheld unless overridden.
  bool decidable() const;
};

/// A file's diff, made when the file is first shown (see DiffSource).
struct FileDiff {
  std::vector<std::string> notes;
  std::vector<Hunk> hunks;
  bool hunk_level = false;
  std::string shown; ///< identifies the content the hunks were made from (FileEntry::shown)
};

/// Where the model gets a file's diff when it shows the file: src/ reads both versions and
/// diffs them. Called on the model's thread only.
class DiffSource {
public:
  virtual ~DiffSource() = default;
  virtual FileDiff diff(const FileEntry& file) = 0;
};

/// A directory of the list shown as one row (tui/fold.hpp): files [begin, end) of the
/// model's order, all in one group with one reason. Expanding it lists what is below. A
/// direct fold (`glob` not empty) is the files directly in `dir` named by the pattern: the
/// model lists them together, where the first of them would be.
struct Fold {
  std::string dir;    ///< without a trailing '/'; "" for the top (a direct fold only)
  std::string glob;   ///< a direct fold's pattern (`*.o`), "" for a directory
  std::string reason; ///< the reason its files share
  std::string note;   ///< others folded in (`symlinks leaving the project: 3`), or ""
  size_t begin = 0;
  size_t end = 0;
  int parent = -1; ///< the fold it was found in, when that one was expanded
  bool expanded = false;
  bool children_known = false;
  size_t deleted = 0; ///< how many of its changes are deletions
  char status = 'A';  ///< the status its files share; '*' when they differ
  size_t files() const { return end - begin; }
  /// As the list names it: `node_modules/`, `src/*.o`.
  std::string shown() const {
    return glob.empty() ? dir + "/" : dir.empty() ? glob : dir + "/" + glob;
  }
  /// The reason and the note, as a report says them.
  std::string full_reason() const { return note.empty() ? reason : reason + "; " + note; }
};

/// One row of the list that the cursor can be on: a file or a folded directory.
struct ListEntry {
  enum class Kind : uint8_t { File, Fold } kind = Kind::File;
  bool header = false; ///< a group's title row comes first
  bool reason = false; ///< a row with the reason follows
  size_t index = 0;    ///< of the file, or of the fold
  size_t row = 0;      ///< its own row (after the group's title, if any)
};

/// What the person is reviewing.
struct Review {
  std::string workspace;
  std::string id; ///< identity of everything shown: any change in the workspace changes it
  std::vector<FileEntry> files;
  /// The list as an earlier command planned it, shown while the plan of now is made (ws
  /// review, issue 13): its verdicts may be out of date, so it is moved in, never decided
  /// on (moves_at_once()); the review of now takes its place (ReviewModel::follow).
  bool provisional = false;
  /// Provisional, and made of the changes as found before any has its verdict (no command
  /// kept a plan of the workspace yet): every file is in Group::Found, folded by directory.
  bool verdicts_pending = false;
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
  Searching,   ///< a search goes on: call search_step() between keys until it ends
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
  Open,        ///< a folded directory: show what is below it (or fold it again); a file: Tab
  FoldUp,      ///< fold the expanded directory around the cursor again
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

/// Owns the review and the person's cursor and decisions. Single-threaded; pure but for
/// the DiffSource it may be given: every method only changes this object.
///
/// Scale: the list is folded (a withheld or blocked directory of one reason is one row);
/// diffs are made when a file is shown and kept in a bounded cache (the selected file, the
/// files whose hunks carry decisions of their own, and a few recent ones); a search goes
/// through the files in steps, between keys.
class ReviewModel {
public:
  explicit ReviewModel(Review review, DiffSource* source = nullptr);

  Effect apply(Action action);

  /// After Effect::AskOverride was confirmed: takes the selected withheld file, or every
  /// file of the selected folded directory.
  Effect confirm_override();
  /// The question Effect::AskOverride asks.
  std::string override_question() const;
  /// After Effect::AskSearch: searches paths and diff lines from the cursor on. Empty
  /// repeats. Effect::Searching: not done yet, call search_step().
  Effect search(const std::string& text);
  Effect search_step();
  bool searching() const { return m_job.active; }
  void stop_search();
  /// How far a running search got: files looked at, of all.
  std::pair<size_t, size_t> search_progress() const;
  /// Rows of the panes, for paging and keeping the cursor in view, and the diff pane's
  /// width in columns (origin column included), for wrapping; 0: no wrapping. Makes the
  /// counts of the files on screen known.
  void set_page(int list_rows, int diff_rows, int diff_cols = 0);

  const Review& review() const { return m_review; }
  const std::vector<FileEntry>& files() const { return m_review.files; }
  /// The file at the cursor (on a folded directory: its first file).
  size_t selected() const { return m_selected; }
  /// nullptr when the cursor is on a folded directory.
  const FileEntry* selected_file() const;
  /// nullptr when the cursor is on a file.
  const Fold* selected_fold() const;
  int current_hunk() const { return m_hunk; }
  Focus focus() const { return m_focus; }
  int diff_top() const { return m_diff_top; }
  LineMode line_mode() const { return m_line_mode; }
  /// Scroll mode: the first display column shown of each line.
  size_t hscroll() const { return m_hscroll; }
  const std::string& message() const { return m_message; }
  void set_message(std::string text) { m_message = std::move(text); }
  const std::string& last_search() const { return m_search; }
  /// The rows of the selected file's diff (or of the folded directory's summary).
  const std::vector<DiffRow>& diff_rows() const { return m_rows; }

  /// The list: files and folded directories in order, the cursor, the first row shown.
  const std::vector<ListEntry>& entries() const { return m_entries; }
  const std::vector<Fold>& folds() const { return m_folds; }
  size_t cursor() const { return m_cursor; }
  size_t list_top() const { return m_list_top; }
  size_t list_row_count() const;
  /// The state a folded directory's files are in together.
  FileState fold_state(const Fold& fold) const;

  /// Counts for the title: files with every decision made, and files that may be decided.
  size_t decided_files() const;
  size_t decidable_files() const;
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

  /// How many files' hunks are held in memory now (the selected one included).
  size_t loaded_diffs() const;

  /// Takes the place the person had in `other` (the provisional list shown while this one
  /// loaded): the same directories expanded, the cursor on the same file or directory
  /// where it is still listed, on the same row of the screen. False when that file or
  /// directory is not listed here (the cursor stays as far down the list): keys typed for
  /// it must not act on another.
  bool follow(const ReviewModel& other);

private:
  // review_model.cpp: cursor and decisions
  void select_entry(size_t entry);
  void select_file(size_t index);
  void rebuild_rows();
  /// `logical` rows laid out for the pane's width (wrapped); `file` holds their lines.
  std::vector<DiffRow> layout(std::vector<DiffRow> logical, const FileEntry* file) const;
  void scroll_to_hunk();
  void sync_hunk_to_scroll();
  Effect decide(Decision d, bool whole_file);
  Effect decide_fold(Decision d);
  void set_decision(FileEntry& f, Decision d);
  int hunk_row(int h) const;
  /// The first row showing unwrapped row `logical`.
  int visual_row(int logical) const;
  FileEntry* current();
  // review_list.cpp: entries and folds
  void build_folds();
  void rebuild_entries();
  void keep_cursor_visible();
  void toggle_fold(size_t fold);
  /// Shows what is below `fold`. Finding its folds the first time may list its files anew
  /// (a direct fold's together): the cursor, the cache and `track` (a file's index) follow.
  void expand(size_t fold, size_t* track = nullptr);
  /// The folds directly below fold `k` (a directory holding only one is gone through), its
  /// files listed so that each is a range; `moved` gets each file's new index (from the
  /// fold's first), or stays empty when none moved.
  std::vector<Fold> children_of(size_t k, std::vector<size_t>& moved);
  /// The directories directly below `fold` that fold, as children_of finds them, without
  /// listing anything anew (saving decisions).
  std::vector<Fold> child_dirs(const Fold& fold) const;
  Effect fold_up();
  /// The entry showing file `index`, expanding folds until there is one.
  size_t reveal(size_t index);
  /// The entry for file `index`, or npos when a folded directory hides it.
  size_t entry_of_file(size_t index) const;
  /// The collapsed fold hiding file `index` (outermost), or -1.
  int hiding_fold(size_t index) const;
  std::vector<DiffRow> rows_for_fold(const Fold& fold) const;
  // review_diffs.cpp: the bounded cache of diffs
  void ensure_loaded(size_t index);
  bool pinned(const FileEntry& f) const;
  // review_search.cpp
  Effect search_from(bool forward);
  bool search_file(size_t fi, int here, bool first, bool last);

  Review m_review;
  DiffSource* m_source = nullptr;
  size_t m_selected = 0;
  int m_on_fold = -1; ///< the fold at the cursor, or -1 for a file
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

  std::vector<Fold> m_folds;
  std::vector<ListEntry> m_entries;
  /// Collapsed folds shown as rows, by first file: (begin, end, fold).
  std::vector<std::tuple<size_t, size_t, size_t>> m_collapsed;
  size_t m_cursor = 0;
  size_t m_list_top = 0;

  std::vector<size_t> m_cache; ///< files whose hunks are held, least recently shown first
  size_t m_cache_bytes = 0;

  struct SearchJob {
    bool active = false;
    bool forward = true;
    size_t start = 0; ///< the file it started from
    size_t step = 0;  ///< files done
    int here = -1;    ///< the row it started after, in the start file
  } m_job;
};

/// What a provisional list (Review::provisional) does at once: moving through it, opening
/// and folding its directories. Anything else waits for the review of now.
bool moves_at_once(Action action);

/// "2,510": counts as the person reads them.
std::string with_commas(size_t n);

/// The text to land for a hunk-level file: `before` with the hunks that `take` accepts
/// applied (by line offsets; the deleted lines must be what `before` holds there). Throws
/// std::runtime_error if a hunk does not fit `before`.
std::string apply_hunks(std::string_view before, const std::vector<Hunk>& hunks,
                        Decision take = Decision::Accepted);

/// The lines of `text`, each with its '\n' (the last may have none).
std::vector<std::string_view> split_lines(std::string_view text);

const char* group_name(Group g); ///< "transfer", "FLAGGED", "WITHHELD", "BLOCKED", "FOUND"

} // namespace ws::tui
