#pragma once

#include "src/transfer/landing.hpp"

#include <string>

namespace ws {

/// What `ws apply` says of one conflict, for stderr: "CONFLICT <why>", then each region
/// with the person's lines and the agent's. Empty unless `r` is a conflict. The lines are
/// the agent's bytes: every control in them is shown escaped (visible_text), so none can
/// move the cursor, erase what was printed, or print a line of ws's own.
std::string conflict_report(const LandingResult& r, bool color);

} // namespace ws
