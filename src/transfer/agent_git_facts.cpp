// What the agent's git and ignore files say about a change (see agent_git_facts.hpp).
#include "src/transfer/agent_git_facts.hpp"

#include "filters/pattern.hpp"
#include "src/workspace/agent_git_state.hpp"

#include <sys/stat.h>

namespace ws {

namespace {

bool is_gitignore(const std::string& path) {
  return path == ".gitignore" ||
         (path.size() > 11 && path.compare(path.size() - 11, 11, "/.gitignore") == 0);
}

std::string dir_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

} // namespace

AgentGitFacts::AgentGitFacts(const StateSource& source, const std::vector<fuse::Change>& changes,
                             const ContentReader& reader)
    : m_reader(reader) {
  for (const auto& c : changes) {
    if (c.kind != fuse::ChangeKind::Deleted && is_gitignore(c.path) && S_ISREG(c.mode)) {
      m_ignore_files.emplace(dir_of(c.path), std::nullopt);
    }
  }
  auto start = agent_git_start(source.state);
  if (!start) {
    return;
  }
  try {
    m_git = std::make_unique<gitbridge::AgentGit>(source.state.agent_git_dir(), start->common_dir);
    m_start = start->start;
    m_start_index = start->start_index;
    m_head = m_git->head().id;
    std::vector<gitbridge::CommitInfo> dropped = m_git->dropped_from(m_start, m_head, 3);
    if (!dropped.empty() && !m_head.empty()) {
      std::string name =
          gitbridge::short_id(dropped.front().id) + " '" + dropped.front().summary() + "'";
      if (dropped.size() > 1) {
        name += " (and " + std::to_string(dropped.size() - 1) +
                (dropped.back().id.empty() ? " or more" : "") + " more)";
      }
      std::string base = m_git->merge_base(m_start, m_head);
      for (const std::string& p : m_git->changed_paths(base, m_start)) {
        m_undone.emplace(p, name);
      }
    }
  } catch (const std::exception&) {
    m_git.reset(); // an unreadable agent's git says nothing; `ws status` says it is broken
  }
}

AgentGitFacts::~AgentGitFacts() = default;

bool AgentGitFacts::ignored_by_agent(const std::string& path) {
  if (m_ignore_files.empty()) {
    return false;
  }
  for (std::string dir = dir_of(path);; dir = dir_of(dir)) {
    auto it = m_ignore_files.find(dir);
    if (it != m_ignore_files.end()) {
      if (!it->second) {
        try {
          it->second = m_reader.view(dir.empty() ? ".gitignore" : dir + "/.gitignore").content;
        } catch (const std::exception&) {
          it->second = "";
        }
      }
      std::string rel = dir.empty() ? path : path.substr(dir.size() + 1);
      if (filters::gitignore_ignores(*it->second, rel)) {
        return true;
      }
    }
    if (dir.empty()) {
      return false;
    }
  }
}

gitbridge::AgentGit::Entry AgentGitFacts::entry_of(const gitbridge::BlobSide& side) const {
  gitbridge::AgentGit::Entry e;
  if (side.present()) {
    e.id = gitbridge::blob_id(side.content);
    e.mode = static_cast<uint32_t>(side.mode);
  }
  return e;
}

void AgentGitFacts::fill(const fuse::Change& c, filters::PathFacts& f) {
  bool deleted = c.kind == fuse::ChangeKind::Deleted;
  if (!deleted && !f.tracked && !f.ignored) {
    f.ignored_by_agent = ignored_by_agent(c.path);
  }
  if (!m_git || c.kind == fuse::ChangeKind::Renamed || c.kind == fuse::ChangeKind::Added ||
      c.unseen) {
    return; // nothing stood here for its git to put back (or it never saw what stands there)
  }
  try {
    gitbridge::AgentGit::Entry in_index = m_git->entry(m_start_index, c.path);
    gitbridge::AgentGit::Entry in_head = m_git->entry(m_start, c.path);
    auto undone = m_undone.find(c.path);
    if (!deleted && in_index.mode == 0 && in_head.mode == 0 && undone == m_undone.end()) {
      return; // a file its git never had: what the agent wrote is its own
    }
    gitbridge::AgentGit::Entry agents =
        deleted ? gitbridge::AgentGit::Entry{} : entry_of(m_reader.view(c.path));
    if (undone != m_undone.end() && agents == m_git->entry(m_head, c.path) &&
        !(agents == in_head)) {
      f.undoes_commit = undone->second;
      return;
    }
    for (const auto* start : {&in_index, &in_head}) {
      if (!(agents == *start)) {
        continue;
      }
      // The agent's version is its git's starting one: a restore, not an edit. It undoes the
      // person's work if the agent first found something else there.
      bool exact = true;
      gitbridge::AgentGit::Entry first = entry_of(m_reader.base(c, exact));
      if (!(first == *start)) {
        f.restores_start = true;
      }
      return;
    }
  } catch (const std::exception&) {
    // the agent's git cannot say: the plain rules apply
  }
}

} // namespace ws
