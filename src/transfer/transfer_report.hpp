#pragma once

#include "filters/fold.hpp"
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

/// One line of a report's section: letter, what (a path or a folded directory), what to say
/// of it, and a note that a fitted line keeps whole (a fold's paths of other reasons).
struct ReportRow {
  char letter = ' ';
  std::string shown;
  std::string said;
  std::string note;
};

/// One titled list of a report: its rows, aligned when rendered.
struct ReportSection {
  std::string title;       ///< empty: lines only
  const char* colour = ""; ///< ANSI colour of the title
  std::vector<ReportRow> rows;
};

/// Which changes of a plan a report shows as one line (filters/fold.hpp).
struct PlanFolds {
  std::vector<filters::FoldedDir> dirs;
  std::vector<size_t> fold_of; ///< for each change of the plan: index into dirs, or SIZE_MAX
};

/// Folds `plan`: `reasons[i]` is what is said of plan[i], `group[i]` its verdict or section
/// (paths fold only within one), `held[i]` whether it may fold at all (withheld or blocked, not
/// a rename). Whole directories, the files directly in a directory (at least
/// filters::k_direct_fold_min of one reason), and a tool's tree with its ordinary symlinks.
PlanFolds fold_plan(const std::vector<PlannedChange>& plan, const std::vector<std::string>& reasons,
                    const std::vector<int>& group, const std::vector<bool>& held);

/// What is flagged (in the patch, read it closely), included, withheld (not in it; how to
/// take it) and blocked (never), one section each, every path or folded directory a line:
/// with `fold`, a withheld or blocked directory whose every changed path has the same
/// verdict and reason is one line with its count, deletions counted apart, as are the files
/// directly in a directory of one verdict and reason (filters/fold.hpp); without, every path
/// has its line.
std::vector<ReportSection> verdict_sections(const std::vector<PlannedChange>& plan, bool fold);

/// The changes that transfer as they are (no verdict), a line each ("A  path"); with `fold`,
/// a top directory's plain new files are one line (`A  gen/  200,000 new files`).
ReportSection transfer_section(const std::vector<PlannedChange>& plan, bool fold);

/// The sections as text, each line starting with `prefix`. At most `max_lines` lines in all
/// (titles included), shared among the sections so each shows some; a cut section ends
/// with "... and N more (`more`)". Each line at most `max_width` columns: a long path is cut
/// in the middle ("..."), then what is said of it at its end, never its letter or note.
std::string render_sections(const std::vector<ReportSection>& sections, bool color,
                            const std::string& prefix, size_t max_lines = SIZE_MAX,
                            const std::string& more = "", size_t max_width = SIZE_MAX);

/// The lines a person must see next to a patch (verdict_sections, rendered); empty when
/// there is nothing to say. Each line starts with `prefix` ("# " after a patch, so the text
/// stays harmless inside a patch file).
std::string verdict_report(const std::vector<PlannedChange>& plan, bool color,
                           const std::string& prefix, bool fold = true);

/// One JSON object per change: status, path, from, verdict, reason, included.
std::string plan_json_entries(const std::vector<PlannedChange>& plan, const std::string& indent);

} // namespace ws
