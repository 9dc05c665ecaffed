#pragma once

// Text as the review shows it. Everything an agent wrote (lines, paths, names) reaches the
// screen through GlyphScanner: what the terminal would draw invisibly, reorder or obey is
// replaced by a visible notation (`^[`, `<U+202E>`, `<0xff>`) that the views draw in
// their own attribute, as GitHub and editors mark hidden and bidi characters. Widths are
// wcwidth's in the current LC_CTYPE locale (the screen sets it with setlocale(LC_ALL, "")).
// In a locale that is not UTF-8, every non-ASCII character is shown as `<U+XXXX>`. Pure.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ws::tui {

/// Tabs expand to the next multiple of this many columns from the start of the text.
inline constexpr size_t k_tab_stop = 4;

/// One unit on the screen: a character (a combining mark is its own glyph of width 0), an
/// expanded tab, or a notation standing for bytes that are not shown as they are.
struct Glyph {
  size_t byte = 0;       ///< where its bytes start in the scanned text
  size_t bytes = 0;      ///< how many bytes of the scanned text it stands for
  std::string_view text; ///< what to draw, printable UTF-8; valid until the next next()
  size_t width = 0;      ///< columns `text` takes
  bool marked = false;   ///< a notation: draw it so it cannot pass for the file's text
};

/// Walks raw bytes glyph by glyph. Single-threaded; holds a view of the text.
class GlyphScanner {
public:
  /// Scans `text` from byte `from`, which is at display column `column` (for tab stops;
  /// `from` must be where a glyph starts, as Segment::from is).
  explicit GlyphScanner(std::string_view text, size_t from = 0, size_t column = 0);
  /// The next glyph; false at the end.
  bool next(Glyph& g);
  /// The display column after the glyphs returned so far.
  size_t column() const { return m_column; }

private:
  std::string_view m_text;
  size_t m_at;
  size_t m_column;
  bool m_utf8;         ///< the locale can show UTF-8
  bool m_base = false; ///< the last glyph was a visible character: a combining mark may follow
  char m_buf[16] = {};
};

/// Columns `raw` takes as shown.
size_t display_width(std::string_view raw);

/// `raw` as shown, notations inline (for one-style text such as prompts).
std::string printable(std::string_view raw);

/// A piece of a wrapped text: bytes [from, to), starting at display column `column`.
struct Segment {
  size_t from = 0;
  size_t to = 0;
  size_t column = 0;
};

/// `raw` cut into rows of at most `width` columns (at least one Segment, even for ""). A
/// row never starts with a combining mark; a glyph wider than `width` gets a row alone.
std::vector<Segment> wrap(std::string_view raw, size_t width);

} // namespace ws::tui
