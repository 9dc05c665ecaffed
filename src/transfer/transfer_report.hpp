#pragma once

#include "src/transfer/transfer_plan.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace ws {

/// Above this many changes a list of paths folds (a screen, about): 200,000 new files from
/// a generator or a vendored tree would bury the few lines that matter.
constexpr size_t k_report_fold_above = 100;

/// "M", "A", "R" ... for a change.
char status_letter(const fuse::Change& c);
/// "old -> new" for a rename, else the path; quoted as git quotes paths.
std::string display_path(const fuse::Change& c);

/// The decision's reason as shown next to its verdict ("BLOCKED: inside .git/ ..."), safe to
/// print on a terminal (visible_text).
std::string shown_reason(const filters::Decision& d);

/// One titled list of a report: its lines, aligned, without prefix or colour.
struct ReportSection {
  std::string title;       ///< empty: lines only
  const char* colour = ""; ///< ANSI colour of the title
  std::vector<std::string> lines;
};

/// What is flagged (in the patch, read it closely), included, withheld (not in it; how to
/// take it) and blocked (never), one section each, every path or folded directory a line:
/// with `fold`, a withheld or blocked directory whose every changed path has the same
/// verdict and reason is one line with its count, deletions counted apart
/// (filters/fold.hpp); without, every path has its line.
std::vector<ReportSection> verdict_sections(const std::vector<PlannedChange>& plan, bool fold);

/// The changes that transfer as they are (no verdict), a line each ("A  path"); with `fold`,
/// a top directory's plain new files are one line (`A  gen/  200,000 new files`).
ReportSection transfer_section(const std::vector<PlannedChange>& plan, bool fold);

/// The sections as text, each line starting with `prefix`. At most `max_lines` lines in all
/// (titles included), shared among the sections so each shows some; a cut section ends
/// with "... and N more (`more`)".
std::string render_sections(const std::vector<ReportSection>& sections, bool color,
                            const std::string& prefix, size_t max_lines = SIZE_MAX,
                            const std::string& more = "");

/// The lines a person must see next to a patch (verdict_sections, rendered); empty when
/// there is nothing to say. Each line starts with `prefix` ("# " after a patch, so the text
/// stays harmless inside a patch file).
std::string verdict_report(const std::vector<PlannedChange>& plan, bool color,
                           const std::string& prefix, bool fold = true);

/// One JSON object per change: status, path, from, verdict, reason, included.
std::string plan_json_entries(const std::vector<PlannedChange>& plan, const std::string& indent);

} // namespace ws
