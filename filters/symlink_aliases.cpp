// Judging a path under every name it will be reachable by through symlinks (see the header).
// The rule tables themselves stay name-based: this file only finds the other names.
#include "filters/symlink_aliases.hpp"

#include "filters/pattern.hpp"
#include "filters/policy_rules.hpp"

#include <fnmatch.h>
#include <sys/stat.h>

#include <algorithm>
#include <deque>
#include <set>
#include <utility>

namespace ws::filters {

namespace {

/// How many links one resolution may follow (the kernel's limit), and how many steps it may
/// take in all (a link given several targets branches).
constexpr size_t k_max_links = 40;
constexpr size_t k_max_steps = 1000;

std::string joined(const std::vector<std::string>& parts, size_t from = 0,
                   size_t to = std::string::npos) {
  std::string out;
  to = std::min(to, parts.size());
  for (size_t i = from; i < to; ++i) {
    if (!out.empty()) {
      out += '/';
    }
    out += parts[i];
  }
  return out;
}

int rank(Verdict v) {
  switch (v) {
  case Verdict::Transfer:
    return 0;
  case Verdict::Flagged:
    return 1;
  case Verdict::Withheld:
    return 2;
  case Verdict::Blocked:
    return 3;
  }
  return 3;
}

/// The change's own facts under another name: what it is (mode, size, content) stays, what
/// was learnt about the other path (ignored, tracked, submodule...) does not. A symlink's
/// target is relative to the directory it really lies in, which its own name judged.
PathFacts under_name(const PathFacts& f, std::string path) {
  PathFacts g;
  g.type = f.type;
  g.path = std::move(path);
  g.mode = f.mode;
  g.base_mode = f.base_mode;
  g.real_mode = f.real_mode;
  g.real_exec_same = f.real_exec_same;
  g.size = f.size;
  g.binary = f.binary;
  return g;
}

std::string through(const std::vector<std::string>& via) {
  std::string out = via.size() == 1 ? "the symlink " : "the symlinks ";
  for (size_t i = via.size(); i-- > 0;) {
    out += via[i];
    if (i > 0) {
      out += ", ";
    }
  }
  return out;
}

/// A name under a symlink that some rule could match: the link's last component must match
/// `before`, and `tail` is a path below the link that the rule then names.
struct Probe {
  std::string before;
  std::string tail;
  bool casefold;
};

/// One name a glob component matches: '*' as nothing (or "x" where it leads), '?' as 'x',
/// a class as its first member.
std::string instance_of(std::string_view c) {
  std::string out;
  for (size_t i = 0; i < c.size(); ++i) {
    char ch = c[i];
    if (ch == '*') {
      if (i == 0) {
        out += 'x';
      }
    } else if (ch == '?') {
      out += 'x';
    } else if (ch == '\\' && i + 1 < c.size()) {
      out += c[++i];
    } else if (ch == '[') {
      size_t j = i + 1;
      if (j < c.size() && (c[j] == '!' || c[j] == '^')) {
        out += 'x'; // a negated class: 'x' is as good a guess as any; decide() confirms
        j = c.find(']', j + 1);
      } else if (j < c.size()) {
        out += c[j];
        j = c.find(']', j + 1);
      }
      if (j == std::string_view::npos) {
        return out; // no closing ']': the rest cannot be read as a class
      }
      i = j;
    } else {
      out += ch;
    }
  }
  return out.empty() ? "x" : out;
}

void add_probes(std::string_view pattern, bool casefold, std::vector<Probe>& out) {
  std::optional<CompiledPattern> p = compile_pattern(pattern);
  if (!p || p->all) {
    return;
  }
  const auto& parts = p->parts;
  for (size_t k = 1; k <= parts.size(); ++k) {
    if (parts[k - 1] == "**") {
      continue;
    }
    std::vector<std::string> tail;
    for (size_t i = k; i < parts.size(); ++i) {
      if (parts[i] != "**") {
        tail.push_back(instance_of(parts[i]));
      }
    }
    if (p->dir_only) {
      tail.emplace_back("x");
    }
    if (!tail.empty()) {
      out.push_back({parts[k - 1], joined(tail), casefold});
    }
  }
}

const std::vector<Probe>& builtin_probes() {
  static const std::vector<Probe> probes = [] {
    std::vector<Probe> out;
    for (const PlaceRule& r : place_rules()) {
      add_probes(r.pattern, true, out);
    }
    for (auto rules : {self_running_rules(), flag_rules()}) {
      for (const NameRule& r : rules) {
        add_probes(r.pattern, true, out);
      }
    }
    // One probe per distinct (before, tail): many rules share a directory.
    std::set<std::pair<std::string, std::string>> seen;
    std::erase_if(out, [&seen](const Probe& p) {
      std::string b = p.before, t = p.tail;
      std::transform(b.begin(), b.end(), b.begin(), ::tolower);
      std::transform(t.begin(), t.end(), t.begin(), ::tolower);
      return !seen.emplace(b, t).second;
    });
    return out;
  }();
  return probes;
}

bool name_matches(const Probe& probe, const std::string& name) {
  return ::fnmatch(probe.before.c_str(), name.c_str(),
                   FNM_PATHNAME | (probe.casefold ? FNM_CASEFOLD : 0)) == 0;
}

} // namespace

SymlinkAliases::SymlinkAliases(const std::vector<SymlinkFact>& links) {
  for (const SymlinkFact& l : links) {
    auto& targets = m_targets[l.link];
    if (std::find(targets.begin(), targets.end(), l.target) == targets.end()) {
      targets.push_back(l.target);
    }
  }
  for (const SymlinkFact& l : links) {
    for (const std::string& t : resolved_target(l.link, l.target)) {
      if (t == l.link) {
        continue; // a link to itself is a loop, withheld as such
      }
      auto& at = m_by_target[t];
      Link entry{l.link, l.link + " -> " + l.target};
      if (std::none_of(at.begin(), at.end(),
                       [&](const Link& x) { return x.shown == entry.shown; })) {
        at.push_back(std::move(entry));
      }
    }
  }
}

std::vector<std::string> SymlinkAliases::resolved_target(const std::string& link,
                                                         const std::string& target) const {
  std::vector<std::string> out;
  if (target.empty() || target.front() == '/') {
    return out;
  }
  std::vector<std::string> dir = split_path(link);
  if (dir.empty()) {
    return out;
  }
  dir.pop_back();
  size_t steps = 0;
  walk(std::move(dir), split_path(target), 0, steps, out);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::string> SymlinkAliases::resolved(const std::string& link) const {
  std::vector<std::string> out;
  if (auto it = m_targets.find(link); it != m_targets.end()) {
    for (const std::string& t : it->second) {
      for (std::string& r : resolved_target(link, t)) {
        out.push_back(std::move(r));
      }
    }
  }
  return out;
}

void SymlinkAliases::walk(std::vector<std::string> parts, const std::vector<std::string>& rest,
                          size_t links, size_t& steps, std::vector<std::string>& out) const {
  for (size_t i = 0; i < rest.size(); ++i) {
    if (++steps > k_max_steps) {
      return;
    }
    const std::string& c = rest[i];
    if (c == ".") {
      continue;
    }
    if (c == "..") {
      if (parts.empty()) {
        return; // leaves the project
      }
      parts.pop_back();
      continue;
    }
    parts.push_back(c);
    auto it = m_targets.find(joined(parts));
    if (it == m_targets.end()) {
      continue;
    }
    // A link on the way: go on from where each of its targets leads.
    if (links + 1 > k_max_links) {
      return;
    }
    parts.pop_back();
    for (const std::string& t : it->second) {
      if (t.empty() || t.front() == '/') {
        continue;
      }
      std::vector<std::string> next = split_path(t);
      next.insert(next.end(), rest.begin() + static_cast<std::ptrdiff_t>(i) + 1, rest.end());
      walk(parts, next, links + 1, steps, out);
    }
    return;
  }
  out.push_back(joined(parts));
}

std::vector<AliasName> SymlinkAliases::aliases_of(std::string_view path) const {
  std::vector<AliasName> out;
  if (m_by_target.empty()) {
    return out;
  }
  std::set<std::string> seen{std::string(path)};
  struct Todo {
    std::string path;
    std::vector<std::string> via;
  };
  std::deque<Todo> todo{{std::string(path), {}}};
  while (!todo.empty() && out.size() < k_max_aliases) {
    Todo q = std::move(todo.front());
    todo.pop_front();
    if (q.via.size() >= k_max_depth) {
      continue;
    }
    std::vector<std::string> parts = split_path(q.path);
    // Each leading run of components (the top "" included) may be some link's target.
    for (size_t m = 0; m <= parts.size() && out.size() < k_max_aliases; ++m) {
      auto it = m_by_target.find(joined(parts, 0, m));
      if (it == m_by_target.end()) {
        continue;
      }
      std::string rest = joined(parts, m);
      for (const Link& l : it->second) {
        std::string alias = rest.empty() ? l.path : l.path + "/" + rest;
        if (!seen.insert(alias).second) {
          continue;
        }
        std::vector<std::string> via = q.via;
        via.push_back(l.shown);
        out.push_back({alias, via});
        todo.push_back({std::move(alias), std::move(via)});
        if (out.size() >= k_max_aliases) {
          break;
        }
      }
    }
  }
  return out;
}

Decision decide_reachable(const PathFacts& facts, const PolicyConfig& config,
                          const SymlinkAliases& aliases) {
  Decision best = decide(facts, config);
  auto consider = [&best](Decision d, const std::string& prefix) {
    if (rank(d.verdict) > rank(best.verdict)) {
      best = {d.verdict, prefix + d.reason};
    }
  };
  if (best.verdict == Verdict::Blocked) {
    return best;
  }
  // The path under its other names; a rename's old name under its own (that name goes away).
  std::vector<AliasName> names = aliases.aliases_of(facts.path);
  for (const AliasName& a : names) {
    consider(decide(under_name(facts, a.path), config), "reachable as " + shown_in_reason(a.path) +
                                                            " through " +
                                                            shown_in_reason(through(a.via)) + ": ");
  }
  if (!facts.from.empty() && facts.from != facts.path) {
    for (const AliasName& a : aliases.aliases_of(facts.from)) {
      PathFacts gone = under_name(facts, a.path);
      gone.type = ChangeType::Deleted;
      gone.mode = 0;
      consider(decide(gone, config), "was reachable as " + shown_in_reason(a.path) + " through " +
                                         shown_in_reason(through(a.via)) + ": ");
    }
  }

  // A symlink standing where a guarded place is: what tools read through it is judged as
  // that place (only if nothing stronger holds already).
  const bool deleted = facts.type == ChangeType::Deleted;
  const bool link = deleted ? S_ISLNK(facts.base_mode) : S_ISLNK(facts.mode);
  if (!link || rank(best.verdict) >= rank(Verdict::Withheld)) {
    return best;
  }
  std::vector<Probe> probes = builtin_probes();
  for (const std::string& p : config.withhold) {
    add_probes(p, false, probes);
  }
  for (const std::string& p : config.flag) {
    add_probes(p, false, probes);
  }
  if (!config.hooks_path.empty() && config.hooks_path != ".") {
    add_probes("/" + config.hooks_path + "/", true, probes);
  }
  std::vector<std::string> link_names{facts.path};
  for (const AliasName& a : names) {
    link_names.push_back(a.path);
  }
  for (const std::string& name : link_names) {
    std::vector<std::string> parts = split_path(name);
    if (parts.empty()) {
      continue;
    }
    for (const Probe& probe : probes) {
      if (!name_matches(probe, parts.back())) {
        continue;
      }
      PathFacts below;
      below.type = deleted ? ChangeType::Deleted : ChangeType::Modified;
      below.path = name + "/" + probe.tail;
      below.mode = deleted ? 0 : S_IFREG | 0644;
      below.base_mode = below.real_mode = S_IFREG | 0644;
      std::string target = deleted ? std::string() : " -> " + facts.symlink_target;
      consider(decide(below, config), "symlink " + shown_in_reason(name + target) + " stands for " +
                                          shown_in_reason(name) + "/: ");
      if (rank(best.verdict) >= rank(Verdict::Withheld)) {
        return best;
      }
    }
  }
  return best;
}

} // namespace ws::filters
