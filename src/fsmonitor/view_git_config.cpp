#include "src/fsmonitor/view_git_config.hpp"

#include <sys/stat.h>

namespace ws {

std::filesystem::path fsmonitor_hook_program() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::canonical("/proc/self/exe", ec);
  if (ec) {
    return {};
  }
  std::filesystem::path hook = self.parent_path() / "ws-fsmonitor";
  struct stat st {};
  if (::stat(hook.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || !(st.st_mode & S_IXUSR)) {
    return {};
  }
  return hook;
}

std::vector<std::pair<std::string, std::string>>
view_git_config(const std::filesystem::path& hook) {
  if (hook.empty()) {
    return {};
  }
  // git runs core.fsmonitor through the shell when it has shell characters: a path with
  // none is executed as is.
  return {{"core.fsmonitor", hook.string()}, {"core.untrackedCache", "true"}};
}

} // namespace ws
