// Saving and restoring the person's decisions, so a crash or Ctrl-C loses nothing.
#include "tui/hunks.hpp"
#include "tui/review_model.hpp"

#include <sstream>

namespace ws::tui {

namespace {

constexpr const char* k_magic = "ws-review 1";

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

/// A non-hunk-level file's decision is kept only for the same content.
std::string file_key(const FileEntry& f) {
  uint64_t h = fnv1a(f.old_path + '\0' + f.path + '\0' + f.status + f.identity);
  for (const auto& hunk : f.hunks) {
    h = fnv1a(hunk.key(), h);
  }
  return hex64(h);
}

} // namespace

std::string ReviewModel::save() const {
  std::string out = std::string(k_magic) + " " + m_review.id + "\n";
  for (const auto& [path, key] : m_splits) {
    out += "split " + hex(path) + " " + key + "\n";
  }
  for (const auto& f : m_review.files) {
    if (f.overridden) {
      out += "override " + hex(f.path) + " " + file_key(f) + "\n";
    }
    if (f.hunk_level) {
      for (const auto& h : f.hunks) {
        if (h.decision != Decision::Undecided) {
          out += "hunk " + hex(f.path) + " " + h.key() + " " + static_cast<char>(h.decision) + "\n";
        }
      }
    } else if (f.decision != Decision::Undecided) {
      out += "file " + hex(f.path) + " " + file_key(f) + " " + static_cast<char>(f.decision) + "\n";
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
  auto find_file = [&](const std::string& path) -> FileEntry* {
    for (auto& f : m_review.files) {
      if (f.path == path) {
        return &f;
      }
    }
    return nullptr;
  };
  size_t restored = 0;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string what, path_hex, key, decision;
    words >> what >> path_hex >> key >> decision;
    FileEntry* f = find_file(unhex(path_hex));
    if (!f) {
      continue;
    }
    Decision d = decision == "a" ? Decision::Accepted : Decision::Rejected;
    if (what == "split") {
      for (size_t h = 0; h < f->hunks.size(); ++h) {
        if (f->hunks[h].key() == key) {
          split(static_cast<size_t>(f - m_review.files.data()), h);
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
    } else if (what == "file" && !f->hunk_level && file_key(*f) == key) {
      f->decision = d;
      ++restored;
    }
  }
  rebuild_rows();
  return restored;
}

} // namespace ws::tui
