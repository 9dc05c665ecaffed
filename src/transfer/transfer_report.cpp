#include "src/transfer/transfer_report.hpp"

#include "filters/fold.hpp"
#include "src/cli/text.hpp"

#include <sys/stat.h>

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

/// Paths this many columns or fewer are never cut to fit a line.
constexpr size_t k_shortest_cut = 24;

/// Paths wider than this are not aligned with the others (they would push every line right).
constexpr size_t k_widest_column = 50;

/// The rows as lines, aligned; each at most `max_width` columns with `prefix` before it.
std::vector<std::string> aligned(const std::vector<ReportRow>& rows, size_t prefix,
                                 size_t max_width) {
  // "  A  " before the path, two spaces between it and what is said.
  size_t room = max_width == SIZE_MAX ? SIZE_MAX : max_width - std::min(max_width, prefix + 5);
  std::vector<std::pair<std::string, std::string>> fitted; // what is shown, what is said
  fitted.reserve(rows.size());
  size_t column = 0;
  for (const auto& r : rows) {
    std::string shown = r.shown, said = r.said + r.note;
    size_t say = filters::text_width(said) + (said.empty() ? 0 : 2);
    if (room != SIZE_MAX && filters::text_width(shown) + say > room) {
      // The path gives way first, down to a readable length; then what is said, at its end
      // (the note stays: paths of another reason folded in).
      size_t keep = std::min(filters::text_width(shown),
                             std::max(k_shortest_cut, room > say ? room - say : 0));
      shown = filters::fit_middle(shown, keep);
      size_t left =
          room - std::min(room, filters::text_width(shown) + 2 + filters::text_width(r.note));
      said = r.said.empty() ? r.said : filters::fit_end(r.said, left) + r.note;
    }
    size_t width = filters::text_width(shown);
    if (width <= k_widest_column) {
      column = std::max(column, width);
    }
    fitted.emplace_back(std::move(shown), std::move(said));
  }
  std::vector<std::string> out;
  out.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& [shown, said] = fitted[i];
    size_t width = filters::text_width(shown);
    std::string line = std::string("  ") + rows[i].letter + "  " + shown;
    if (!said.empty()) {
      size_t pad = width < column ? column - width : 0;
      if (room != SIZE_MAX) {
        pad = std::min(pad, room - std::min(room, width + 2 + filters::text_width(said)));
      }
      line += std::string(pad, ' ') + "  " + said;
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
  auto before = [&](size_t a, size_t b) { return plan[a].change.path < plan[b].change.path; };
  // Plans are made in path order (the walkers' merge, merge_by_path): then one pass says so,
  // instead of a sort of 200,000 paths in every report.
  for (size_t i = 1; i < order.size(); ++i) {
    if (before(i, i - 1)) {
      std::stable_sort(order.begin(), order.end(), before);
      break;
    }
  }
  return order;
}
/// A fold's line: its pattern, its count and its reason.
ReportRow fold_row(const filters::FoldedDir& d) {
  std::string reason(d.reason);
  std::string all = filters::fold_reason(d);
  return {d.kind ? d.kind : '*', quote_path(d.shown()), filters::fold_count(d) + "  " + reason,
          all.substr(reason.size())};
}

} // namespace

PlanFolds fold_plan(const std::vector<PlannedChange>& plan, const std::vector<std::string>& reasons,
                    const std::vector<int>& group, const std::vector<bool>& held) {
  std::vector<size_t> order = path_order(plan);
  std::vector<filters::FoldItem> items;
  items.reserve(plan.size());
  for (size_t i : order) {
    std::string_view ordinary;
    std::string_view tree;
    if (held[i] && S_ISLNK(plan[i].change.mode)) {
      ordinary = filters::ordinary_in_tree(reasons[i]);
      tree = ordinary.empty() ? std::string_view() : filters::tool_tree(plan[i].change.path);
    }
    items.emplace_back(plan[i].change.path, group[i], held[i], reasons[i],
                       status_letter(plan[i].change), tree, ordinary);
  }
  PlanFolds out;
  out.dirs = filters::fold_directories(items, {}, 2, filters::k_direct_fold_min);
  std::vector<size_t> member = filters::fold_membership(out.dirs, items.size());
  out.fold_of.assign(plan.size(), SIZE_MAX);
  for (size_t k = 0; k < order.size(); ++k) {
    out.fold_of[order[k]] = member[k];
  }
  return out;
}

std::vector<ReportSection> verdict_sections(const std::vector<PlannedChange>& plan, bool fold) {
  std::vector<std::string> reasons(plan.size());
  for (size_t i = 0; i < plan.size(); ++i) {
    if (section_of(plan[i]) != k_transfer) {
      reasons[i] = shown_reason(plan[i].decision);
    }
  }
  PlanFolds folds;
  if (fold) {
    std::vector<int> group(plan.size());
    std::vector<bool> held(plan.size());
    for (size_t i = 0; i < plan.size(); ++i) {
      Section s = section_of(plan[i]);
      group[i] = s;
      // A rename folds with neither side: its line names both.
      held[i] = s >= k_included && plan[i].change.kind != fuse::ChangeKind::Renamed;
    }
    folds = fold_plan(plan, reasons, group, held);
  }
  std::vector<ReportRow> rows[k_sections];
  std::vector<bool> fold_shown(folds.dirs.size(), false);
  for (size_t i = 0; i < plan.size(); ++i) {
    Section s = section_of(plan[i]);
    if (s == k_transfer) {
      continue;
    }
    if (fold && folds.fold_of[i] != SIZE_MAX) {
      // One line, where the directory's first path would be.
      if (!fold_shown[folds.fold_of[i]]) {
        fold_shown[folds.fold_of[i]] = true;
        rows[s].push_back(fold_row(folds.dirs[folds.fold_of[i]]));
      }
      continue;
    }
    rows[s].push_back(
        {status_letter(plan[i].change), display_path(plan[i].change), reasons[i], ""});
  }
  std::vector<ReportSection> out;
  auto add = [&](Section s, const char* title, const char* colour) {
    if (!rows[s].empty()) {
      out.push_back({title, colour, std::move(rows[s])});
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
  std::vector<ReportRow> rows;
  for (size_t i = 0; i < plan.size(); ++i) {
    if (plan[i].decision.verdict != filters::Verdict::Transfer) {
      continue;
    }
    if (!folds.empty() && !folds[i].empty()) {
      auto it = fold_size.find(folds[i]);
      if (it != fold_size.end()) {
        rows.push_back(
            {'A', quote_path(folds[i]) + "/", filters::with_commas(it->second) + " new files", ""});
        fold_size.erase(it); // shown
      }
      continue;
    }
    rows.push_back({status_letter(plan[i].change), display_path(plan[i].change), "", ""});
  }
  return {"", "", std::move(rows)};
}

std::string render_sections(const std::vector<ReportSection>& sections, bool color,
                            const std::string& prefix, size_t max_lines, const std::string& more,
                            size_t max_width) {
  std::vector<size_t> wanted;
  size_t titles = 0;
  for (const auto& s : sections) {
    wanted.push_back(s.rows.size());
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
    if (s.rows.empty()) {
      continue;
    }
    if (!s.title.empty()) {
      out += prefix + (color ? s.colour : "") + s.title + (color ? k_reset : "") + "\n";
    }
    bool cut = room[k] < s.rows.size();
    size_t shown = cut ? (room[k] > 0 ? room[k] - 1 : 0) : s.rows.size();
    std::vector<ReportRow> rows(s.rows.begin(),
                                s.rows.begin() + static_cast<std::ptrdiff_t>(shown));
    for (const std::string& line : aligned(rows, filters::text_width(prefix), max_width)) {
      out += prefix + line + "\n";
    }
    if (cut) {
      out += prefix + "  ... and " + filters::with_commas(s.rows.size() - shown) + " more" +
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
