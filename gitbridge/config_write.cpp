// Setting values in one git-config file with libgit2 (config_write.hpp).
#include "gitbridge/config_write.hpp"

#include "gitbridge/git_handles.hpp"
#include "gitbridge/repository.hpp"

#include <git2.h>

namespace ws::gitbridge {

ConfigWriteResult
set_config_defaults(const std::filesystem::path& file,
                    const std::vector<std::pair<std::string, std::string>>& entries,
                    bool (*keep)(const std::string& name, const std::string& value)) {
  init_libgit2();
  ConfigWriteResult result;
  git_config* raw = nullptr;
  git_check(git_config_open_ondisk(&raw, file.c_str()), "read git config " + file.string());
  ConfigPtr config(raw);
  for (const auto& [name, value] : entries) {
    GitBuf current;
    if (git_config_get_string_buf(&current.buf, config.get(), name.c_str()) == 0) {
      std::string have(current.buf.ptr ? current.buf.ptr : "", current.buf.size);
      if (have == value || (keep && keep(name, have))) {
        continue;
      }
    }
    git_check(git_config_set_string(config.get(), name.c_str(), value.c_str()),
              "set " + name + " in git config " + file.string());
    result.set.push_back(name);
  }
  return result;
}

} // namespace ws::gitbridge
