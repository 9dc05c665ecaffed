// The agent's commits with the policy applied per commit (see agent_commits.hpp).
#include "src/transfer/agent_commits.hpp"

#include "filters/coding_line.hpp"
#include "fuse/changes.hpp"
#include "fuse/unique_fd.hpp"
#include "gitbridge/policy_config.hpp"
#include "gitbridge/real_repo.hpp"
#include "src/cli/error.hpp"
#include "src/cli/text.hpp"
#include "src/transfer/self_run_configs.hpp"
#include "src/transfer/symlink_facts.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>

namespace ws {

namespace {

mode_t st_mode_of(uint32_t git_mode) {
  switch (git_mode) {
  case 0100644:
    return S_IFREG | 0644;
  case 0100755:
    return S_IFREG | 0755;
  case 0120000:
    return S_IFLNK | 0777;
  case 0160000:
    return S_IFDIR | 0755; // a gitlink
  default:
    return git_mode == 0 ? 0 : S_IFREG | 0644;
  }
}

filters::ChangeType type_of(char status) {
  switch (status) {
  case 'A':
    return filters::ChangeType::Added;
  case 'D':
    return filters::ChangeType::Deleted;
  case 'R':
    return filters::ChangeType::Renamed;
  case 'T':
    return filters::ChangeType::TypeChanged;
  default:
    return filters::ChangeType::Modified;
  }
}

std::string two(int v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%02d", v);
  return buf;
}

std::string zone(int offset_minutes) {
  char buf[16];
  int a = offset_minutes < 0 ? -offset_minutes : offset_minutes;
  std::snprintf(buf, sizeof buf, "%c%02d%02d", offset_minutes < 0 ? '-' : '+', a / 60, a % 60);
  return buf;
}

std::tm author_tm(const gitbridge::CommitInfo& c) {
  std::time_t t = static_cast<std::time_t>(c.author_time + int64_t{c.author_offset} * 60);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  return tm;
}

} // namespace

std::vector<std::string> PlannedCommit::left_out() const {
  std::vector<std::string> out;
  for (const auto& c : changes) {
    if (!c.transfers()) {
      out.push_back(c.change.path);
      if (c.change.status == 'R' && c.change.old_path != c.change.path) {
        out.push_back(c.change.old_path);
      }
    }
  }
  return out;
}

bool PlannedCommit::empty() const {
  return std::none_of(changes.begin(), changes.end(),
                      [](const PlannedCommitChange& c) { return c.transfers(); });
}

std::set<std::string> CommitsPlan::paths() const {
  std::set<std::string> out;
  for (const auto& pc : commits) {
    for (const auto& c : pc.changes) {
      out.insert(c.change.path);
      if (!c.change.old_path.empty()) {
        out.insert(c.change.old_path);
      }
    }
  }
  return out;
}

CommitsPlan plan_commits(const Workspace& w, const StateSource& source,
                         const std::vector<std::string>& include) {
  CommitsPlan plan;
  auto start = agent_git_start(source.state);
  if (!start) {
    throw Error("workspace '" + w.name + "' has no git of its own: it has no commits to show",
                "it was made before ws kept one; 'ws diff' shows everything the agent changed");
  }
  plan.start = *start;
  plan.git = std::make_unique<gitbridge::AgentGit>(source.state.agent_git_dir(), start->common_dir);
  plan.head = plan.git->head();
  plan.from = agent_new_from(*start, *plan.git);
  if (plan.head.id.empty()) {
    return plan;
  }
  std::vector<gitbridge::CommitInfo> commits = plan.git->commits_between(plan.from, plan.head.id);

  gitbridge::RealRepo repo(w.repo, w.layout.dir / "gitlink-cache");
  filters::PolicyConfig config =
      gitbridge::load_policy_config(repo.git_dir(), gitbridge::default_user_config_file());
  gitbridge::load_worktree_config(w.repo, config);
  // Scripts the person's own configs run by themselves: read from the real tree too.
  SelfRunConfigs self_run = read_self_run_configs(w.repo, w.layout.dir / "gitlink-cache");
  config.run_by_configs = std::move(self_run.uses);
  config.run_by_name = std::move(self_run.by_name);
  fuse::UniqueFd real(::open(w.repo.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  // Every commit's changes first: a path is judged under every name a symlink gives it, the
  // person's or one the agent made in any of its commits.
  std::vector<std::vector<gitbridge::CommitChange>> changes_of;
  for (const auto& info : commits) {
    changes_of.push_back(gitbridge::commit_changes(*plan.git, info.id));
  }
  filters::SymlinkAliases aliases = symlink_aliases(
      repo,
      [&](const std::string& path) -> std::optional<std::string> {
        fuse::UniqueFd fd(fuse::open_beneath(real.get(), path, O_PATH | O_NOFOLLOW));
        char buf[4096];
        ssize_t n = fd ? ::readlinkat(fd.get(), "", buf, sizeof buf) : -1;
        return n < 0 ? std::nullopt : std::optional<std::string>(std::string(buf, size_t(n)));
      },
      changed_symlinks(changes_of));
  for (size_t k = 0; k < commits.size(); ++k) {
    auto& info = commits[k];
    if (info.parents.size() > 1 && !plan.merge) {
      plan.merge = info;
    }
    PlannedCommit pc;
    for (auto& change : changes_of[k]) {
      filters::PathFacts f;
      f.type = type_of(change.status);
      f.path = change.path;
      f.from = change.status == 'R' ? change.old_path : "";
      f.mode = st_mode_of(change.after_mode);
      f.base_mode = st_mode_of(change.before_mode);
      f.size = change.after.content.size();
      f.binary = change.after.content.substr(0, 8000).find('\0') != std::string::npos;
      f.recoded = !f.binary && filters::recoding_declaration(
                                   std::string_view(change.after.content).substr(0, 8000));
      if (change.after_mode == 0120000) {
        f.symlink_target = change.after.content;
      }
      struct stat st {};
      fuse::UniqueFd fd(fuse::open_beneath(real.get(), change.path, O_PATH | O_NOFOLLOW));
      if (fd && ::fstat(fd.get(), &st) == 0) {
        f.real_mode = st.st_mode;
        if (S_ISREG(st.st_mode) && (st.st_mode & 0111) && change.after_mode == 0100755) {
          fuse::UniqueFd rd(fuse::open_beneath(real.get(), change.path, O_RDONLY | O_NOFOLLOW));
          std::string now;
          char buf[65536];
          for (ssize_t n; rd && (n = ::read(rd.get(), buf, sizeof buf)) > 0;) {
            now.append(buf, static_cast<size_t>(n));
          }
          f.real_exec_same = now == change.after.content;
        }
      }
      f.ignored = repo.ignored(change.path);
      f.tracked = repo.tracked(change.path);
      f.gitlink = change.after_mode == 0160000 || change.before_mode == 0160000 ||
                  repo.gitlink(change.path);
      f.submodule = repo.containing_submodule(change.path);
      if (f.submodule.empty() && !f.from.empty()) {
        f.submodule = repo.containing_submodule(f.from);
      }
      f.inside_nested_repo = !f.submodule.empty();
      PlannedCommitChange p;
      p.decision = filters::decide_reachable(f, config, aliases);
      p.change = std::move(change);
      pc.changes.push_back(std::move(p));
    }
    pc.info = std::move(info);
    plan.commits.push_back(std::move(pc));
  }
  for (const auto& inc : include) {
    for (auto& pc : plan.commits) {
      for (auto& c : pc.changes) {
        bool hit = fuse::path_within(c.change.path, inc) ||
                   (!c.change.old_path.empty() && fuse::path_within(c.change.old_path, inc));
        if (hit && c.decision.verdict == filters::Verdict::Blocked) {
          throw Error("'" + c.change.path + "' cannot be included: " + c.decision.reason,
                      "paths under .git/, in nested repositories or of the workspace itself "
                      "never transfer; copy them by hand if you must");
        }
        if (hit && c.decision.verdict == filters::Verdict::Withheld) {
          c.included = true;
        }
      }
    }
  }
  return plan;
}

std::vector<RestPair> uncommitted_pairs(const CommitsPlan& commits,
                                        const std::vector<PlannedChange>& plan,
                                        const std::vector<gitbridge::FilePair>& pairs) {
  std::set<std::string> in_commits = commits.paths();
  std::vector<RestPair> out;
  size_t k = 0;
  for (size_t i = 0; i < plan.size(); ++i) {
    if (!plan[i].transfers()) {
      continue;
    }
    RestPair r{i, pairs.at(k++)};
    if (in_commits.count(r.pair.new_path) || in_commits.count(r.pair.old_path)) {
      // The commits bring it to the agent's HEAD version: what is left is from there.
      gitbridge::AgentGit::Entry e = commits.git->entry(commits.head.id, r.pair.new_path);
      r.pair.before = {};
      r.pair.old_path = r.pair.new_path;
      if (e.mode == 0100644 || e.mode == 0100755 || e.mode == 0120000) {
        r.pair.before = {static_cast<gitbridge::GitMode>(e.mode), commits.git->blob(e.id)};
      }
      r.after_commits = true;
      if (r.pair.before.mode == r.pair.after.mode &&
          r.pair.before.content == r.pair.after.content) {
        continue; // all of it is in the commits
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::string author_of(const gitbridge::CommitInfo& c) {
  return c.author_name + " <" + c.author_email + ">";
}

std::string author_date(const gitbridge::CommitInfo& c) {
  std::tm tm = author_tm(c);
  return std::to_string(tm.tm_year + 1900) + "-" + two(tm.tm_mon + 1) + "-" + two(tm.tm_mday) +
         " " + two(tm.tm_hour) + ":" + two(tm.tm_min) + ":" + two(tm.tm_sec) + " " +
         zone(c.author_offset);
}

std::string rfc2822_date(const gitbridge::CommitInfo& c) {
  static const char* days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static const char* months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  std::tm tm = author_tm(c);
  return std::string(days[tm.tm_wday]) + ", " + std::to_string(tm.tm_mday) + " " +
         months[tm.tm_mon] + " " + std::to_string(tm.tm_year + 1900) + " " + two(tm.tm_hour) + ":" +
         two(tm.tm_min) + ":" + two(tm.tm_sec) + " " + zone(c.author_offset);
}

} // namespace ws
