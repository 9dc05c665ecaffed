// Saving and restoring the person's decisions, so a crash or Ctrl-C loses nothing.
#include "tui/hunks.hpp"
#include "tui/review_model.hpp"

#include <algorithm>
#include <sstream>
#include <unordered_map>

namespace ws::tui {

namespace {

constexpr const char* k_magic = "ws-review 2";

/// Paths may hold any byte but '\0' and '/': hex keeps one record on one line.
std::string hex(std::string_view s) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out += digits[c >> 4];
    out += digits[c & 0xf];
  }
  return out;
}

std::string unhex(std::string_view s) {
  auto v = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  std::string out;
  for (size_t i = 0; i + 1 < s.size(); i += 2) {
    out += static_cast<char>(v(s[i]) * 16 + v(s[i + 1]));
  }
  return out;
}

/// What a file's decision is kept for: its paths, status and content (the identity the
/// builder gives changes with either version), so it never comes back for other content.
std::string file_key_text(const FileEntry& f) {
  return f.old_path + '\0' + f.path + '\0' + f.status + f.identity;
}

std::string file_key(const FileEntry& f) {
  return hex64(fnv1a(file_key_text(f)));
}

/// The files below `dir`, taken together: their keys in path order (an expanded directory
/// lists the files directly in one of its directories together, ReviewModel::expand).
std::string members_key(const std::vector<FileEntry>& files, std::vector<size_t> members) {
  auto by_path = [&](size_t a, size_t b) { return files[a].path < files[b].path; };
  if (!std::is_sorted(members.begin(), members.end(), by_path)) {
    std::sort(members.begin(), members.end(), by_path);
  }
  uint64_t h = fnv1a("dir");
  for (size_t i : members) {
    h = fnv1a(file_key_text(files[i]) + '\n', h);
  }
  return hex64(h);
}

bool uniform_hunks(const FileEntry& f) {
  return std::all_of(f.hunks.begin(), f.hunks.end(),
                     [&](const Hunk& h) { return h.decision == f.hunks.front().decision; });
}

/// The decision a file holds as a whole, when its hunks agree.
Decision whole_decision(const FileEntry& f) {
  return f.hunk_level && !f.hunks.empty() ? f.hunks.front().decision : f.decision;
}

Decision parse_decision(const std::string& s) {
  return s == "a" ? Decision::Accepted : s == "r" ? Decision::Rejected : Decision::Undecided;
}

} // namespace

std::string ReviewModel::save() const {
  const auto& files = m_review.files;
  std::string out = std::string(k_magic) + " " + m_review.id + "\n";
  for (const auto& [path, key] : m_splits) {
    out += "split " + hex(path) + " " + key + "\n";
  }
  auto split = [&](const FileEntry& f) {
    return std::any_of(m_splits.begin(), m_splits.end(),
                       [&](const auto& s) { return s.first == f.path; });
  };
  // A folded directory whose files were all decided alike is one record, whatever its size
  // (taking node_modules/ whole must not write 100,000 lines on every key).
  // Whatever is expanded on screen: the same decisions save the same way.
  std::vector<char> covered(files.size(), 0);
  std::vector<Fold> todo;
  for (const auto& fold : m_folds) {
    if (fold.parent < 0 && fold.glob.empty()) { // a direct fold's files are saved one by one
      todo.push_back(fold);
    }
  }
  while (!todo.empty()) {
    Fold fold = std::move(todo.back());
    todo.pop_back();
    const FileEntry& first = files[fold.begin];
    bool alike = true;
    for (size_t i = fold.begin; i < fold.end && alike; ++i) {
      const FileEntry& f = files[i];
      alike = f.overridden == first.overridden && uniform_hunks(f) &&
              whole_decision(f) == whole_decision(first) && !split(f);
    }
    if (!alike) {
      std::vector<Fold> below = child_dirs(fold);
      todo.insert(todo.end(), below.begin(), below.end());
      continue;
    }
    if (first.overridden || whole_decision(first) != Decision::Undecided) {
      std::vector<size_t> members;
      for (size_t i = fold.begin; i < fold.end; ++i) {
        members.push_back(i);
      }
      out += "dir " + hex(fold.dir) + " " + members_key(files, members) + " " +
             static_cast<char>(whole_decision(first)) + " " + (first.overridden ? "o" : "-") + "\n";
    }
    std::fill(covered.begin() + static_cast<std::ptrdiff_t>(fold.begin),
              covered.begin() + static_cast<std::ptrdiff_t>(fold.end), 1);
  }
  for (size_t i = 0; i < files.size(); ++i) {
    const FileEntry& f = files[i];
    if (covered[i]) {
      continue;
    }
    if (f.overridden) {
      out += "override " + hex(f.path) + " " + file_key(f) + "\n";
    }
    if (f.hunk_level && !uniform_hunks(f)) {
      for (const auto& h : f.hunks) {
        if (h.decision != Decision::Undecided) {
          out += "hunk " + hex(f.path) + " " + h.key() + " " + static_cast<char>(h.decision) + "\n";
        }
      }
    } else if (whole_decision(f) != Decision::Undecided) {
      out += "file " + hex(f.path) + " " + file_key(f) + " " +
             static_cast<char>(whole_decision(f)) + "\n";
    }
  }
  return out;
}

size_t ReviewModel::restore(std::string_view saved, bool same_review_only) {
  std::istringstream in{std::string(saved)};
  std::string line;
  if (!std::getline(in, line) || line.rfind(k_magic, 0) != 0) {
    return 0;
  }
  std::string id = line.substr(std::string(k_magic).size());
  if (!id.empty() && id[0] == ' ') {
    id.erase(0, 1);
  }
  if (same_review_only && id != m_review.id) {
    return 0;
  }
  auto& files = m_review.files;
  std::unordered_map<std::string_view, size_t> by_path;
  by_path.reserve(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    by_path.emplace(files[i].path, i);
  }
  size_t restored = 0;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string what, path_hex, key, decision, over;
    words >> what >> path_hex >> key >> decision >> over;
    std::string path = unhex(path_hex);
    Decision d = parse_decision(decision);
    if (what == "dir") {
      std::string prefix = path + "/";
      std::vector<size_t> members;
      for (size_t i = 0; i < files.size(); ++i) {
        if (files[i].path.compare(0, prefix.size(), prefix) == 0) {
          members.push_back(i);
        }
      }
      if (members.empty() || members_key(files, members) != key) {
        continue;
      }
      for (size_t i : members) {
        FileEntry& f = files[i];
        f.overridden = f.overridden || (over == "o" && f.overridable);
        if (f.decidable()) {
          set_decision(f, d);
        }
      }
      restored += members.size();
      continue;
    }
    auto it = by_path.find(path);
    if (it == by_path.end()) {
      continue;
    }
    size_t fi = it->second;
    FileEntry* f = &files[fi];
    if (what == "split" || what == "hunk") {
      ensure_loaded(fi); // hunks are known by their keys
    }
    if (what == "split") {
      for (size_t h = 0; h < f->hunks.size(); ++h) {
        if (f->hunks[h].key() == key) {
          split(fi, h);
          break;
        }
      }
    } else if (what == "override" && f->overridable && file_key(*f) == key) {
      f->overridden = true;
      ++restored;
    } else if (what == "hunk" && f->hunk_level) {
      for (auto& h : f->hunks) {
        if (h.key() == key) {
          h.decision = d;
          ++restored;
        }
      }
    } else if (what == "file" && file_key(*f) == key) {
      set_decision(*f, d);
      ++restored;
    }
  }
  rebuild_rows();
  return restored;
}

} // namespace ws::tui
