// A whole section of git-config files, read with libgit2 (config_section.hpp).
#include "gitbridge/config_section.hpp"

#include "gitbridge/git_handles.hpp"

#include <git2.h>

#include <exception>

namespace ws::gitbridge {

namespace {

struct Visit {
  std::string prefix;
  size_t files = 0;
  std::vector<ConfigEntry>* out;
  std::exception_ptr error; // no exception may cross libgit2's C frames
};

int visit(const git_config_entry* entry, void* payload) noexcept {
  auto* v = static_cast<Visit*>(payload);
  try {
    std::string name = entry->name;
    if (name.compare(0, v->prefix.size(), v->prefix) != 0) {
      return 0;
    }
    std::string rest = name.substr(v->prefix.size());
    size_t dot = rest.rfind('.');
    ConfigEntry e;
    if (dot == std::string::npos) {
      e.key = rest;
    } else {
      e.subsection = rest.substr(0, dot);
      e.key = rest.substr(dot + 1);
    }
    e.value = entry->value ? entry->value : "";
    // Levels are 1..files in the order given (see load_config_section).
    e.file = entry->level >= 1 ? static_cast<size_t>(entry->level) - 1 : 0;
    v->out->push_back(std::move(e));
    return 0;
  } catch (...) {
    v->error = std::current_exception();
    return GIT_EUSER;
  }
}

} // namespace

std::vector<ConfigEntry> load_config_section(const std::vector<std::filesystem::path>& files,
                                             const std::string& section) {
  git_config* raw = nullptr;
  git_check(git_config_new(&raw), "cannot create a git config object");
  ConfigPtr cfg(raw);
  for (size_t i = 0; i < files.size(); ++i) {
    if (files[i].empty()) {
      continue;
    }
    // Each file its own level, later files higher: libgit2 then visits the first file first.
    int rc = git_config_add_file_ondisk(cfg.get(), files[i].c_str(),
                                        static_cast<git_config_level_t>(i + 1), nullptr, 0);
    if (rc < 0) {
      throw GitError(rc, "cannot read git config '" + files[i].string() + "': " + git_last_error());
    }
  }
  std::vector<ConfigEntry> out;
  Visit v{section + ".", files.size(), &out, nullptr};
  int rc = git_config_foreach(cfg.get(), visit, &v);
  if (v.error) {
    std::rethrow_exception(v.error);
  }
  if (rc < 0) {
    throw GitError(rc, "cannot read the [" + section + "] sections: " + git_last_error());
  }
  return out;
}

} // namespace ws::gitbridge
