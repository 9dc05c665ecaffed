#pragma once

// The diff pane's rows of a file, shared by the model's parts (tui/review_model*.cpp,
// tui/review_search.cpp). Internal to tui/.

#include "tui/review_model.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace ws::tui {

/// The rows of one file's diff pane, one per line or note (unwrapped).
std::vector<DiffRow> logical_rows(const FileEntry& f);

/// The text a row shows, without a line's '\n'. `f` may be null for a row that is not a line.
std::string_view row_text(const FileEntry* f, const DiffRow& r);

/// The text a search looks at in a row.
std::string_view search_text(const FileEntry& f, const DiffRow& r);

} // namespace ws::tui
