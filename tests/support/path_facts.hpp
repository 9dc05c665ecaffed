#pragma once

// PathFacts for the transfer policy's table-driven tests: what the view and the real tree say
// of one path, built in a line per row (tests/unit/filters/test_policy*.cpp).

#include "filters/policy.hpp"

#include <sys/stat.h>

#include <string>
#include <utility>

namespace ws::test {

inline constexpr mode_t k_file = S_IFREG | 0644;
inline constexpr mode_t k_exe = S_IFREG | 0755;

/// A change of `type` at `path`, 100 bytes; the real tree still has what the view started
/// from (a regular file, unless the path is new).
inline filters::PathFacts facts(filters::ChangeType type, std::string path, mode_t mode = k_file) {
  filters::PathFacts f;
  f.type = type;
  f.path = std::move(path);
  f.mode = type == filters::ChangeType::Deleted ? 0 : mode;
  f.base_mode = f.real_mode = type == filters::ChangeType::Added ? 0 : k_file;
  f.size = 100;
  return f;
}
inline filters::PathFacts added(std::string path, mode_t mode = k_file) {
  return facts(filters::ChangeType::Added, std::move(path), mode);
}
inline filters::PathFacts modified(std::string path, mode_t mode = k_file) {
  return facts(filters::ChangeType::Modified, std::move(path), mode);
}
inline filters::PathFacts deleted(std::string path) {
  return facts(filters::ChangeType::Deleted, std::move(path));
}
/// Renamed from `from`: nothing stood at the new name.
inline filters::PathFacts renamed(std::string from, std::string path, mode_t mode = k_file) {
  filters::PathFacts f = facts(filters::ChangeType::Renamed, std::move(path), mode);
  f.from = std::move(from);
  f.base_mode = f.real_mode = 0;
  return f;
}
inline filters::PathFacts symlink(std::string path, std::string target,
                                  filters::SymlinkReach reach = filters::SymlinkReach::Inside) {
  filters::PathFacts f = added(std::move(path), S_IFLNK | 0777);
  f.symlink_target = std::move(target);
  f.symlink_reach = reach;
  return f;
}
/// `f` as `change` leaves it: one row's exception to the builders above.
template <class Fn> filters::PathFacts with(filters::PathFacts f, Fn&& change) {
  change(f);
  return f;
}

} // namespace ws::test
