#pragma once

// `git diff --stat --summary` as git lays it out, and the names in it quoted as git quotes
// them (libgit2's own stat prints names raw). Internal to gitbridge.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ws::gitbridge {

/// A path as git prints it with core.quotePath (ws's quote_path does the same in src/):
/// plain if it is printable ASCII, else in double quotes with C escapes and octal bytes.
/// An agent names files: a newline, an escape or a bidi control stays visible, on one line.
std::string git_quoted(std::string_view path);

/// "old => new" as git prints a rename in a diffstat (diff.c pprint_rename): a common
/// leading directory and trailing part go outside braces, "src/{a.c => b.c}"; quoted names
/// are printed whole.
std::string rename_name(std::string_view a, std::string_view b);

/// One line of the diffstat, before layout.
struct StatRow {
  std::string name; ///< quoted; "old => new" for a rename
  size_t added = 0, deleted = 0;
  bool binary = false;
  uint64_t old_size = 0, new_size = 0;
};

/// `git diff --stat --summary` for 80 columns, laid out as git lays it out (diff.c
/// show_stats): names get what the graph leaves, the graph is scaled to fit. `summary` is
/// appended as it is.
std::string format_stat(const std::vector<StatRow>& rows, const std::string& summary);

/// " create mode 100644 NAME" and the like: git's --summary line(s) of one file.
std::string summary_lines(char status, uint32_t old_mode, uint32_t new_mode,
                          std::string_view old_path, std::string_view path, int similarity);

} // namespace ws::gitbridge
