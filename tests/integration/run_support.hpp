#pragma once

// Helpers for the `ws run` tests: people who run ws (this process's user, or "nobody" when
// the tests run as root), homes and projects outside /tmp (which is private inside the
// sandbox, so anything under it would prove nothing), jobs started as a terminal starts them,
// and listeners on the host that the agent must not reach.

#include "tests/support/harness.hpp"

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace ws::test {

/// The system python: a user's shims (pyenv under /root) are out of reach for other users.
std::string py();

std::string slurp(const std::filesystem::path& p);

/// Polls for `p` for up to `tenths` tenths of a second.
bool wait_for(const std::filesystem::path& p, int tenths = 100);

/// The value of "KEY=VALUE" in `out` (one per line), or "<missing>".
std::string field(const std::string& out, const std::string& key);

/// True for the errno names a refused write may have (read-only mount, permission).
bool refused(const std::string& errname);

/// A fresh world-traversable directory (0755) under the first of `bases` where one can be made;
/// removed with everything in it at the end.
class OutsideDir {
public:
  explicit OutsideDir(const std::vector<std::string>& bases);
  ~OutsideDir();
  OutsideDir(const OutsideDir&) = delete;
  OutsideDir& operator=(const OutsideDir&) = delete;
  const std::filesystem::path& path() const { return m_path; }

private:
  std::filesystem::path m_path;
};

/// Where a directory outside /tmp goes: under /home or /srv as root, under $HOME otherwise.
std::vector<std::string> outside_tmp_bases();

/// The users a test runs as: "" (this process's user) and, when this process is root and
/// the machine has them, "nobody" (an unprivileged user).
std::vector<std::string> people();

/// Someone who runs ws: `user` "" is this process's user, any other is switched to with
/// setpriv (which execs, so a job's pid stays the command's). Owns, outside /tmp:
///   BASE/home                 its $HOME, with XDG_DATA_HOME=home/.local/share and
///                             XDG_RUNTIME_DIR=home/.run (0700)
///   BASE/work/proj/project    a committed git project (README.md, src/main.c)
///   BASE/t                    a scratch directory for the test's own files
/// Unmounts every workspace it used at the end.
class Person {
public:
  explicit Person(std::string user);
  ~Person();
  Person(const Person&) = delete;
  Person& operator=(const Person&) = delete;

  const std::string& user() const { return m_user; }
  /// For messages: "root", "nobody", or this user's name.
  std::string label() const;
  bool is_root() const;
  const std::filesystem::path& base() const { return m_base.path(); }
  std::filesystem::path home() const { return base() / "home"; }
  std::filesystem::path project() const { return base() / "work" / "proj" / "project"; }
  std::filesystem::path scratch() const { return base() / "t"; }
  std::filesystem::path data() const { return home() / ".local" / "share"; }
  std::filesystem::path runtime() const { return home() / ".run"; }

  /// The ws binary this person runs (the build's, unless a test runs a copy).
  std::filesystem::path binary;
  /// Makes `binary` a copy of ws (and ws-init beside it) owned by this person in a directory
  /// of its own (base()/bin): refusing or guarding that directory then says nothing about the
  /// build tree's.
  void use_own_ws_copy();

  /// `cmd` (a shell command line) as this person: `exec setpriv ... sh -c 'exec CMD'`.
  std::string as(const std::string& cmd) const;
  /// "env HOME=... XDG_DATA_HOME=... XDG_RUNTIME_DIR=... EXTRA ws ARGS" (not switched to the
  /// user: wrap it in as()).
  std::string ws_line(const std::string& args, const std::string& extra_env = "") const;
  /// `ws ARGS` as this person, in the project.
  Run ws(const std::string& args, const std::string& extra_env = "") const;
  /// `script` with /bin/sh as this person, in `cwd` (the project if empty).
  Run sh_as(const std::string& script, const std::filesystem::path& cwd = {}) const;
  /// Makes `p` (recursively) this person's.
  void own(const std::filesystem::path& p) const;
  /// The view of workspace `name` (mounting it if needed).
  std::filesystem::path view(const std::string& name = "default") const;
  /// The content of `rel` in the view ("<absent>" if there is none); read as this person,
  /// since another user's FUSE view is closed to root.
  std::string view_file(const std::string& rel, const std::string& name = "default") const;
  bool view_has(const std::string& rel, const std::string& name = "default") const;
  /// Polls (up to `seconds`) for `rel` in the view.
  bool wait_in_view(const std::string& rel, int seconds = 10,
                    const std::string& name = "default") const;
  /// Workspaces to unmount at the end (default is always there).
  void uses(const std::string& workspace) { m_workspaces.push_back(workspace); }

private:
  std::string m_user;
  OutsideDir m_base;
  std::vector<std::string> m_workspaces{"default"};
};

/// Starts `script` with /bin/sh in a process group of its own, as a terminal's foreground job
/// is; stdin and stdout /dev/null, stderr to `err`. Returns its pid, which is the group's id.
pid_t start_job(const std::string& script, const std::filesystem::path& cwd,
                const std::filesystem::path& err);

/// waitpid with a deadline: the exit code (128+N when killed by signal N), or -1 after
/// `seconds` (then the group is killed).
int wait_job(pid_t pid, int seconds);

/// True while `pid` runs (exists and is not a zombie).
bool alive(pid_t pid);

/// A TCP server on the host's 127.0.0.1 that greets each client with "hello" and notes it;
/// stops itself after two minutes.
class LoopbackServer {
public:
  LoopbackServer();
  ~LoopbackServer();
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;
  std::string port;
  /// How many clients it has had.
  int clients() const;

private:
  TempDir m_dir;
  pid_t m_pid = 0;
};

/// Unix socket listeners on the host (one process, two minutes at most): each NAME=ADDRESS,
/// ADDRESS a path (made connectable by anyone) or "@name" for an abstract one. Notes every
/// connection it accepts.
class UnixListeners {
public:
  explicit UnixListeners(const std::vector<std::pair<std::string, std::string>>& sockets);
  ~UnixListeners();
  UnixListeners(const UnixListeners&) = delete;
  UnixListeners& operator=(const UnixListeners&) = delete;
  bool ready() const { return m_ready; }
  /// The names of the sockets connected to so far, one a line.
  std::string accepted() const;

private:
  TempDir m_dir;
  pid_t m_pid = 0;
  bool m_ready = false;
};

/// A host service on one pathname unix socket (its own process, 90 s at most), as a daemon of
/// the machine runs one: `prefix` starts it ("unshare -n": in a network namespace of its own;
/// "" for none); it changes into `dir` and binds `name` there (relative, as postfix binds, or
/// absolute) as a `kind` ("stream" or "dgram") socket anyone may use. Notes each client or
/// datagram. Killed at the end.
class HostService {
public:
  HostService(const std::filesystem::path& dir, const std::string& name,
              const std::string& kind = "stream", const std::string& prefix = "");
  ~HostService();
  HostService(const HostService&) = delete;
  HostService& operator=(const HostService&) = delete;
  bool ready() const { return m_ready; }
  /// Whether a client connected or a datagram came since the start (or forget()).
  bool reached() const;
  /// reached(), polled for up to `tenths` tenths of a second.
  bool wait_reached(int tenths = 50) const;
  /// What came so far, a line each: "got" per connection, a datagram's bytes per datagram.
  std::string notes() const;
  /// Polls (up to `tenths` tenths of a second) until notes() is `expected`.
  bool wait_notes(const std::string& expected, int tenths = 300) const;
  void forget() const;

private:
  TempDir m_notes;
  pid_t m_pid = 0;
  bool m_ready = false;
};

/// Restores a file's mode at the end if something changed it.
class ModeGuard {
public:
  explicit ModeGuard(std::filesystem::path p);
  ~ModeGuard();
  ModeGuard(const ModeGuard&) = delete;
  ModeGuard& operator=(const ModeGuard&) = delete;
  /// The mode now (st_mode, file type bits included).
  unsigned mode() const;
  unsigned original() const { return m_mode; }

private:
  std::filesystem::path m_path;
  unsigned m_mode = 0;
};

/// The real bubblewrap (the one ws should use), resolved.
std::filesystem::path real_bwrap();

} // namespace ws::test
