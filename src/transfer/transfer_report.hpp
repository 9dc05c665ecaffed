#pragma once

#include "src/transfer/transfer_plan.hpp"

#include <string>
#include <vector>

namespace ws {

/// "M", "A", "R" ... for a change.
char status_letter(const fuse::Change& c);
/// "old -> new" for a rename, else the path; quoted as git quotes paths.
std::string display_path(const fuse::Change& c);

/// The decision's reason as shown next to its verdict ("BLOCKED: inside .git/ ..."), safe to
/// print on a terminal (visible_text).
std::string shown_reason(const filters::Decision& d);

/// The lines a person must see next to a patch: what is flagged (in the patch, read it
/// closely), withheld (not in it; how to take it) and blocked (never). Every path is listed,
/// deletions included; empty when there is nothing to say. Each line starts with `prefix`
/// ("# " after a patch, so the text stays harmless inside a patch file).
std::string verdict_report(const std::vector<PlannedChange>& plan, bool color,
                           const std::string& prefix);

/// One JSON object per change: status, path, from, verdict, reason, included.
std::string plan_json_entries(const std::vector<PlannedChange>& plan, const std::string& indent);

} // namespace ws
