#pragma once

// Views: the model rendered into rows of styled text, with no terminal involved. The
// ncurses screen paints a Frame; tests and `docs/review-screen.txt` read its dump().

#include "tui/display.hpp"
#include "tui/review_model.hpp"
#include "tui/word_diff.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace ws::tui {

enum class Style : uint8_t {
  Normal,
  Title,
  Status,
  Prompt,
  Selected,    ///< the selected file, list focused
  SelectedDim, ///< the selected file, diff focused
  Group,
  Flagged,
  Withheld,
  Blocked,
  Accepted,
  Rejected,
  Partial,
  Note,
  HunkHeader,
  HunkCurrent,
  Added,
  Deleted,
  AddedWord, ///< the words that changed within an added line
  DeletedWord,
  Dim,
  Marker, ///< drawn by ws, not the file: notations (<U+202E>, ^[) and cut markers (\ > <)
};

struct Span {
  std::string text; ///< printable UTF-8 (see tui/display.hpp), as wide as display_width()
  Style style = Style::Normal;
};

struct Row {
  std::vector<Span> spans;
};

struct Frame {
  int width = 0;
  int height = 0;
  std::vector<Row> rows; ///< exactly `height`, each exactly `width` columns
  /// The text, one line per row, trailing blanks cut.
  std::string dump() const;
};

/// What overlays the panes.
struct Overlay {
  std::string prompt; ///< shown on the bottom line instead of the key hints
  bool help = false;  ///< the key help over the diff pane
};

/// The screen for `model`. Lines are wrapped as `model` was laid out (see fit()); a row
/// that was laid out for another width is cut, with a marker, never silently.
Frame render(const ReviewModel& model, int width, int height, const Overlay& overlay = {});

/// One row of exactly `width` columns: `text` (any bytes, shown as display.hpp says) in
/// `style`, padded, or cut with a marker.
Row text_line(std::string_view text, Style style, size_t width);

/// Rows the panes get in a terminal of `height` rows (title and status lines excluded).
int pane_rows(int height);
/// Columns of the diff pane in a terminal `width` columns wide.
int diff_cols(int width);
/// Lays `model` out for a terminal of `width` x `height`: page sizes and wrapping.
void fit(ReviewModel& model, int width, int height);

} // namespace ws::tui
