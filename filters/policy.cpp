// The transfer policy: stub.
#include "filters/policy.hpp"

namespace ws::filters {
Decision decide(const PathFacts&, const PolicyConfig&) {
  return {};
}
bool matches(const std::string&, const std::string&) {
  return false;
}
const char* verdict_name(Verdict) {
  return "transfer";
}
} // namespace ws::filters
