#pragma once

// libgit2's diff options and rename detection set up one way, and a delta's status letter as
// git prints it.

#include "gitbridge/git_handles.hpp"

#include <cstdint>
#include <string>

namespace ws::gitbridge {

/// Diff options at libgit2's defaults with `flags` added (the _INIT macros trip clang's
/// -Wmissing-field-initializers).
inline git_diff_options diff_options(uint32_t flags = 0) {
  git_diff_options opts;
  git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
  opts.flags |= flags;
  return opts;
}

/// Pairs the deletions and additions of `diff` into renames (`flags`: GIT_DIFF_FIND_...;
/// `threshold`: git_diff_find_options.rename_threshold, 0 for libgit2's default).
inline void find_renames(git_diff* diff, uint32_t flags, const std::string& what,
                         uint16_t threshold = 0) {
  git_diff_find_options find;
  git_diff_find_options_init(&find, GIT_DIFF_FIND_OPTIONS_VERSION);
  find.flags = flags;
  find.rename_threshold = threshold;
  git_check(git_diff_find_similar(diff, &find), what);
}

/// A delta's status as `git diff --name-status` prints it.
inline char delta_letter(git_delta_t status) {
  switch (status) {
  case GIT_DELTA_ADDED:
    return 'A';
  case GIT_DELTA_DELETED:
    return 'D';
  case GIT_DELTA_RENAMED:
    return 'R';
  case GIT_DELTA_COPIED:
    return 'C';
  case GIT_DELTA_TYPECHANGE:
    return 'T';
  default:
    return 'M';
  }
}

} // namespace ws::gitbridge
