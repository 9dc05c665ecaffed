#pragma once

#include "filters/policy.hpp"
#include "filters/symlink_aliases.hpp"

#include <vector>

namespace ws {

/// filters::decide_reachable for each of `facts`, in order, on the machine's cores when there
/// are many (an agent's 200,000 new files): the policy is pure, so the answers are the same.
std::vector<filters::Decision> decide_all(const std::vector<filters::PathFacts>& facts,
                                          const filters::PolicyConfig& config,
                                          const filters::SymlinkAliases& aliases);
/// The same where no path has another name through a symlink.
std::vector<filters::Decision> decide_all(const std::vector<filters::PathFacts>& facts,
                                          const filters::PolicyConfig& config);

} // namespace ws
