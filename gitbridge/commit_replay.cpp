// The agent's commits one by one, and replaying them 3-way onto another commit.
#include "gitbridge/commit_replay.hpp"

#include "gitbridge/diff_setup.hpp"
#include "gitbridge/git_handles.hpp"
#include "gitbridge/git_ids.hpp"
#include "gitbridge/tree_compare.hpp"

#include <functional>
#include <set>

namespace ws::gitbridge {

namespace {

CommitPtr lookup_commit(git_repository* repo, const std::string& id) {
  git_oid oid = parse_oid(id);
  git_commit* c = nullptr;
  git_check(git_commit_lookup(&c, repo, &oid), "read commit " + short_id(id));
  return CommitPtr(c);
}

TreePtr tree_of(const git_commit* c) {
  git_tree* t = nullptr;
  git_check(git_commit_tree(&t, c), "read the tree of " + oid_hex(git_commit_id(c)));
  return TreePtr(t);
}

BlobSide side_of(git_repository* repo, const git_diff_file& f) {
  BlobSide side;
  if (!(f.flags & GIT_DIFF_FLAG_EXISTS) || f.mode == GIT_FILEMODE_UNREADABLE) {
    return side;
  }
  if (f.mode == GIT_FILEMODE_COMMIT) {
    side.content = oid_hex(&f.id); // a gitlink: what it points at
    return side;
  }
  git_blob* b = nullptr;
  git_check(git_blob_lookup(&b, repo, &f.id), std::string("read '") + f.path + "'");
  BlobPtr blob(b);
  side.mode = static_cast<GitMode>(f.mode);
  side.content.assign(static_cast<const char*>(git_blob_rawcontent(blob.get())),
                      static_cast<size_t>(git_blob_rawsize(blob.get())));
  return side;
}

std::vector<CommitChange> diff_trees(git_repository* repo, git_tree* a, git_tree* b,
                                     bool renames = true) {
  // Only the paths that differ (found skipping shared subtrees): libgit2's diff would walk
  // every entry of both trees.
  std::vector<std::string> paths = changed_files(repo, a, b);
  if (paths.empty()) {
    return {};
  }
  std::vector<char*> specs;
  for (auto& p : paths) {
    specs.push_back(p.data());
  }
  git_diff_options opts = diff_options(GIT_DIFF_DISABLE_PATHSPEC_MATCH);
  opts.pathspec.strings = specs.data();
  opts.pathspec.count = specs.size();
  git_diff* raw = nullptr;
  git_check(git_diff_tree_to_tree(&raw, repo, a, b, &opts), "compare two trees");
  DiffPtr diff(raw);
  if (renames) {
    find_renames(diff.get(), GIT_DIFF_FIND_RENAMES, "find renames");
  }
  std::vector<CommitChange> out;
  for (size_t i = 0; i < git_diff_num_deltas(diff.get()); ++i) {
    const git_diff_delta* d = git_diff_get_delta(diff.get(), i);
    CommitChange c;
    c.status = delta_letter(d->status);
    c.old_path = d->old_file.path ? d->old_file.path : "";
    c.path = d->new_file.path ? d->new_file.path : c.old_path;
    if (d->status == GIT_DELTA_DELETED) {
      c.path = c.old_path;
    }
    c.before = side_of(repo, d->old_file);
    c.after = side_of(repo, d->new_file);
    c.before_mode = (d->old_file.flags & GIT_DIFF_FLAG_EXISTS) ? d->old_file.mode : 0;
    c.after_mode = (d->new_file.flags & GIT_DIFF_FLAG_EXISTS) ? d->new_file.mode : 0;
    out.push_back(std::move(c));
  }
  return out;
}

/// Copies into `own` (the target's object database) every object of tree `id` it lacks,
/// reading them from `from` (the agent's objects over the real ones). Children first, so a
/// tree `own` has is complete: an unchanged subtree is skipped at once, and the copy costs
/// what the agent changed, not the size of the tree.
void copy_missing(git_odb* own, git_odb* from, git_repository* from_repo, const git_oid& id) {
  if (git_odb_exists(own, &id)) {
    return;
  }
  git_odb_object* raw = nullptr;
  git_check(git_odb_read(&raw, from, &id), "read object " + oid_hex(&id));
  GitPtr<git_odb_object, git_odb_object_free> obj(raw);
  if (git_odb_object_type(obj.get()) == GIT_OBJECT_TREE) {
    git_tree* t = nullptr;
    git_check(git_tree_lookup(&t, from_repo, &id), "read tree " + oid_hex(&id));
    TreePtr tree(t);
    for (size_t i = 0; i < git_tree_entrycount(tree.get()); ++i) {
      const git_tree_entry* e = git_tree_entry_byindex(tree.get(), i);
      if (git_tree_entry_filemode(e) != GIT_FILEMODE_COMMIT) {
        copy_missing(own, from, from_repo, *git_tree_entry_id(e));
      }
    }
  }
  git_oid written;
  git_check(git_odb_write(&written, own, git_odb_object_data(obj.get()),
                          git_odb_object_size(obj.get()), git_odb_object_type(obj.get())),
            "copy object " + oid_hex(&id));
}

SignaturePtr signature_of(const git_signature* s) {
  git_signature* out = nullptr;
  git_check(git_signature_new(&out, s->name, s->email, s->when.time, s->when.offset),
            "copy a signature");
  return SignaturePtr(out);
}

} // namespace

std::vector<CommitChange> commit_changes(const AgentGit& git, const std::string& id) {
  CommitPtr c = lookup_commit(git.repo(), id);
  TreePtr tree = tree_of(c.get());
  TreePtr parent_tree;
  if (git_commit_parentcount(c.get()) > 0) {
    git_commit* p = nullptr;
    git_check(git_commit_parent(&p, c.get(), 0), "read the parent of " + short_id(id));
    CommitPtr parent(p);
    parent_tree = tree_of(parent.get());
  }
  return diff_trees(git.repo(), parent_tree.get(), tree.get());
}

std::vector<CommitChange> tree_changes(const std::filesystem::path& repo_path,
                                       const std::string& from, const std::string& to) {
  RepoPtr repo = open_repository_at(repo_path);
  TreePtr a, b;
  if (!from.empty()) {
    a = tree_of(lookup_commit(repo.get(), from).get());
  }
  if (!to.empty()) {
    b = tree_of(lookup_commit(repo.get(), to).get());
  }
  return diff_trees(repo.get(), a.get(), b.get(), false);
}

ReplayResult replay_commits(const ReplayTarget& target, const AgentGit& agent,
                            const std::vector<ReplayCommit>& commits, const std::string& onto) {
  // The target's own object database only: with the agent's objects as an alternate, a write
  // of an object they hold would be skipped (libgit2 freshens it there instead), leaving the
  // target's trees incomplete. What a commit needs is copied in first.
  RepoPtr opened;
  git_repository* repo = agent.repo(); // no target: the agent's own objects
  if (!target.repo.empty()) {
    opened = open_repository_at(target.repo);
    repo = opened.get();
  }
  git_odb* raw_own = nullptr;
  git_check(git_repository_odb(&raw_own, repo), "open the object database");
  OdbPtr own(raw_own);
  git_odb* raw_from = nullptr;
  git_check(git_repository_odb(&raw_from, agent.repo()), "open the agent's objects");
  OdbPtr from(raw_from);

  SignaturePtr person;
  if (target.person_commits) {
    git_signature* sig = nullptr;
    git_check(git_signature_default(&sig, repo), "your name and email for commits");
    person.reset(sig);
  }
  ReplayResult out;
  CommitPtr current = lookup_commit(repo, onto);
  for (size_t i = 0; i < commits.size(); ++i) {
    const ReplayCommit& rc = commits[i];
    CommitPtr c = lookup_commit(agent.repo(), rc.info.id);
    auto tree_here = [&](const git_oid* id) {
      copy_missing(own.get(), from.get(), agent.repo(), *id);
      git_tree* t = nullptr;
      git_check(git_tree_lookup(&t, repo, id), "read tree " + oid_hex(id));
      return TreePtr(t);
    };
    TreePtr theirs = tree_here(git_commit_tree_id(c.get()));
    TreePtr base;
    if (git_commit_parentcount(c.get()) > 0) {
      git_commit* p = nullptr;
      git_check(git_commit_parent(&p, c.get(), 0), "read the parent of " + short_id(rc.info.id));
      CommitPtr parent(p);
      base = tree_here(git_commit_tree_id(parent.get()));
    }
    if (!rc.exclude.empty()) {
      // Left out: each excluded path keeps its parent's entry.
      std::vector<git_tree_update> updates;
      std::vector<std::string> paths(rc.exclude.begin(), rc.exclude.end());
      for (const std::string& path : paths) {
        git_tree_update u{};
        u.path = path.c_str();
        git_tree_entry* e = nullptr;
        if (base && git_tree_entry_bypath(&e, base.get(), path.c_str()) == 0) {
          u.action = GIT_TREE_UPDATE_UPSERT;
          git_oid_cpy(&u.id, git_tree_entry_id(e));
          u.filemode = git_tree_entry_filemode(e);
          git_tree_entry_free(e);
        } else {
          git_tree_entry* here = nullptr;
          if (git_tree_entry_bypath(&here, theirs.get(), path.c_str()) != 0) {
            continue; // not in the commit either
          }
          git_tree_entry_free(here);
          u.action = GIT_TREE_UPDATE_REMOVE;
        }
        updates.push_back(u);
      }
      if (!updates.empty()) {
        git_oid updated;
        git_check(
            git_tree_create_updated(&updated, repo, theirs.get(), updates.size(), updates.data()),
            "leave withheld paths out of " + short_id(rc.info.id));
        git_tree* t = nullptr;
        git_check(git_tree_lookup(&t, repo, &updated), "read a tree");
        theirs.reset(t);
      }
    }
    TreePtr ours = tree_of(current.get());
    git_merge_options opts;
    git_merge_options_init(&opts, GIT_MERGE_OPTIONS_VERSION);
    git_index* raw_index = nullptr;
    git_check(git_merge_trees(&raw_index, repo, base.get(), ours.get(), theirs.get(), &opts),
              "replay " + short_id(rc.info.id));
    IndexPtr index(raw_index);
    if (git_index_has_conflicts(index.get())) {
      std::set<std::string> paths;
      for (size_t k = 0; k < git_index_entrycount(index.get()); ++k) {
        const git_index_entry* e = git_index_get_byindex(index.get(), k);
        if (git_index_entry_is_conflict(e)) {
          paths.insert(e->path);
        }
      }
      out.failed = i;
      out.conflicts.assign(paths.begin(), paths.end());
      return out;
    }
    git_oid tree_id;
    git_check(git_index_write_tree_to(&tree_id, index.get(), repo),
              "write the tree of " + short_id(rc.info.id));
    if (git_oid_equal(&tree_id, git_tree_id(ours.get()))) {
      out.ids.emplace_back(); // nothing of it is left to land
      continue;
    }
    git_tree* t = nullptr;
    git_check(git_tree_lookup(&t, repo, &tree_id), "read a tree");
    TreePtr tree(t);
    SignaturePtr author = signature_of(git_commit_author(c.get()));
    SignaturePtr committer =
        person ? signature_of(person.get()) : signature_of(git_commit_committer(c.get()));
    const git_commit* parents[1] = {current.get()};
    git_oid new_id;
    git_check(git_commit_create(&new_id, repo, nullptr, author.get(), committer.get(),
                                git_commit_message_encoding(c.get()),
                                git_commit_message_raw(c.get()), tree.get(), 1, parents),
              "make the commit for " + short_id(rc.info.id));
    out.ids.push_back(oid_hex(&new_id));
    current = lookup_commit(repo, out.ids.back());
  }
  out.head = oid_hex(git_commit_id(current.get()));
  return out;
}

void move_ref(const std::filesystem::path& repo_path, const std::string& ref,
              const std::string& old_id, const std::string& new_id, const std::string& message) {
  RepoPtr repo = open_repository_at(repo_path);
  git_oid from = parse_oid(old_id), to = parse_oid(new_id);
  git_reference* out = nullptr;
  git_check(
      git_reference_create_matching(&out, repo.get(), ref.c_str(), &to, 1, &from, message.c_str()),
      "move " + ref + " from " + short_id(old_id) + " to " + short_id(new_id));
  git_reference_free(out);
}

std::optional<std::string> committer_problem(const std::filesystem::path& repo_path) {
  RepoPtr repo = open_repository_at(repo_path);
  git_signature* sig = nullptr;
  if (git_signature_default(&sig, repo.get()) != 0) {
    return "git does not know your name and email (user.name, user.email) for the commits";
  }
  git_signature_free(sig);
  return std::nullopt;
}

} // namespace ws::gitbridge
