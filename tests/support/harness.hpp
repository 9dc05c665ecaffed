#pragma once

// Test support: run real commands, make real git repositories, mount real workspaces.

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace ws::test {

struct Run {
  int status = -1; ///< exit code, or 128+signal
  std::string out;
  std::string err;
};

/// Runs `script` with /bin/sh -c in `cwd` (the test's cwd if empty); never throws.
Run sh(const std::string& script, const std::filesystem::path& cwd = {});

/// Single-quotes `s` for a shell script, any bytes included.
std::string q(const std::string& s);

/// The ws binary under test.
std::filesystem::path ws_binary();

/// A fresh directory under $TMPDIR, removed at the end unless the test failed (then its
/// path is printed so the mess can be looked at).
class TempDir {
public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return m_path; }

private:
  std::filesystem::path m_path;
};

/// A real git repository with a small committed tree:
///   README.md, src/main.c, src/util.c, src/util.h, Makefile, scripts/run.sh (+x),
///   docs/guide/intro.txt, link-to-readme -> README.md
class TestRepo {
public:
  TestRepo();
  const std::filesystem::path& path() const { return m_repo; }
  void write(const std::string& rel, const std::string& content) const;
  std::string read(const std::string& rel) const;
  /// Every object under the repository (.git included, but for ws's pins in .git/refs/ws):
  /// path, type, mode, size, content.
  std::string snapshot() const;
  /// `git add -A` and a commit with a fixed identity; fails the test if git does.
  void commit_all() const;

private:
  TempDir m_dir;
  std::filesystem::path m_repo;
};

/// A workspace of `repo` created and mounted with the real ws binary; state and runtime
/// directories are private to the test (XDG_DATA_HOME, XDG_RUNTIME_DIR). Unmounts on
/// destruction, forcefully if it must, and prints the daemon's log if anything went wrong.
class MountedWorkspace {
public:
  explicit MountedWorkspace(const TestRepo& repo, const std::string& name = "default");
  /// `prepare` runs on the private state root before `ws new` (e.g. to mount a tiny tmpfs).
  MountedWorkspace(const TestRepo& repo,
                   const std::function<void(const std::filesystem::path&)>& prepare);
  ~MountedWorkspace();
  MountedWorkspace(const MountedWorkspace&) = delete;
  MountedWorkspace& operator=(const MountedWorkspace&) = delete;

  const std::filesystem::path& view() const { return m_view; }
  const std::filesystem::path& state_root() const { return m_state.path(); }
  std::filesystem::path state_dir() const;
  /// Runs `ws ARGS` in the real repository with this workspace selected.
  Run ws(const std::string& args) const;
  /// The shell words that run this workspace's ws from anywhere (e.g. from inside the view).
  std::string ws_command() const;
  /// Runs a shell script inside the view.
  Run in_view(const std::string& script) const;
  void mount();
  void unmount();
  int daemon_pid() const;
  std::string daemon_log() const;

private:
  void create();
  const TestRepo& m_repo;
  std::string m_name;
  TempDir m_state;
  std::filesystem::path m_view;
  bool m_mounted = false;
};

/// True when something (a dangling symlink too) stands at `p`.
bool lexists(const std::filesystem::path& p);

/// How many fds process `pid` has open (/proc/PID/fd): a leak shows as growth.
int open_fds(int pid);

/// True when this process can mount FUSE; otherwise `why` says what is missing.
bool fuse_usable(std::string& why);

} // namespace ws::test

namespace ws::test {

/// `git status --porcelain --untracked-files=all --ignored` of the real tree: every path that
/// differs from HEAD, untracked and ignored files included, odd names quoted as git does.
std::string git_status(const TestRepo& repo);

/// The tree at `root` without `.git`: type, permissions, size, link target and a content
/// hash per object, for comparing two trees.
std::string tree_listing(const std::filesystem::path& root);

/// One change as `ws diff --json` reports it; paths are raw bytes.
struct JsonChange {
  std::string status, path, from, verdict, reason;
  bool transfers = false;
};
/// The changes of `ws diff --json ARGS` (parsed with python3).
std::vector<JsonChange> diff_changes(const MountedWorkspace& w, const std::string& args = "");
/// "VERDICT: REASON" (or "VERDICT" with no reason) of `path` in `ws diff --json ARGS`; "" when
/// it is not a change.
std::string verdict_of(const MountedWorkspace& w, const std::string& path,
                       const std::string& args = "");

} // namespace ws::test
