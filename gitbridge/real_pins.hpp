#pragma once

// The real repository's side of a workspace (docs/agent-git.md): pins under refs/ws/<id>/ that
// keep alive what the workspace depends on, and the facts of its history the transfer asks.

#include "gitbridge/agent_git.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ws::gitbridge {

/// The real repository's pins for a workspace (`refs/ws/<id>/`, docs/agent-git.md).
/// Adds `refs/ws/<id>/<oid>` for each of `ids` the real repository has (others are the
/// agent's own and need none); existing pins stay.
void pin_objects(const std::filesystem::path& worktree, const std::string& pin_id,
                 const std::vector<std::string>& ids);
/// Writes into the real repository a commit whose tree is the index in `index_file` and whose
/// parent is `head` (if any), pins it as `refs/ws/<id>/start-index`, and returns its id.
/// nullopt when the index cannot be written as a tree (unmerged entries).
std::optional<std::string> pin_index(const std::filesystem::path& worktree,
                                     const std::string& pin_id,
                                     const std::filesystem::path& index_file,
                                     const std::string& head);
/// Deletes every ref under `refs/ws/<id>/`.
void unpin_all(const std::filesystem::path& worktree, const std::string& pin_id);
/// The real repository's HEAD: its branch ref ("" when detached) and commit ("" when unborn).
AgentHead real_head(const std::filesystem::path& worktree);
/// True when `ancestor` is `descendant` or in its history (in the real repository's objects).
bool real_is_ancestor(const std::filesystem::path& worktree, const std::string& ancestor,
                      const std::string& descendant);
/// How many commits `to` has that `from` has not (real repository).
size_t real_count_between(const std::filesystem::path& worktree, const std::string& from,
                          const std::string& to);

} // namespace ws::gitbridge
