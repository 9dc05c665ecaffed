// The real repository's side of a workspace: the pins that keep what the workspace depends on
// alive there, and the few facts of its history the transfer asks (docs/agent-git.md).
#include "gitbridge/real_pins.hpp"

#include "gitbridge/git_handles.hpp"
#include "gitbridge/git_ids.hpp"

#include <git2/sys/mempack.h>
#include <git2/sys/repository.h>

namespace ws::gitbridge {

namespace {

using RefIterPtr = GitPtr<git_reference_iterator, git_reference_iterator_free>;

/// A workspace id can name refs under refs/ws/ (it comes from the workspace's state, but a
/// slash or `..` there would reach other refs).
bool valid_pin_id(const std::string& id) {
  int valid = 0;
  std::string name = "refs/ws/" + id + "/x";
  return git_reference_name_is_valid(&valid, name.c_str()) == 0 && valid;
}

} // namespace

void pin_objects(const std::filesystem::path& worktree, const std::string& pin_id,
                 const std::vector<std::string>& ids) {
  if (!valid_pin_id(pin_id)) {
    throw GitError(-1, "'" + pin_id + "' cannot name refs under refs/ws/");
  }
  RepoPtr repo = open_repository_at(worktree);
  git_odb* raw = nullptr;
  git_check(git_repository_odb(&raw, repo.get()),
            "open the object database of " + worktree.string());
  OdbPtr odb(raw);
  for (const std::string& id : ids) {
    if (!is_hex_id(id)) {
      continue;
    }
    git_oid oid = parse_oid(id);
    if (!git_odb_exists(odb.get(), &oid)) {
      continue; // the agent's own object: in the workspace, out of the person's gc's reach
    }
    std::string name = "refs/ws/" + pin_id + "/" + id;
    git_reference* ref = nullptr;
    if (git_reference_lookup(&ref, repo.get(), name.c_str()) == 0) {
      git_reference_free(ref);
      continue;
    }
    git_check(git_reference_create(&ref, repo.get(), name.c_str(), &oid, 1,
                                   "ws: keep what a workspace depends on"),
              "pin " + short_id(id) + " as " + name);
    git_reference_free(ref);
  }
}

std::optional<std::string> pin_index(const std::filesystem::path& worktree,
                                     const std::string& pin_id,
                                     const std::filesystem::path& index_file,
                                     const std::string& head) {
  RepoPtr repo = open_repository_at(worktree);
  git_index* raw_index = nullptr;
  if (git_index_open(&raw_index, index_file.c_str()) != 0) {
    return std::nullopt;
  }
  IndexPtr index(raw_index);
  if (git_index_has_conflicts(index.get())) {
    return std::nullopt;
  }
  // The index's tree, computed in memory first: when it is HEAD's (nothing staged, the
  // common case) HEAD's pin covers it, and nothing is written into the real repository.
  OdbPtr scratch_odb;
  {
    git_odb* s = nullptr;
    std::filesystem::path objects =
        std::filesystem::path(git_repository_commondir(repo.get())) / "objects";
    git_check(git_odb_open(&s, objects.c_str()), "open the object database");
    scratch_odb.reset(s);
    git_odb_backend* mempack = nullptr;
    git_check(git_mempack_new(&mempack), "create in-memory object store");
    // Written objects go to the first writable backend: this one (the odb owns it now).
    git_check(git_odb_add_backend(scratch_odb.get(), mempack, 1000), "attach in-memory objects");
  }
  git_repository* raw_scratch = nullptr;
  git_check(git_repository_new(&raw_scratch), "create a scratch repository");
  RepoPtr scratch(raw_scratch);
  git_check(git_repository_set_odb(scratch.get(), scratch_odb.get()), "attach object database");
  git_oid tree_id;
  if (git_index_write_tree_to(&tree_id, index.get(), scratch.get()) != 0) {
    return std::nullopt;
  }
  CommitPtr parent;
  if (!head.empty()) {
    git_oid h = parse_oid(head);
    git_commit* c = nullptr;
    if (git_commit_lookup(&c, repo.get(), &h) == 0) {
      parent.reset(c);
    }
  }
  if (parent && git_oid_equal(git_commit_tree_id(parent.get()), &tree_id)) {
    return head;
  }
  // Something staged: the tree and a commit holding it go into the real repository (read the
  // index again: the one above remembers its tree, and would not write it here).
  git_index* again = nullptr;
  if (git_index_open(&again, index_file.c_str()) != 0) {
    return std::nullopt;
  }
  index.reset(again);
  git_oid written;
  if (git_index_write_tree_to(&written, index.get(), repo.get()) != 0) {
    return std::nullopt;
  }
  git_tree* raw_tree = nullptr;
  git_check(git_tree_lookup(&raw_tree, repo.get(), &written), "read the index's tree");
  TreePtr tree(raw_tree);
  git_signature* sig_raw = nullptr;
  git_check(git_signature_new(&sig_raw, "ws", "ws@localhost", 0, 0), "make a signature");
  SignaturePtr sig(sig_raw);
  const git_commit* parents[1] = {parent.get()};
  git_oid commit_id;
  git_check(git_commit_create(&commit_id, repo.get(), nullptr, sig.get(), sig.get(), nullptr,
                              ("ws: the index workspace " + pin_id + " started with\n").c_str(),
                              tree.get(), parent ? 1 : 0, parents),
            "record the index a workspace started with");
  std::string name = "refs/ws/" + pin_id + "/start-index";
  git_reference* ref = nullptr;
  git_check(git_reference_create(&ref, repo.get(), name.c_str(), &commit_id, 1,
                                 "ws: the index a workspace started with"),
            "pin " + name);
  git_reference_free(ref);
  return oid_hex(&commit_id);
}

void unpin_all(const std::filesystem::path& worktree, const std::string& pin_id) {
  if (!valid_pin_id(pin_id)) {
    return;
  }
  RepoPtr repo = open_repository_at(worktree);
  std::string glob = "refs/ws/" + pin_id + "/*";
  git_reference_iterator* raw = nullptr;
  git_check(git_reference_iterator_glob_new(&raw, repo.get(), glob.c_str()),
            "list " + glob + " in " + worktree.string());
  RefIterPtr it(raw);
  std::vector<std::string> names;
  const char* name = nullptr;
  while (git_reference_next_name(&name, it.get()) == 0) {
    names.emplace_back(name);
  }
  for (const auto& n : names) {
    git_check(git_reference_remove(repo.get(), n.c_str()), "remove the pin " + n);
  }
}

AgentHead real_head(const std::filesystem::path& worktree) {
  RepoPtr repo = open_repository_at(worktree);
  AgentHead h;
  git_reference* raw = nullptr;
  if (git_reference_lookup(&raw, repo.get(), "HEAD") == 0) {
    ReferencePtr head(raw);
    if (git_reference_type(head.get()) == GIT_REFERENCE_SYMBOLIC) {
      h.ref = git_reference_symbolic_target(head.get());
    }
  }
  git_oid id;
  if (git_reference_name_to_id(&id, repo.get(), "HEAD") == 0) {
    h.id = oid_hex(&id);
  }
  return h;
}

bool real_is_ancestor(const std::filesystem::path& worktree, const std::string& ancestor,
                      const std::string& descendant) {
  if (ancestor == descendant) {
    return true;
  }
  if (ancestor.empty() || descendant.empty()) {
    return false;
  }
  RepoPtr repo = open_repository_at(worktree);
  git_oid a = parse_oid(ancestor), d = parse_oid(descendant);
  return git_graph_descendant_of(repo.get(), &d, &a) == 1;
}

size_t real_count_between(const std::filesystem::path& worktree, const std::string& from,
                          const std::string& to) {
  if (to.empty() || from == to) {
    return 0;
  }
  RepoPtr repo = open_repository_at(worktree);
  git_oid f = parse_oid(from.empty() ? to : from), t = parse_oid(to);
  size_t ahead = 0, behind = 0;
  if (from.empty() || git_graph_ahead_behind(&ahead, &behind, repo.get(), &t, &f) != 0) {
    return 0;
  }
  return ahead;
}

} // namespace ws::gitbridge
