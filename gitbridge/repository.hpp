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

/// A repository git (and libgit2) refuse to open for this user: it belongs to another user
/// (git's "dubious ownership", CVE-2022-24765), and no `safe.directory` names it.
class ForeignRepository : public GitError {
public:
  ForeignRepository(std::filesystem::path top, unsigned owner, const std::string& what)
      : GitError(-36 /* GIT_EOWNER */, what), m_top(std::move(top)), m_owner(owner) {}
  /// The working tree's top: the path `safe.directory` must name.
  const std::filesystem::path& top() const { return m_top; }
  unsigned owner() const { return m_owner; }

private:
  std::filesystem::path m_top;
  unsigned m_owner;
};

/// The top of the working tree of the git repository containing `start` (as `git
/// rev-parse --show-toplevel`), canonical. Throws ForeignRepository when the repository
/// belongs to another user and is not a safe.directory, GitError if there is none or the
/// repository is bare.
std::filesystem::path find_worktree(const std::filesystem::path& start);

} // namespace ws::gitbridge
