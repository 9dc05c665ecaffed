#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace ws::gitbridge {

/// A libgit2 failure: the operation, the path, and libgit2's message.
class GitError : public std::runtime_error {
public:
  GitError(int code, const std::string& what) : std::runtime_error(what), m_code(code) {}
  int code() const noexcept { return m_code; }

private:
  int m_code;
};

/// Initialises libgit2 for the life of the object; one in main, one in the test main.
class LibGit2 {
public:
  LibGit2();
  ~LibGit2();
  LibGit2(const LibGit2&) = delete;
  LibGit2& operator=(const LibGit2&) = delete;
};

/// The top of the working tree of the git repository containing `start` (as `git
/// rev-parse --show-toplevel`), canonical. Throws GitError if there is none or the
/// repository is bare.
std::filesystem::path find_worktree(const std::filesystem::path& start);

} // namespace ws::gitbridge
