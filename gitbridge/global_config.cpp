// The person's global git config, read with libgit2 (global_config.hpp): its syntax, its
// includes and conditional includes are git's, never parsed here.
#include "gitbridge/global_config.hpp"

#include "gitbridge/git_handles.hpp"

#include <git2.h>

#include <algorithm>

namespace ws::gitbridge {

namespace {

using ConfigIteratorPtr = GitPtr<git_config_iterator, git_config_iterator_free>;

/// The config git would read in `repo` (every level), or the default one without a repository.
ConfigPtr open_config(const std::filesystem::path& repo) {
  git_repository* raw_repo = nullptr;
  git_config* raw = nullptr;
  if (!repo.empty() && git_repository_open_ext(&raw_repo, repo.c_str(), 0, nullptr) == 0) {
    RepoPtr r(raw_repo);
    git_check(git_repository_config_snapshot(&raw, r.get()),
              "cannot read the git config of " + repo.string());
    return ConfigPtr(raw);
  }
  git_error_clear();
  git_check(git_config_open_default(&raw), "cannot read your global git config");
  ConfigPtr live(raw);
  git_config* snap = nullptr;
  git_check(git_config_snapshot(&snap, live.get()), "cannot read your global git config");
  return ConfigPtr(snap);
}

/// The value as git reads it back: as it is when plain, else `"value"` with git's escapes (a
/// value keeps its outer spaces, '#', ';', quotes, backslashes and line breaks).
std::string quoted(const std::string& s) {
  bool plain = !s.empty() && s.front() != ' ' && s.back() != ' ' &&
               s.find_first_of("#;\"\\\n\t\b") == std::string::npos;
  if (plain) {
    return s;
  }
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\b':
      out += "\\b";
      break;
    default:
      out += c;
    }
  }
  return out + "\"";
}

} // namespace

std::vector<GlobalConfigEntry> global_config_entries(const std::filesystem::path& repo) {
  ConfigPtr cfg = open_config(repo);
  git_config_iterator* raw = nullptr;
  git_check(git_config_iterator_new(&raw, cfg.get()), "cannot read your global git config");
  ConfigIteratorPtr it(raw);
  std::vector<std::pair<int, GlobalConfigEntry>> found;
  git_config_entry* entry = nullptr;
  int rc = 0;
  while ((rc = git_config_next(&entry, it.get())) == 0) {
    if (entry->level == GIT_CONFIG_LEVEL_XDG || entry->level == GIT_CONFIG_LEVEL_GLOBAL) {
      found.push_back(
          {entry->level, {entry->name, entry->value ? entry->value : "", entry->value == nullptr}});
    }
  }
  if (rc != GIT_ITEROVER) {
    git_check(rc, "cannot read your global git config");
  }
  // git reads the XDG file first, then ~/.gitconfig: a later value wins.
  std::stable_sort(found.begin(), found.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<GlobalConfigEntry> out;
  out.reserve(found.size());
  for (auto& [level, e] : found) {
    out.push_back(std::move(e));
  }
  return out;
}

std::string config_text(const std::vector<GlobalConfigEntry>& entries) {
  std::string out, header;
  for (const auto& e : entries) {
    size_t first = e.name.find('.');
    size_t last = e.name.rfind('.');
    if (first == std::string::npos) {
      continue;
    }
    std::string section = e.name.substr(0, first);
    std::string key = e.name.substr(last + 1);
    std::string h = "[" + section;
    if (last > first) {
      std::string sub = e.name.substr(first + 1, last - first - 1);
      std::string escaped;
      for (char c : sub) {
        if (c == '"' || c == '\\') {
          escaped += '\\';
        }
        escaped += c;
      }
      h += " \"" + escaped + "\"";
    }
    h += "]\n";
    if (h != header) {
      out += h;
      header = h;
    }
    out += "\t" + key + (e.bare ? std::string() : " = " + quoted(e.value)) + "\n";
  }
  return out;
}

} // namespace ws::gitbridge
