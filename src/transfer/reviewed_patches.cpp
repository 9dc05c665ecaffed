// What `ws diff` showed, so `ws apply --expect` can prove that what lands is what was read.
#include "src/transfer/reviewed_patches.hpp"

#include "gitbridge/content_id.hpp"
#include "src/cli/error.hpp"
#include "src/cli/text.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace ws {

namespace fs = std::filesystem;

namespace {

constexpr size_t k_kept = 20;
constexpr size_t k_id_digits = 64;

fs::path reviewed_dir(const Workspace& w) {
  return w.layout.dir / "reviewed";
}

bool is_full_id(const std::string& s) {
  return s.size() == k_id_digits && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

/// Records are NUL-separated triples (entry id, path, old path): paths may hold newlines.
std::string encode(const std::vector<gitbridge::ManifestEntry>& entries) {
  std::string out;
  for (const auto& e : entries) {
    out.append(e.id).push_back('\0');
    out.append(e.path).push_back('\0');
    out.append(e.from).push_back('\0');
  }
  return out;
}

std::vector<gitbridge::ManifestEntry> decode(const std::string& bytes) {
  std::vector<gitbridge::ManifestEntry> out;
  std::vector<std::string> fields;
  size_t start = 0;
  for (size_t nul; (nul = bytes.find('\0', start)) != std::string::npos; start = nul + 1) {
    fields.push_back(bytes.substr(start, nul - start));
    if (fields.size() == 3) {
      out.push_back({fields[1], fields[2], fields[0]});
      fields.clear();
    }
  }
  return out;
}

void prune(const fs::path& dir) {
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> all;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    all.emplace_back(e.last_write_time(ec), e.path());
  }
  if (all.size() <= k_kept) {
    return;
  }
  std::sort(all.begin(), all.end());
  for (size_t i = 0; i + k_kept < all.size(); ++i) {
    fs::remove(all[i].second, ec);
  }
}

std::string listed(const std::vector<std::string>& paths) {
  std::string out;
  for (size_t i = 0; i < paths.size() && i < 5; ++i) {
    out += (i ? ", " : "") + quote_path(paths[i]);
  }
  if (paths.size() > 5) {
    out += " and " + std::to_string(paths.size() - 5) + " more";
  }
  return out;
}

} // namespace

void record_reviewed(const Workspace& w, const gitbridge::Patch& patch) {
  const std::string& id = patch.id;
  fs::path dir = reviewed_dir(w);
  std::error_code ec;
  fs::create_directories(dir, ec);
  fs::path file = dir / id;
  fs::path temp = dir / (id + ".tmp");
  if (fs::is_regular_file(file, ec)) {
    // Kept already (the id is the SHA-256 of this very manifest): only the newest now.
    fs::last_write_time(file, fs::file_time_type::clock::now(), ec);
    return;
  }
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << encode(patch.manifest);
    if (!out.flush()) {
      // Not fatal for `ws diff`: the patch is still shown; `--expect` will say it was not kept.
      return;
    }
  }
  fs::rename(temp, file, ec);
  fs::last_write_time(file, fs::file_time_type::clock::now(), ec);
  prune(dir);
}

void check_reviewed(const Workspace& w, const std::string& expect, const gitbridge::Patch& now) {
  const std::string& now_id = now.id;
  if (!is_full_id(expect)) {
    throw Error("--expect needs the whole patch id (" + std::to_string(k_id_digits) +
                    " hex digits, as 'ws diff' prints it); got '" + quote_path(expect) + "'",
                "a short prefix can be matched by content the agent crafts: copy the whole id");
  }
  std::ifstream in(reviewed_dir(w) / expect, std::ios::binary);
  if (!in) {
    throw Error("patch " + expect + " was never shown by 'ws diff' for workspace '" + w.name +
                    "' (or is older than the last " + std::to_string(k_kept) + ")",
                "review the changes with 'ws diff' and apply the id it prints");
  }
  if (now_id == expect) {
    return; // SHA-256 over every landed byte: the same content
  }
  std::stringstream bytes;
  bytes << in.rdbuf();
  std::map<std::string, std::string> reviewed;
  for (auto& e : decode(bytes.str())) {
    reviewed[e.path] = e.id;
  }
  std::vector<std::string> changed, added;
  for (const auto& e : now.manifest) {
    auto it = reviewed.find(e.path);
    if (it == reviewed.end()) {
      added.push_back(e.path);
    } else {
      if (it->second != e.id) {
        changed.push_back(e.path);
      }
      reviewed.erase(it);
    }
  }
  std::string what;
  if (!changed.empty()) {
    what += "changed since you reviewed them: " + listed(changed);
  }
  if (!added.empty()) {
    what +=
        std::string(what.empty() ? "" : "; ") + "not in the patch you reviewed: " + listed(added);
  }
  if (!reviewed.empty()) {
    std::vector<std::string> gone;
    for (auto& [path, id] : reviewed) {
      gone.push_back(path);
    }
    what += std::string(what.empty() ? "" : "; ") +
            "in the patch you reviewed, gone now: " + listed(gone);
  }
  if (what.empty()) {
    what = "the same files, in a different order or pairing";
  }
  throw Error("the changes are no longer the patch you reviewed (" + expect.substr(0, 12) +
                  "...): " + what,
              "review again with 'ws diff' (same paths and --include) and apply that id");
}

} // namespace ws
