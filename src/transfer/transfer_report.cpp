#include "src/transfer/transfer_report.hpp"

#include "filters/fold.hpp"
#include "src/cli/text.hpp"

#include <algorithm>
#include <unordered_map>

namespace ws {

char status_letter(const fuse::Change& c) {
  return static_cast<char>(c.kind);
}

std::string display_path(const fuse::Change& c) {
  if (c.kind == fuse::ChangeKind::Renamed) {
    return quote_path(c.from) + " -> " + quote_path(c.path);
  }
  return quote_path(c.path);
}

std::string shown_reason(const filters::Decision& d) {
  constexpr std::string_view prefix = "never transferred: "; // the verdict says it already
  std::string_view reason = d.reason;
  if (d.verdict == filters::Verdict::Blocked && reason.starts_with(prefix)) {
    reason.remove_prefix(prefix.size());
  }
  // Reasons quote symlink targets and names the agent chose; the policy escapes C0 controls
  // only, this the rest (C1, bidi, invalid UTF-8).
  return visible_text(reason);
}

namespace {
constexpr const char* k_yellow = "\033[33m";
constexpr const char* k_red = "\033[1;31m";
constexpr const char* k_reset = "\033[m";

enum Section { k_transfer, k_flagged, k_included, k_withheld, k_blocked, k_sections };

Section section_of(const PlannedChange& p) {
  switch (p.decision.verdict) {
  case filters::Verdict::Flagged:
    return k_flagged;
  case filters::Verdict::Withheld:
    return p.included ? k_included : k_withheld;
  case filters::Verdict::Blocked:
    return k_blocked;
  default:
    return k_transfer;
  }
}

/// One line of a section before alignment: letter, what (a path or a folded directory),
/// what to say of it.
struct Row {
  char letter;
  std::string shown;
  std::string said;
};

std::vector<std::string> aligned(const std::vector<Row>& rows) {
  size_t width = 0;
  for (const auto& r : rows) {
    width = std::max(width, r.shown.size());
  }
  width = std::min<size_t>(width, 50);
  std::vector<std::string> out;
  out.reserve(rows.size());
  for (const auto& r : rows) {
    std::string line = std::string("  ") + r.letter + "  " + r.shown;
    if (!r.said.empty()) {
      line += std::string(r.shown.size() < width ? width - r.shown.size() : 0, ' ');
      line += "  " + r.said;
    }
    out.push_back(std::move(line));
  }
  return out;
}

/// The plan's indices in path order (folding needs it; the plan is nearly always so).
std::vector<size_t> path_order(const std::vector<PlannedChange>& plan) {
  std::vector<size_t> order(plan.size());
  for (size_t i = 0; i < order.size(); ++i) {
    order[i] = i;
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return plan[a].change.path < plan[b].change.path; });
  return order;
}
} // namespace

std::vector<ReportSection> verdict_sections(const std::vector<PlannedChange>& plan, bool fold) {
  std::vector<std::string> reasons(plan.size());
  for (size_t i = 0; i < plan.size(); ++i) {
    if (section_of(plan[i]) != k_transfer) {
      reasons[i] = shown_reason(plan[i].decision);
    }
  }
  // fold_of[i]: the folded directory plan[i] is in, if any (index into dirs).
  std::vector<size_t> fold_of(plan.size(), SIZE_MAX);
  std::vector<filters::FoldedDir> dirs;
  std::vector<size_t> order;
  if (fold) {
    order = path_order(plan);
    std::vector<filters::FoldItem> items;
    items.reserve(plan.size());
    for (size_t i : order) {
      Section s = section_of(plan[i]);
      // A rename folds with neither side: its line names both.
      bool foldable = s >= k_included && plan[i].change.kind != fuse::ChangeKind::Renamed;
      items.push_back(
          {plan[i].change.path, s, foldable, reasons[i], status_letter(plan[i].change)});
    }
    dirs = filters::fold_directories(items);
    for (size_t d = 0; d < dirs.size(); ++d) {
      for (size_t k = dirs[d].begin; k < dirs[d].end; ++k) {
        fold_of[order[k]] = d;
      }
    }
  }
  std::vector<Row> rows[k_sections];
  std::vector<bool> fold_shown(dirs.size(), false);
  for (size_t i = 0; i < plan.size(); ++i) {
    Section s = section_of(plan[i]);
    if (s == k_transfer) {
      continue;
    }
    if (fold_of[i] != SIZE_MAX) {
      // One line, where the directory's first path would be.
      const filters::FoldedDir& d = dirs[fold_of[i]];
      if (!fold_shown[fold_of[i]]) {
        fold_shown[fold_of[i]] = true;
        rows[s].push_back({d.kind ? d.kind : '*', quote_path(d.dir) + "/",
                           filters::fold_count(d) + "  " + reasons[i]});
      }
      continue;
    }
    rows[s].push_back({status_letter(plan[i].change), display_path(plan[i].change), reasons[i]});
  }
  std::vector<ReportSection> out;
  auto add = [&](Section s, const char* title, const char* colour) {
    if (!rows[s].empty()) {
      out.push_back({title, colour, aligned(rows[s])});
    }
  };
  add(k_flagged,
      "FLAGGED: in the patch, and can run code on your machine; read closely:", k_yellow);
  add(k_included, "INCLUDED on your request, although withheld by default:", k_yellow);
  add(k_withheld, "WITHHELD: not in the patch (take one anyway with --include PATH):", k_red);
  add(k_blocked, "BLOCKED: never transferred:", k_red);
  return out;
}

ReportSection transfer_section(const std::vector<PlannedChange>& plan, bool fold) {
  std::vector<std::string_view> folds;
  if (fold) {
    std::vector<std::string_view> paths;
    std::vector<bool> plain;
    for (const auto& p : plan) {
      paths.push_back(p.change.path);
      plain.push_back(p.change.kind == fuse::ChangeKind::Added &&
                      p.decision.verdict == filters::Verdict::Transfer);
    }
    folds = filters::fold_new_files(paths, plain);
  }
  std::unordered_map<std::string_view, size_t> fold_size;
  for (std::string_view d : folds) {
    if (!d.empty()) {
      ++fold_size[d];
    }
  }
  std::vector<Row> rows;
  for (size_t i = 0; i < plan.size(); ++i) {
    if (plan[i].decision.verdict != filters::Verdict::Transfer) {
      continue;
    }
    if (!folds.empty() && !folds[i].empty()) {
      auto it = fold_size.find(folds[i]);
      if (it != fold_size.end()) {
        rows.push_back(
            {'A', quote_path(folds[i]) + "/", filters::with_commas(it->second) + " new files"});
        fold_size.erase(it); // shown
      }
      continue;
    }
    rows.push_back({status_letter(plan[i].change), display_path(plan[i].change), ""});
  }
  return {"", "", aligned(rows)};
}

std::string render_sections(const std::vector<ReportSection>& sections, bool color,
                            const std::string& prefix, size_t max_lines, const std::string& more) {
  std::vector<size_t> wanted;
  size_t titles = 0;
  for (const auto& s : sections) {
    wanted.push_back(s.lines.size());
    titles += s.title.empty() ? 0 : 1;
  }
  std::vector<size_t> room = wanted;
  size_t total = titles;
  for (size_t w : wanted) {
    total += w;
  }
  if (total > max_lines) {
    // Each cut section gives its last line to "... and N more".
    room = filters::share_lines(wanted, max_lines > titles ? max_lines - titles : 0);
  }
  std::string out;
  for (size_t k = 0; k < sections.size(); ++k) {
    const ReportSection& s = sections[k];
    if (s.lines.empty()) {
      continue;
    }
    if (!s.title.empty()) {
      out += prefix + (color ? s.colour : "") + s.title + (color ? k_reset : "") + "\n";
    }
    bool cut = room[k] < s.lines.size();
    size_t shown = cut ? (room[k] > 0 ? room[k] - 1 : 0) : s.lines.size();
    for (size_t i = 0; i < shown; ++i) {
      out += prefix + s.lines[i] + "\n";
    }
    if (cut) {
      out += prefix + "  ... and " + filters::with_commas(s.lines.size() - shown) + " more" +
             (more.empty() ? "" : " (" + more + ")") + "\n";
    }
  }
  return out;
}

std::string verdict_report(const std::vector<PlannedChange>& plan, bool color,
                           const std::string& prefix, bool fold) {
  return render_sections(verdict_sections(plan, fold), color, prefix);
}

std::string plan_json_entries(const std::vector<PlannedChange>& plan, const std::string& indent) {
  std::string out;
  bool first = true;
  for (const auto& p : plan) {
    out += first ? "\n" : ",\n";
    first = false;
    out += indent + "{\"status\": \"" + std::string(1, status_letter(p.change)) +
           "\", \"path\": " + json_string(p.change.path);
    if (!p.change.from.empty()) {
      out += ", \"from\": " + json_string(p.change.from);
    }
    std::string verdict = filters::verdict_name(p.decision.verdict);
    for (auto& ch : verdict) {
      ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    }
    out += ", \"verdict\": \"" + verdict + "\"";
    if (!p.decision.reason.empty()) {
      out += ", \"reason\": " + json_string(p.decision.reason);
    }
    out += std::string(", \"transfers\": ") + (p.transfers() ? "true" : "false") + "}";
  }
  return out;
}

} // namespace ws
