// ws sync: brings the workspace onto the person's current HEAD (docs/transfer.md, "ws sync"):
// the agent's commits rebased onto it, each file both sides changed merged 3-way, conflicts
// listed and left as the agent had them, a checkpoint first so it is undone with `ws restore`.
#include "fuse/sqlite.hpp"
#include "gitbridge/agent_git_write.hpp"
#include "gitbridge/commit_replay.hpp"
#include "gitbridge/real_pins.hpp"
#include "src/cli/commands.hpp"
#include "src/cli/error.hpp"
#include "src/cli/text.hpp"
#include "src/daemon/daemon.hpp"
#include "src/transfer/apply_outcome.hpp"
#include "src/transfer/change_content.hpp"
#include "src/transfer/diff_result.hpp"
#include "src/workspace/agent_git_state.hpp"
#include "src/workspace/workspace_edit.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace ws {

namespace {

using gitbridge::BlobSide;

/// The `ws run` sessions of `w` still running: a session record with no end whose process
/// still runs in the pid namespace it was recorded with.
std::vector<std::string> running_sessions(const Workspace& w) {
  std::vector<std::string> out;
  std::error_code ec;
  if (!std::filesystem::exists(w.layout.journal_db(), ec)) {
    return out;
  }
  try {
    fuse::Db db(w.layout.journal_db(), fuse::Db::Mode::ReadOnly);
    fuse::Stmt st(db, "SELECT session, pid, pidns, command FROM session_spans "
                      "WHERE ended_ns IS NULL");
    while (st.step()) {
      struct stat ns {};
      std::string proc = "/proc/" + std::to_string(st.int64(1)) + "/ns/pid";
      if (::stat(proc.c_str(), &ns) == 0 && static_cast<int64_t>(ns.st_ino) == st.int64(2)) {
        out.push_back(st.text(3).empty() ? st.text(0) : st.text(3));
      }
    }
  } catch (const std::exception&) {
    // a journal made before sessions were recorded has none
  }
  return out;
}

/// Writes `content` over the file at `path` in the view (it is the agent's already: no copy-up),
/// never through a symlink, keeping its permissions but for the exec bits the merge asks for.
void write_view_file(const std::filesystem::path& mount, const std::string& path,
                     const BlobSide& content) {
  std::filesystem::path file = mount / path;
  int fd = ::open(file.c_str(), O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    throw Error("cannot write the merged version (" + path + "): " + std::strerror(errno),
                "the workspace is as it was before 'ws sync'");
  }
  struct stat st {};
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  size_t done = 0;
  while (ok && done < content.content.size()) {
    ssize_t n = ::write(fd, content.content.data() + done, content.content.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    ok = n > 0;
    done += n > 0 ? static_cast<size_t>(n) : 0;
  }
  if (ok) {
    mode_t perm = st.st_mode & 07777;
    mode_t want =
        content.mode == gitbridge::GitMode::Executable ? perm | ((perm & 0444) >> 2) : perm & ~0111;
    ok = want == perm || ::fchmod(fd, want) == 0;
  }
  int err = errno;
  ok = ::close(fd) == 0 && ok;
  if (!ok) {
    throw Error("cannot write the merged version (" + path + "): " + std::strerror(err),
                "see 'ws status'; 'ws restore' of the checkpoint 'before sync' undoes it");
  }
}

/// One file of the workspace both sides changed.
struct SyncedFile {
  std::string path;
  enum class Result { Merged, Same, Conflict, Markers } result = Result::Merged;
  std::string why;  ///< for a conflict
  BlobSide content; ///< what the workspace's version becomes (Merged, Markers)
};

const char* result_name(SyncedFile::Result r) {
  switch (r) {
  case SyncedFile::Result::Merged:
    return "merged";
  case SyncedFile::Result::Same:
    return "same";
  case SyncedFile::Result::Conflict:
    return "conflict";
  case SyncedFile::Result::Markers:
    return "markers";
  }
  return "";
}

/// `--json`'s "files": each merged file's path, result and why.
std::string files_json(const std::vector<SyncedFile>& files) {
  std::string out = "[";
  for (const auto& f : files) {
    out += (out.size() > 1 ? "," : "") + std::string("{\"path\":") + json_string(f.path) +
           ",\"result\":" + json_string(result_name(f.result)) + ",\"why\":" + json_string(f.why) +
           "}";
  }
  return out + "]";
}

/// The files to merge: every change of the workspace whose real version moved since its base
/// (withheld ones too: they stay the agent's, but should carry the person's work all the same).
std::vector<SyncedFile> merge_files(const Context& ctx, const Workspace& w, bool markers) {
  DiffResult r = compute_diff(ctx, w, {}, {}, std::nullopt, {.text = false});
  bool withheld = false;
  for (auto& p : r.plan) {
    if (p.decision.verdict == filters::Verdict::Withheld) {
      p.included = true;
      withheld = true;
    }
  }
  if (withheld) {
    r.pairs = file_pairs(w, r.source, r.plan, &r.base_exact);
  }
  ContentReader reader(w, r.source);
  std::vector<SyncedFile> out;
  size_t k = 0;
  for (const auto& p : r.plan) {
    if (!p.transfers()) {
      continue;
    }
    Outcome o = decide_change(p, r.pairs.at(k), r.base_exact.at(k), reader, nullptr);
    ++k;
    const fuse::Change& c = p.change;
    if (o.how == How::Write) {
      continue; // the person did not touch it: the agent's version stands
    }
    SyncedFile f{c.path, SyncedFile::Result::Merged, "", {}};
    if (o.how == How::AlreadyThere) {
      f.result = SyncedFile::Result::Same;
    } else if (o.how == How::Merged && c.kind != fuse::ChangeKind::Renamed &&
               o.landings.size() == 1 && o.landings[0].path == c.path &&
               o.landings[0].content.present()) {
      f.content = o.landings[0].content;
    } else if (o.how == How::Merged) {
      f.result = SyncedFile::Result::Conflict;
      f.why = "the agent renamed " + quote_path(c.from) + "; you changed it: 'ws apply' merges it";
    } else if (markers && !o.markers.empty() && c.kind == fuse::ChangeKind::Modified) {
      f.result = SyncedFile::Result::Markers;
      f.why = o.conflict;
      f.content = o.agents;
      f.content.content = o.markers;
    } else {
      f.result = SyncedFile::Result::Conflict;
      f.why = o.conflict;
    }
    out.push_back(std::move(f));
  }
  return out;
}

std::string branch_name(const std::string& ref) {
  return visible_text(gitbridge::AgentHead{ref, ""}.branch());
}

} // namespace

int cmd_sync(const Context& ctx, const SyncOptions& o) {
  Workspace w = ctx.ws();
  std::string wflag = w.name == "default" ? "" : "-w " + w.name + " ";
  auto start = agent_git_start(w.layout);
  if (!start) {
    throw Error("workspace '" + w.name + "' has no git state of its own: ws sync rebases it",
                "make a new workspace (ws new NAME); 'ws apply' merges this one's work per file");
  }
  gitbridge::AgentHead person = gitbridge::real_head(w.repo);
  if (person.ref.empty()) {
    throw Error("your HEAD is detached (at " + gitbridge::short_id(person.id) +
                    "): ws sync brings the workspace onto a branch",
                "check out your branch (git switch NAME), then ws " + wflag + "sync");
  }
  if (person.id.empty()) {
    throw Error("your branch " + branch_name(person.ref) + " has no commit yet",
                "make a first commit, then ws " + wflag + "sync");
  }
  if (person.id == start->base) { // as `git rebase` when up to date: said, not an error
    std::printf("nothing to sync: your HEAD has not moved since the workspace began (or was last "
                "synced) (%s@%s)\n",
                branch_name(person.ref).c_str(), gitbridge::short_id(person.id).c_str());
    return 0;
  }
  std::vector<std::string> sessions = running_sessions(w);
  if (!sessions.empty()) {
    throw Error("a 'ws run' session runs in workspace '" + w.name + "' (" +
                    visible_text(sessions.front()) +
                    "): ws sync rewrites the agent's files "
                    "and its git under it",
                "let the session end (or end it), then ws " + wflag + "sync");
  }
  AgentGitSummary summary = agent_git_summary(w);
  if (!summary.readable) {
    throw Error("the agent's git cannot be read: " + visible_text(summary.problem),
                "land its work as one change with 'ws " + wflag + "apply'");
  }
  if (!summary.dropped.empty()) {
    throw Error("the agent's HEAD no longer has commits it started with (a reset or rebase, "
                "e.g. " +
                    gitbridge::short_id(summary.dropped.front().id) +
                    "): a sync would bring them back",
                "land its work with 'ws " + wflag + "apply', which withholds that undoing");
  }

  // 1. The agent's commits, rebased onto the person's HEAD: objects only (written through the
  //    view into the agent's objects; in memory for --check), no ref moved yet.
  std::filesystem::path mount = ensure_mounted(w, false);
  std::filesystem::path git_dir = mount / ".git";
  gitbridge::AgentGit git(git_dir, start->common_dir);
  if (o.check) {
    git.keep_new_objects_in_memory();
  }
  gitbridge::AgentHead head = git.head();
  std::string from = agent_new_from(*start, git);
  std::vector<gitbridge::CommitInfo> commits = git.commits_between(from, head.id);
  std::vector<gitbridge::ReplayCommit> replay;
  for (const auto& c : commits) {
    if (c.parents.size() > 1) {
      throw Error("the agent's history has a merge commit, " + gitbridge::short_id(c.id) + " " +
                      quote_path(c.summary()) +
                      ": ws sync rebases a line of commits; nothing "
                      "was changed",
                  "have the agent rebase its work onto where it started (git rebase " +
                      gitbridge::short_id(from) + "), or land it with 'ws " + wflag + "apply'");
    }
    replay.push_back({c, {}});
  }
  gitbridge::ReplayResult rr;
  rr.head = person.id;
  if (!replay.empty()) {
    rr = gitbridge::replay_commits({{}, false}, git, replay, person.id);
  }
  if (rr.failed) {
    const gitbridge::CommitInfo& bad = commits[*rr.failed];
    std::string files;
    for (const auto& f : rr.conflicts) {
      files += (files.empty() ? "" : ", ") + quote_path(f);
    }
    throw Error("the agent's commit " + std::to_string(*rr.failed + 1) + " of " +
                    std::to_string(commits.size()) + ", " + gitbridge::short_id(bad.id) + " " +
                    quote_path(bad.summary()) + ", does not rebase onto your " +
                    branch_name(person.ref) + ": it conflicts in " + files +
                    "; nothing was changed",
                "land its work with 'ws " + wflag +
                    "apply' (per-file 3-way, --conflicts=markers to resolve in your tree), or "
                    "have the agent rebase it onto " +
                    gitbridge::short_id(person.id) + " itself");
  }
  // The agent's index becomes its new HEAD's tree (as after `git rebase`); read now, so a
  // problem shows before anything changed.
  gitbridge::AgentIndex index(git_dir, git, rr.head);

  // 2. The files both sides changed, merged 3-way (base: the agent's recorded base; the
  //    person's side: their working tree, which is what the view shows and apply merges with).
  std::vector<SyncedFile> files = merge_files(ctx, w, o.markers);
  size_t conflicts = 0, merged = 0;
  for (const auto& f : files) {
    conflicts +=
        f.result == SyncedFile::Result::Conflict || f.result == SyncedFile::Result::Markers ? 1 : 0;
    merged += f.result == SyncedFile::Result::Merged ? 1 : 0;
  }
  std::string ref = head.ref.empty() ? "HEAD" : head.ref;
  std::string where = head.ref.empty() ? std::string("its detached HEAD") : branch_name(head.ref);

  auto print_files = [&](FILE* out) {
    for (const auto& f : files) {
      switch (f.result) {
      case SyncedFile::Result::Merged:
        std::fprintf(out, "M  %s  (merged with yours)\n", quote_path(f.path).c_str());
        break;
      case SyncedFile::Result::Same:
        std::fprintf(out, "=  %s  (you made the same change: no longer one)\n",
                     quote_path(f.path).c_str());
        break;
      case SyncedFile::Result::Markers:
        std::fprintf(out, "C  %s  (conflict markers written: %s)\n", quote_path(f.path).c_str(),
                     visible_text(f.why).c_str());
        break;
      case SyncedFile::Result::Conflict:
        std::fprintf(out, "C  %s  (left as the agent had it: %s)\n", quote_path(f.path).c_str(),
                     visible_text(f.why).c_str());
        break;
      }
    }
  };
  if (o.check) {
    if (o.json) {
      std::printf("{\"check\":true,\"onto\":%s,\"commits\":%zu,\"files\":%s}\n",
                  json_string(person.id).c_str(), commits.size(), files_json(files).c_str());
      return conflicts > 0 ? 1 : 0;
    }
    print_files(stdout);
    std::printf("would sync onto %s@%s: %zu commit%s of the agent's rebased, %zu file%s merged, "
                "%zu conflict%s\n",
                branch_name(person.ref).c_str(), gitbridge::short_id(person.id).c_str(),
                commits.size(), commits.size() == 1 ? "" : "s", merged, merged == 1 ? "" : "s",
                conflicts, conflicts == 1 ? "" : "s");
    return conflicts > 0 ? 1 : 0;
  }

  // 3. The undo, then the changes: files, their bases, the agent's branch and index, the start.
  Checkpoint cp = create_checkpoint(w, "before sync");
  std::vector<std::string> rebased;
  for (const auto& f : files) {
    if (f.result == SyncedFile::Result::Merged || f.result == SyncedFile::Result::Markers) {
      write_view_file(mount, f.path, f.content);
    }
    if (f.result != SyncedFile::Result::Conflict) {
      rebased.push_back(f.path);
    }
  }
  rebase_changes(w, rebased);
  try {
    gitbridge::move_agent_ref(git_dir, git, ref, head.id, rr.head,
                              "rebase (ws sync): onto " + person.id);
    index.write();
  } catch (const std::exception& e) {
    throw Error(std::string("the agent's git was not moved: ") + e.what(),
                "undo the files' merge with 'ws " + wflag + "restore " + std::to_string(cp.id) +
                    "', then try again");
  }
  record_agent_sync(w, person);

  if (o.json) {
    std::printf("{\"onto\":%s,\"checkpoint\":%u,\"commits\":[", json_string(person.id).c_str(),
                cp.id);
    for (size_t i = 0; i < commits.size(); ++i) {
      std::printf("%s{\"from\":%s,\"to\":%s,\"summary\":%s}", i ? "," : "",
                  json_string(commits[i].id).c_str(), json_string(rr.ids[i]).c_str(),
                  json_string(commits[i].summary()).c_str());
    }
    std::printf("],\"files\":%s}\n", files_json(files).c_str());
    return conflicts > 0 ? 1 : 0;
  }
  print_files(stdout);
  std::printf("synced onto %s@%s: ", branch_name(person.ref).c_str(),
              gitbridge::short_id(person.id).c_str());
  if (commits.empty()) {
    std::printf("the agent's %s now starts there", visible_text(where).c_str());
  } else {
    std::printf("%zu commit%s of the agent's rebased (%s: %s -> %s)", commits.size(),
                commits.size() == 1 ? "" : "s", visible_text(where).c_str(),
                gitbridge::short_id(head.id).c_str(), gitbridge::short_id(rr.head).c_str());
  }
  std::printf(", %zu file%s merged, %zu conflict%s\n", merged, merged == 1 ? "" : "s", conflicts,
              conflicts == 1 ? "" : "s");
  if (conflicts > 0 && !o.markers) {
    std::printf("conflicts stay as the agent had them ('ws %sapply' shows them again); for "
                "markers in them instead: ws %srestore %u && ws %ssync --conflicts=markers\n",
                wflag.c_str(), wflag.c_str(), cp.id, wflag.c_str());
  }
  if (conflicts > 0 && o.markers) {
    std::printf("resolve the markers in the workspace (the agent can), then review as usual\n");
  }
  std::printf("undo with: ws %srestore %u\n", wflag.c_str(), cp.id);
  return conflicts > 0 ? 1 : 0;
}

} // namespace ws
