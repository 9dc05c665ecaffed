#pragma once

// Which files differ between two trees, at the cost of what changed: a subtree with the same id
// on both sides is skipped whole (libgit2's tree-to-tree diff walks every entry of both trees:
// 100,000 files per commit of a large repository, `ws log --commits` over 100 commits).

#include <string>
#include <vector>

struct git_repository;
struct git_tree;

namespace ws::gitbridge {

/// Every path (files, symlinks, gitlinks: not directories) whose entry differs between trees
/// `a` and `b` (either may be null: an empty tree), sorted bytewise.
std::vector<std::string> changed_files(git_repository* repo, const git_tree* a, const git_tree* b);

} // namespace ws::gitbridge
