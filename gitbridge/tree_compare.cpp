// Which files differ between two trees, skipping subtrees both sides share.
#include "gitbridge/tree_compare.hpp"

#include "gitbridge/git_handles.hpp"

#include <algorithm>

namespace ws::gitbridge {

namespace {

bool is_tree(const git_tree_entry* e) {
  return e && git_tree_entry_type(e) == GIT_OBJECT_TREE;
}

TreePtr subtree(git_repository* repo, const git_tree_entry* e) {
  git_tree* t = nullptr;
  git_check(git_tree_lookup(&t, repo, git_tree_entry_id(e)),
            std::string("read tree '") + git_tree_entry_name(e) + "'");
  return TreePtr(t);
}

void compare(git_repository* repo, const git_tree* a, const git_tree* b, const std::string& prefix,
             std::vector<std::string>& out);

/// One name: `x` on one side, `y` on the other (either may be null).
void compare_entry(git_repository* repo, const git_tree_entry* x, const git_tree_entry* y,
                   const std::string& path, std::vector<std::string>& out) {
  if (x && y && git_oid_equal(git_tree_entry_id(x), git_tree_entry_id(y)) &&
      git_tree_entry_filemode(x) == git_tree_entry_filemode(y)) {
    return;
  }
  bool file_x = x && !is_tree(x), file_y = y && !is_tree(y);
  if (file_x || file_y) {
    out.push_back(path);
  }
  TreePtr tx = is_tree(x) ? subtree(repo, x) : nullptr;
  TreePtr ty = is_tree(y) ? subtree(repo, y) : nullptr;
  if (tx || ty) {
    compare(repo, tx.get(), ty.get(), path + "/", out);
  }
}

void compare(git_repository* repo, const git_tree* a, const git_tree* b, const std::string& prefix,
             std::vector<std::string>& out) {
  size_t na = a ? git_tree_entrycount(a) : 0, nb = b ? git_tree_entrycount(b) : 0;
  for (size_t i = 0; i < nb; ++i) {
    const git_tree_entry* y = git_tree_entry_byindex(b, i);
    const char* name = git_tree_entry_name(y);
    const git_tree_entry* x = a ? git_tree_entry_byname(a, name) : nullptr;
    compare_entry(repo, x, y, prefix + name, out);
  }
  for (size_t i = 0; i < na; ++i) {
    const git_tree_entry* x = git_tree_entry_byindex(a, i);
    const char* name = git_tree_entry_name(x);
    if (!b || !git_tree_entry_byname(b, name)) {
      compare_entry(repo, x, nullptr, prefix + name, out);
    }
  }
}

} // namespace

std::vector<std::string> changed_files(git_repository* repo, const git_tree* a, const git_tree* b) {
  std::vector<std::string> out;
  compare(repo, a, b, "", out);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

} // namespace ws::gitbridge
