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
/// The init skips the CA bundle (libgit2_init.cpp: ws never talks TLS through libgit2).
class LibGit2 {
public:
  LibGit2();
  ~LibGit2();
  LibGit2(const LibGit2&) = delete;
  LibGit2& operator=(const LibGit2&) = delete;
  /// True if this object's init did the work (no other was live).
  bool did_init() const { return m_first; }

private:
  bool m_first = false;
};

/// git_libgit2_init() without the CA bundle: for code that cannot rely on a LibGit2 in main.
/// Reference-counted as libgit2's own: returns how many inits are now live (1: this one did
/// the work).
int init_libgit2();

/// How many times an init skipped loading the CA bundle (libgit2_init.cpp): 0 means the
/// skip does not take effect with this libgit2 (another TLS backend, or symbol lookup changed).
int ca_bundle_loads_skipped();

/// The top of the working tree of the git repository containing `start` (as `git
/// rev-parse --show-toplevel`), canonical. Throws GitError if there is none or the
/// repository is bare.
std::filesystem::path find_worktree(const std::filesystem::path& start);

} // namespace ws::gitbridge
