#pragma once

#include <string>
#include <vector>

namespace ws {

/// ws profile list | show NAME | diff NAME | reset NAME [PATH...] | umount [NAME]
/// (cmd_profile.cpp).
struct ProfileOptions {
  std::string action; ///< list, show, diff, reset, umount
  std::string name;
  std::vector<std::string> paths; ///< reset: at or below these (absolute, ~/, or in the layer)
  bool json = false;
  bool all = false; ///< diff: also the changes without a verdict
};
int cmd_profile(const ProfileOptions& options);

/// `ws __complete profiles`: the profiles' names, one a line (nothing on a bad config).
int print_profile_names();

} // namespace ws
