// The workspace's private git state: made at `ws new`, its start recorded in meta.db (out of
// the agent's reach), its pins in the real repository (docs/agent-git.md).
#include "src/workspace/agent_git_state.hpp"

#include "fuse/agent_git_seed.hpp"
#include "fuse/meta_store.hpp"
#include "fuse/state_edit.hpp"
#include "fuse/unique_fd.hpp"
#include "gitbridge/config_write.hpp"
#include "gitbridge/real_pins.hpp"
#include "src/cli/error.hpp"
#include "src/cli/text.hpp"
#include "src/fsmonitor/view_git_config.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace ws {

namespace {

constexpr const char* k_pin = "git.id";
constexpr std::string_view k_start = fuse::k_git_start_keys[0];
constexpr std::string_view k_start_index = fuse::k_git_start_keys[1];
constexpr std::string_view k_start_ref = fuse::k_git_start_keys[2];
constexpr std::string_view k_base = fuse::k_git_start_keys[3];
constexpr std::string_view k_landed = fuse::k_git_start_keys[4];

std::string random_hex(size_t bytes) {
  unsigned char buf[16] = {};
  if (::getrandom(buf, bytes, 0) != static_cast<ssize_t>(bytes)) {
    for (size_t i = 0; i < bytes; ++i) {
      buf[i] = static_cast<unsigned char>(::getpid() >> (i % 4));
    }
  }
  std::string out;
  char hex[3];
  for (size_t i = 0; i < bytes; ++i) {
    std::snprintf(hex, sizeof hex, "%02x", buf[i]);
    out += hex;
  }
  return out;
}

/// `<name>-<8 hex>`: readable, and unique across the worktrees that share one repository's refs.
std::string new_pin_id(const std::string& name) {
  bool plain = name.find("..") == std::string::npos && name.back() != '.' &&
               !(name.size() >= 5 && name.compare(name.size() - 5, 5, ".lock") == 0);
  return (plain ? name : std::string("ws")) + "-" + random_hex(4);
}

std::string plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

/// A value of the agent's config to keep at a later mount: whatever it set, but a
/// `ws-fsmonitor` of another ws install (the path moves with ws).
bool keep_agents_value(const std::string& name, const std::string& value) {
  std::string_view hook = "/ws-fsmonitor";
  return name != "core.fsmonitor" ||
         !(value.size() >= hook.size() &&
           value.compare(value.size() - hook.size(), hook.size(), hook) == 0);
}

/// Sets what git in the view needs to ask the daemon what changed (docs/fsmonitor.md) in the
/// agent's config. At the seed (`fresh`) over whatever the person's config had (their own
/// fsmonitor hook would run in the sandbox, and fail there); later only where the agent did
/// not set its own. No daemon runs: nothing writes the upper layer meanwhile.
void set_view_git_config(const Workspace& w, fuse::OfflineState& state, bool fresh) {
  auto entries = view_git_config(fsmonitor_hook_program());
  std::filesystem::path config = w.layout.agent_git_config();
  struct stat git_dir {
  }, file{};
  if (entries.empty() || ::lstat(config.parent_path().c_str(), &git_dir) != 0 ||
      !S_ISDIR(git_dir.st_mode) || ::lstat(config.c_str(), &file) != 0 || !S_ISREG(file.st_mode)) {
    return; // the agent replaced its .git or its config by something else: libgit2 would
            // follow a symlink out of the workspace
  }
  try {
    auto result =
        gitbridge::set_config_defaults(config, entries, fresh ? nullptr : keep_agents_value);
    if (!result.set.empty()) {
      if (fresh) {
        fuse::adopt_agent_git_file(state.dirs(), ".git/config"); // part of making it
      }
      fuse::note_offline_edit(state.dirs(), {".git/config"}); // for the next checkpoint
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ws: warning: git status in the view will look at every file: %s\n",
                 visible_text(e.what()).c_str());
  }
}

} // namespace

void init_agent_git(const Workspace& w) {
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(w.repo / ".git", ec))) {
    return; // not a git working tree (an agent profile's config directory): no git to copy
  }
  fuse::UniqueFd lock(::open(w.layout.lock_file().c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!lock || ::flock(lock.get(), LOCK_EX | LOCK_NB) != 0) {
    return; // a daemon serves it: it has what it has
  }
  fuse::OfflineState state(w.repo, w.layout);
  if (fuse::agent_git_source(*state.dirs().meta)) {
    set_view_git_config(w, state, false);
    return;
  }
  gitbridge::RealGitDirs real = gitbridge::real_git_dirs(w.repo);
  fuse::seed_agent_git(state.dirs(), fuse::RealGitSource{real.git_dir, real.common_dir});
  if (!state.dirs().meta->info(k_pin)) {
    state.dirs().meta->set_info(k_pin, new_pin_id(w.name));
  }
  set_view_git_config(w, state, true);
  lock.reset();
  record_agent_start(w);
}

void record_agent_start(const Workspace& w) {
  fuse::MetaStore meta(w.layout.meta_db(), fuse::Db::Mode::ReadWrite);
  auto source = fuse::agent_git_source(meta);
  if (!source) {
    return;
  }
  std::string pin_id = meta.info(k_pin).value_or("");
  if (pin_id.empty()) {
    pin_id = new_pin_id(w.name);
    meta.set_info(k_pin, pin_id);
  }
  gitbridge::AgentGit git(w.layout.agent_git_dir(), source->common_dir);
  gitbridge::AgentHead head = git.head();
  std::vector<std::string> ids;
  for (const auto& [name, id] : git.refs()) {
    ids.push_back(id);
  }
  gitbridge::pin_objects(w.repo, pin_id, ids);
  std::optional<std::string> index =
      gitbridge::pin_index(w.repo, pin_id, w.layout.agent_git_dir() / "index", head.id);
  meta.set_info(k_start, head.id);
  meta.set_info(k_start_index, index.value_or(""));
  meta.set_info(k_start_ref, head.ref);
  meta.set_info(k_base, gitbridge::real_head(w.repo).id);
  meta.set_info(k_landed, "");
}

void record_agent_sync(const Workspace& w, const gitbridge::AgentHead& person) {
  fuse::MetaStore meta(w.layout.meta_db(), fuse::Db::Mode::ReadWrite);
  std::string pin_id = meta.info(k_pin).value_or("");
  if (!pin_id.empty()) {
    gitbridge::pin_objects(w.repo, pin_id, {person.id});
  }
  meta.set_info(k_start, person.id);
  meta.set_info(k_start_index, person.id); // its index is that commit's tree now
  meta.set_info(k_start_ref, person.ref);
  meta.set_info(k_base, person.id);
  meta.set_info(k_landed, "");
}

std::optional<AgentGitStart> agent_git_start(const fuse::WorkspaceLayout& state) {
  fuse::MetaStore meta(state.meta_db(), fuse::Db::Mode::ReadOnly);
  auto source = fuse::agent_git_source(meta);
  if (!source) {
    return std::nullopt;
  }
  AgentGitStart s;
  s.pin_id = meta.info(k_pin).value_or("");
  s.start = meta.info(k_start).value_or("");
  s.start_index = meta.info(k_start_index).value_or("");
  s.start_ref = meta.info(k_start_ref).value_or("");
  s.base = meta.info(k_base).value_or("");
  s.landed = meta.info(k_landed).value_or("");
  s.common_dir = source->common_dir;
  return s;
}

void set_agent_landed(const Workspace& w, const std::string& landed) {
  fuse::MetaStore meta(w.layout.meta_db(), fuse::Db::Mode::ReadWrite);
  meta.set_info(k_landed, landed);
}

std::string agent_new_from(const AgentGitStart& s, const gitbridge::AgentGit& git) {
  return !s.landed.empty() && git.has_object(s.landed) ? s.landed : s.start;
}

void pin_for(const Workspace& w, const std::vector<std::string>& ids) {
  auto start = agent_git_start(w.layout);
  if (start && !start->pin_id.empty()) {
    gitbridge::pin_objects(w.repo, start->pin_id, ids);
  }
}

void remove_agent_git_pins(const Workspace& w) {
  try {
    auto start = agent_git_start(w.layout);
    if (start && !start->pin_id.empty()) {
      gitbridge::unpin_all(w.repo, start->pin_id);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ws: warning: the workspace's refs under refs/ws/ may remain: %s\n",
                 visible_text(e.what()).c_str());
  }
}

gitbridge::AgentGit open_agent_git(const Workspace& w, const fuse::WorkspaceLayout& state) {
  auto start = agent_git_start(state);
  if (!start) {
    throw Error("workspace '" + w.name + "' has no git state of its own",
                "it was made before ws kept one: make a new workspace for the agent's git");
  }
  return gitbridge::AgentGit(state.agent_git_dir(), start->common_dir);
}

AgentGitSummary agent_git_summary(const Workspace& w) {
  AgentGitSummary s;
  auto start = agent_git_start(w.layout);
  if (!start) {
    return s;
  }
  s.present = true;
  s.start = start->start;
  s.start_ref = start->start_ref;
  s.base = start->base;
  try {
    gitbridge::AgentHead real = gitbridge::real_head(w.repo);
    s.person_head = real.id;
    s.person_ref = real.ref;
    if (s.person_moved() && !s.base.empty()) {
      s.person_ahead = gitbridge::real_count_between(w.repo, s.base, s.person_head);
    }
  } catch (const std::exception&) {
    // the real repository is what it is; the agent's line still says something
  }
  try {
    gitbridge::AgentGit git(w.layout.agent_git_dir(), start->common_dir);
    s.head = git.head();
    if (s.head.id.empty() && s.head.ref.empty()) {
      s.readable = false;
      s.problem = "its HEAD names no commit";
      return s;
    }
    s.new_from = agent_new_from(*start, git);
    std::vector<gitbridge::CommitInfo> commits = git.commits_between(s.new_from, s.head.id);
    s.commits = commits.size();
    for (const auto& c : commits) {
      s.merges = s.merges || c.parents.size() > 1;
    }
    s.dropped = git.dropped_from(s.start, s.head.id, 3);
  } catch (const std::exception& e) {
    s.readable = false;
    s.problem = e.what();
  }
  return s;
}

std::vector<std::string> agent_git_lines(const Workspace& w, const AgentGitSummary& s) {
  std::vector<std::string> out;
  if (!s.present) {
    return out;
  }
  std::string from = (s.start_ref.empty() ? std::string("a detached HEAD")
                                          : gitbridge::AgentHead{s.start_ref, ""}.branch()) +
                     (s.start.empty() ? "" : "@" + gitbridge::short_id(s.start));
  if (!s.readable) {
    out.push_back("agent: its git cannot be read (" + visible_text(s.problem) + ")");
  } else if (s.commits > 0 || s.head.id != s.new_from ||
             !s.dropped.empty()) { // an agent's git that did nothing new goes unmentioned
    std::string where = s.head.ref.empty() ? "a detached HEAD at " + gitbridge::short_id(s.head.id)
                                           : s.head.branch();
    std::string line = "agent: " + plural(s.commits, "commit", "commits") + " on " +
                       visible_text(where) + " (from " + visible_text(from) + ")";
    if (s.merges) {
      line += ", with merges";
    }
    out.push_back(line);
    if (!s.dropped.empty()) {
      size_t shown = s.dropped.back().id.empty() ? s.dropped.size() - 1 : s.dropped.size();
      std::string list;
      for (size_t i = 0; i < shown; ++i) {
        list += (i ? ", " : "") + gitbridge::short_id(s.dropped[i].id) + " " +
                quote_path(s.dropped[i].summary());
      }
      out.push_back("agent: its HEAD no longer has " +
                    std::string(s.dropped.back().id.empty() ? "more than " : "") +
                    plural(shown, "commit", "commits") + " it started with (a reset or rebase): " +
                    list + "; ws diff shows their changes undone, ws apply withholds them");
    }
  }
  if (s.person_moved()) {
    std::string wflag = w.name == "default" ? "" : " -w " + w.name;
    std::string ahead =
        s.person_ahead > 0 ? plural(s.person_ahead, "commit", "commits") + " since" : "moved since";
    out.push_back("your HEAD: " + ahead + " the workspace began (" +
                  gitbridge::short_id(s.base.empty() ? std::string("0000000") : s.base) + " -> " +
                  gitbridge::short_id(s.person_head) +
                  "); files the agent did not touch show yours (its git sees them changed); "
                  "'ws" +
                  wflag + " sync' brings its work onto yours (its commits rebased)");
  }
  return out;
}

} // namespace ws
