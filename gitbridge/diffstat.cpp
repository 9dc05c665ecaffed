// The diffstat of ws diff --stat, laid out as git's diff.c show_stats does, and the colours
// of a patch and a stat.
#include "gitbridge/diffstat.hpp"

#include "gitbridge/patch.hpp"

#include <algorithm>
#include <cstdio>

namespace ws::gitbridge {

std::string git_quoted(std::string_view path) {
  auto plain = [](unsigned char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; };
  if (std::all_of(path.begin(), path.end(), [&](char c) { return plain(c); })) {
    return std::string(path);
  }
  std::string out = "\"";
  for (char ch : path) {
    auto c = static_cast<unsigned char>(ch);
    const char* named = c == '\n'   ? "\\n"
                        : c == '\t' ? "\\t"
                        : c == '\r' ? "\\r"
                        : c == '"'  ? "\\\""
                        : c == '\\' ? "\\\\"
                                    : nullptr;
    if (named) {
      out += named;
    } else if (plain(c)) {
      out += ch;
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      out += buf;
    }
  }
  return out + '"';
}

std::string rename_name(std::string_view a, std::string_view b) {
  std::string qa = git_quoted(a), qb = git_quoted(b);
  if (qa != a || qb != b) {
    return qa + " => " + qb;
  }
  size_t pfx = 0; // up to and with the last '/' the two share from the start
  for (size_t i = 0; i < a.size() && i < b.size() && a[i] == b[i]; ++i) {
    if (a[i] == '/') {
      pfx = i + 1;
    }
  }
  // From the end, back to the last shared '/', which may be the prefix's own slash.
  size_t sfx = 0;
  size_t floor = pfx > 0 ? pfx - 1 : 0;
  for (size_t k = 1; k <= a.size() && k <= b.size(); ++k) {
    size_t ia = a.size() - k, ib = b.size() - k;
    if (ia < floor || ib < floor || a[ia] != b[ib]) {
      break;
    }
    if (a[ia] == '/') {
      sfx = k;
    }
  }
  if (pfx + sfx == 0) {
    return qa + " => " + qb;
  }
  auto mid = [&](std::string_view s) {
    return s.size() > pfx + sfx ? s.substr(pfx, s.size() - pfx - sfx) : std::string_view();
  };
  return std::string(a.substr(0, pfx)) + "{" + std::string(mid(a)) + " => " + std::string(mid(b)) +
         "}" + std::string(a.substr(a.size() - sfx));
}

namespace {

size_t digits(size_t n) {
  size_t d = 1;
  for (; n >= 10; n /= 10) {
    ++d;
  }
  return d;
}

} // namespace

std::string format_stat(const std::vector<StatRow>& rows, const std::string& summary) {
  constexpr size_t k_width = 80;
  size_t name_width = 0, max_change = 0, number_width = 0;
  size_t insertions = 0, deletions = 0;
  for (const auto& r : rows) {
    name_width = std::max(name_width, r.name.size());
    if (r.binary) {
      number_width = std::max<size_t>(number_width, 3); // "Bin"
    } else {
      max_change = std::max(max_change, r.added + r.deleted);
    }
    insertions += r.added;
    deletions += r.deleted;
  }
  number_width = std::max(number_width, digits(max_change));
  size_t graph_width = std::min(max_change, k_width);
  if (name_width + number_width + 6 + graph_width > k_width) {
    size_t graph_max = k_width * 3 / 8 > number_width + 6 ? k_width * 3 / 8 - number_width - 6 : 0;
    if (graph_width > graph_max) {
      graph_width = std::max<size_t>(graph_max, 6);
    }
    size_t rest = k_width - number_width - 6 - graph_width;
    if (name_width > rest) {
      name_width = rest;
    } else {
      graph_width = k_width - number_width - 6 - name_width;
    }
  }
  // git's scale_linear: a change of any size shows at least one mark.
  auto scale = [&](size_t n) { return n == 0 ? 0 : 1 + n * (graph_width - 1) / max_change; };
  std::string out;
  for (const auto& r : rows) {
    std::string name = r.name;
    if (name.size() > name_width) {
      // "..." and the end of the name, from a directory boundary where there is one.
      std::string tail = name.substr(name.size() - (name_width - 3));
      size_t slash = tail.find('/');
      name = "..." + (slash == std::string::npos ? tail : tail.substr(slash));
    }
    out += " " + name + std::string(name_width - name.size(), ' ') + " |";
    if (r.binary) {
      out += " " + std::string(number_width - 3, ' ') + "Bin " + std::to_string(r.old_size) +
             " -> " + std::to_string(r.new_size) + " bytes\n";
      continue;
    }
    std::string n = std::to_string(r.added + r.deleted);
    out += " " + std::string(number_width - n.size(), ' ') + n;
    size_t add = r.added, del = r.deleted;
    if (graph_width <= max_change) {
      size_t total = scale(add + del);
      if (total < 2 && add > 0 && del > 0) {
        total = 2;
      }
      if (add < del) {
        add = scale(add);
        del = total - add;
      } else {
        del = scale(del);
        add = total - del;
      }
    }
    if (r.added + r.deleted > 0) {
      out += " " + std::string(add, '+') + std::string(del, '-');
    }
    out += "\n";
  }
  auto plural = [](size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  out += " " + plural(rows.size(), "file changed", "files changed");
  if (insertions > 0 || deletions == 0) {
    out += ", " + plural(insertions, "insertion(+)", "insertions(+)");
  }
  if (deletions > 0 || insertions == 0) {
    out += ", " + plural(deletions, "deletion(-)", "deletions(-)");
  }
  return out + "\n" + summary;
}

std::string summary_lines(char status, uint32_t old_mode, uint32_t new_mode,
                          std::string_view old_path, std::string_view path, int similarity) {
  auto mode = [](uint32_t m) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%06o", m);
    return std::string(buf);
  };
  std::string out;
  if (status == 'A') {
    out += " create mode " + mode(new_mode) + " " + git_quoted(path) + "\n";
  } else if (status == 'D') {
    out += " delete mode " + mode(old_mode) + " " + git_quoted(old_path) + "\n";
  } else if (status == 'R') {
    out += " rename " + rename_name(old_path, path) + " (" + std::to_string(similarity) + "%)\n";
  }
  if ((status == 'M' || status == 'R') && old_mode != new_mode) {
    out +=
        " mode change " + mode(old_mode) + " => " + mode(new_mode) + " " + git_quoted(path) + "\n";
  }
  return out;
}

namespace {
constexpr const char* k_bold = "\033[1m";
constexpr const char* k_cyan = "\033[36m";
constexpr const char* k_red = "\033[31m";
constexpr const char* k_green = "\033[32m";
constexpr const char* k_reset = "\033[m";

template <class F> std::string map_lines(const std::string& text, F&& colour_of) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    std::string_view line(text.data() + start,
                          (end == std::string::npos ? text.size() : end) - start);
    if (const char* c = colour_of(line)) {
      out.append(c).append(line).append(k_reset);
    } else {
      out.append(line);
    }
    if (end == std::string::npos) {
      break;
    }
    out.push_back('\n');
    start = end + 1;
  }
  return out;
}
} // namespace

std::string colorize_patch(const std::string& text) {
  bool in_header = false;
  return map_lines(text, [&](std::string_view line) -> const char* {
    if (line.starts_with("diff --git ")) {
      in_header = true;
      return k_bold;
    }
    if (line.starts_with("@@")) {
      in_header = false;
      return k_cyan;
    }
    if (in_header) {
      return k_bold;
    }
    if (line.starts_with("+")) {
      return k_green;
    }
    if (line.starts_with("-")) {
      return k_red;
    }
    return nullptr;
  });
}

std::string colorize_stat(const std::string& stat) {
  std::string out;
  // The graph follows the LAST '|' of a line: a file name may hold '|', '+' and '-'.
  size_t line_start = 0;
  size_t bar = std::string::npos;
  for (size_t i = 0; i < stat.size(); ++i) {
    char c = stat[i];
    if (i == line_start) {
      size_t end = stat.find('\n', i);
      size_t found = stat.rfind('|', end == std::string::npos ? stat.size() : end);
      bar = found != std::string::npos && found >= line_start ? found : std::string::npos;
      line_start = end == std::string::npos ? stat.size() : end + 1;
    }
    bool graph = bar != std::string::npos && i > bar && i < line_start;
    if (graph && (c == '+' || c == '-')) {
      out.append(c == '+' ? k_green : k_red).push_back(c);
      out.append(k_reset);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

} // namespace ws::gitbridge
