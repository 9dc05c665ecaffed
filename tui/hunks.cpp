// Hunks as the review handles them: numbering, identity, splitting, and applying a chosen
// subset to the old text. Pure.
#include "tui/hunks.hpp"

#include "tui/review_model.hpp"

#include <algorithm>
#include <stdexcept>

namespace ws::tui {

namespace {

bool is_change(const Line& l) {
  return l.kind != Line::Kind::Context;
}

} // namespace

uint64_t fnv1a(std::string_view bytes, uint64_t h) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string hex64(uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i) {
    out[static_cast<size_t>(i)] = digits[v & 0xf];
    v >>= 4;
  }
  return out;
}

uint32_t Hunk::old_count() const {
  return static_cast<uint32_t>(std::count_if(
      lines.begin(), lines.end(), [](const Line& l) { return l.kind != Line::Kind::Added; }));
}

uint32_t Hunk::new_count() const {
  return static_cast<uint32_t>(std::count_if(
      lines.begin(), lines.end(), [](const Line& l) { return l.kind != Line::Kind::Deleted; }));
}

std::string Hunk::header() const {
  // git numbers the first line 1-based, and an empty side by the line before it.
  auto side = [](uint32_t begin, uint32_t count) {
    std::string s = std::to_string(count > 0 ? begin + 1 : begin);
    return count == 1 ? s : s + "," + std::to_string(count);
  };
  return "@@ -" + side(old_begin, old_count()) + " +" + side(new_begin, new_count()) + " @@";
}

std::string Hunk::key() const {
  uint64_t h = fnv1a(std::to_string(old_begin) + ":" + std::to_string(new_begin));
  for (const auto& l : lines) {
    h = fnv1a(std::string_view(reinterpret_cast<const char*>(&l.kind), 1), h);
    h = fnv1a(std::to_string(l.text.size()) + ":", h);
    h = fnv1a(l.text, h);
  }
  return hex64(h);
}

std::vector<Hunk> split_hunk(const Hunk& hunk) {
  // Runs of changed lines: [first, last) indices.
  std::vector<std::pair<size_t, size_t>> runs;
  for (size_t i = 0; i < hunk.lines.size();) {
    if (!is_change(hunk.lines[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < hunk.lines.size() && is_change(hunk.lines[j])) {
      ++j;
    }
    runs.emplace_back(i, j);
    i = j;
  }
  if (runs.size() < 2) {
    return {};
  }
  // Offsets of each line in the old and new file.
  std::vector<uint32_t> old_at, new_at;
  uint32_t o = hunk.old_begin, n = hunk.new_begin;
  for (const auto& l : hunk.lines) {
    old_at.push_back(o);
    new_at.push_back(n);
    o += l.kind != Line::Kind::Added ? 1 : 0;
    n += l.kind != Line::Kind::Deleted ? 1 : 0;
  }
  std::vector<Hunk> out;
  for (size_t r = 0; r < runs.size(); ++r) {
    // The context between two runs belongs to both, as `git add -p` shows it.
    size_t first = r == 0 ? 0 : runs[r - 1].second;
    size_t last = r + 1 == runs.size() ? hunk.lines.size() : runs[r + 1].first;
    Hunk sub;
    sub.old_begin = old_at[first];
    sub.new_begin = new_at[first];
    sub.lines.assign(hunk.lines.begin() + static_cast<std::ptrdiff_t>(first),
                     hunk.lines.begin() + static_cast<std::ptrdiff_t>(last));
    sub.decision = hunk.decision;
    out.push_back(std::move(sub));
  }
  return out;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    end = end == std::string_view::npos ? text.size() : end + 1;
    out.push_back(text.substr(start, end - start));
    start = end;
  }
  return out;
}

std::string apply_hunks(std::string_view before, const std::vector<Hunk>& hunks, Decision take) {
  // One edit per run of changed lines: at old line `at`, `deleted` lines go, `added` come.
  // Split hunks repeat context, so edits are made from runs, never from whole hunks.
  struct Edit {
    uint32_t at = 0;
    std::vector<const std::string*> deleted, added;
  };
  std::vector<Edit> edits;
  for (const auto& h : hunks) {
    if (h.decision != take) {
      continue;
    }
    uint32_t o = h.old_begin;
    Edit* open = nullptr;
    for (const auto& l : h.lines) {
      if (l.kind == Line::Kind::Context) {
        open = nullptr;
        ++o;
        continue;
      }
      if (!open) {
        edits.push_back(Edit{o, {}, {}});
        open = &edits.back();
      }
      if (l.kind == Line::Kind::Deleted) {
        open->deleted.push_back(&l.text);
        ++o;
      } else {
        open->added.push_back(&l.text);
      }
    }
  }
  std::stable_sort(edits.begin(), edits.end(),
                   [](const Edit& a, const Edit& b) { return a.at < b.at; });
  std::vector<std::string_view> old_lines = split_lines(before);
  std::string out;
  out.reserve(before.size());
  size_t cursor = 0;
  for (const auto& e : edits) {
    if (e.at < cursor || e.at + e.deleted.size() > old_lines.size()) {
      throw std::runtime_error("a hunk does not fit the file it was made from");
    }
    for (; cursor < e.at; ++cursor) {
      out.append(old_lines[cursor]);
    }
    for (const auto* d : e.deleted) {
      if (old_lines[cursor] != *d) {
        throw std::runtime_error("a hunk does not fit the file it was made from");
      }
      ++cursor;
    }
    for (const auto* a : e.added) {
      out.append(*a);
    }
  }
  for (; cursor < old_lines.size(); ++cursor) {
    out.append(old_lines[cursor]);
  }
  return out;
}

} // namespace ws::tui
