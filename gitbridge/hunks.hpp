#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ws::gitbridge {

/// One line of a hunk. `text` is the raw bytes of the line, with its '\n' when the file has
/// one there (a last line without newline has none), so joining lines gives the file back.
struct HunkLine {
  char origin = ' '; ///< ' ' context, '+' added, '-' deleted
  std::string text;
};

/// One hunk of a text diff, positioned by 0-based line offsets (no "-0,0" special case):
/// `old_begin` is the index in the old file's lines where the hunk's old side starts (for a
/// pure insertion: the line it goes before), `new_begin` likewise in the new file.
struct TextHunk {
  uint32_t old_begin = 0;
  uint32_t new_begin = 0;
  std::vector<HunkLine> lines;
};

/// The hunks of `before` -> `after` as git shows them (libgit2, 3 lines of context, no
/// configuration), or nullopt when either side is binary (a NUL in the first 8000 bytes, as
/// git decides).
std::optional<std::vector<TextHunk>> text_hunks(std::string_view before, std::string_view after);

} // namespace ws::gitbridge
