// Landlock through the kernel's own interface (linux/landlock.h, the three system calls):
// writes confined to the sandbox's writable places (ABI 2+), the scope flags (ABI 6+), and from
// ABI 9 the one file-system right that refuses host unix sockets.
#include "src/run/landlock.hpp"

#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace ws {

namespace {

// Debian 12's headers predate ABI 6; the values are the kernel's ABI (include/uapi).
constexpr std::uint64_t k_scope_abstract_unix_socket = 1ULL << 0;
constexpr std::uint64_t k_scope_signal = 1ULL << 1;
// Opening a file for writing: checked on open(), for FIFOs and device nodes too, which a
// read-only mount does not refuse (it refuses writes to regular files, directories, links).
constexpr std::uint64_t k_access_fs_write_file = 1ULL << 1;
// ABI 9 (Linux 7.1, include/uapi/linux/landlock.h): connect()/sendmsg() to a pathname unix
// socket. Handling any file-system right makes the domain refuse reparenting renames
// (LANDLOCK_ACCESS_FS_REFER is always handled then): REFER is allowed beneath / again.
constexpr std::uint64_t k_access_fs_refer = 1ULL << 13;
constexpr std::uint64_t k_access_fs_resolve_unix = 1ULL << 16;
/// The first ABI with LANDLOCK_ACCESS_FS_REFER (Linux 5.19): before it, handling any
/// file-system right refuses every rename across directories.
constexpr int k_abi_with_refer = 2;

/// struct landlock_ruleset_attr as of ABI 6 (handled_access_fs, _net, scoped). Older kernels
/// take it whole as long as the fields they do not know are zero.
struct RulesetAttr {
  std::uint64_t handled_access_fs;
  std::uint64_t handled_access_net;
  std::uint64_t scoped;
};

class Fd {
public:
  explicit Fd(long fd) : m_fd(static_cast<int>(fd)) {}
  ~Fd() {
    if (m_fd >= 0) {
      ::close(m_fd);
    }
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return m_fd; }
  int release() {
    int fd = m_fd;
    m_fd = -1;
    return fd;
  }

private:
  int m_fd;
};

bool add_rule(int ruleset, int fd, std::uint64_t access) {
  landlock_path_beneath_attr rule{access, fd};
  return ::syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) == 0;
}

/// The ruleset; -1 with errno on failure. `writes`: opening files for writing is allowed
/// beneath `writable` and on the files of fds 0-2 only. `resolve_unix`: no pathname unix
/// socket made outside the domain is reachable. `scopes`: abstract sockets and signals.
long make_ruleset(const std::vector<std::string>& writable, bool writes, bool resolve_unix,
                  bool scopes) {
  RulesetAttr attr{0, 0, scopes ? k_scope_abstract_unix_socket | k_scope_signal : 0};
  if (writes) {
    attr.handled_access_fs |= k_access_fs_write_file | k_access_fs_refer;
  }
  if (resolve_unix) {
    attr.handled_access_fs |= k_access_fs_resolve_unix | k_access_fs_refer;
  }
  Fd ruleset(::syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0));
  if (ruleset.get() < 0 || attr.handled_access_fs == 0) {
    return ruleset.release();
  }
  Fd root(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (root.get() < 0 || !add_rule(ruleset.get(), root.get(), k_access_fs_refer)) {
    return -1;
  }
  if (writes) {
    for (const auto& path : writable) {
      // A path that is not there (a tmpfs bwrap could not make) has nothing to allow.
      Fd dir(::open(path.c_str(), O_PATH | O_CLOEXEC));
      if (dir.get() >= 0 && !add_rule(ruleset.get(), dir.get(), k_access_fs_write_file)) {
        return -1;
      }
    }
    // The agent's own stdin, stdout and stderr, reopened by name (/dev/stdout, /proc/self/fd/1):
    // a file, FIFO or terminal the person gave it, at a path the sandbox may not show. Pipes
    // and sockets need no rule (they have no path); the kernel refuses rules on them.
    for (int fd = 0; fd < 3; ++fd) {
      struct stat st {};
      if (::fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode) && !S_ISSOCK(st.st_mode)) {
        add_rule(ruleset.get(), fd, k_access_fs_write_file);
      }
    }
  }
  return ruleset.release();
}

} // namespace

int landlock_abi() {
  long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi < 0 ? -errno : static_cast<int>(abi);
}

LandlockResult restrict_sandbox(const std::vector<std::string>& writable) {
  LandlockResult r;
  long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 0) {
    r.why_not = std::string("Landlock unavailable: ") + std::strerror(errno);
    return r;
  }
  r.abi = static_cast<int>(abi);
  bool scopes = abi >= k_landlock_abi_with_scopes;
  bool writes = abi >= k_abi_with_refer;
  bool resolve_unix = abi >= k_landlock_abi_with_resolve_unix;
  if (!writes) {
    r.why_not =
        "Landlock ABI " + std::to_string(abi) + " cannot confine writes (needs 2, Linux 5.19)";
    return r;
  }
  long fd = make_ruleset(writable, writes, resolve_unix, scopes);
  if (fd < 0 && resolve_unix) {
    resolve_unix = false; // the rest at least
    fd = make_ruleset(writable, writes, false, scopes);
  }
  if (fd < 0) {
    r.why_not = std::string("landlock ruleset: ") + std::strerror(errno);
    return r;
  }
  // Landlock requires no_new_privs (bwrap sets it already; this makes it explicit).
  ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  long rc = ::syscall(SYS_landlock_restrict_self, static_cast<int>(fd), 0);
  int err = errno;
  ::close(static_cast<int>(fd));
  if (rc != 0) {
    r.why_not = std::string("landlock_restrict_self: ") + std::strerror(err);
    return r;
  }
  r.writes = writes;
  r.scoped = scopes;
  r.unix_paths = resolve_unix;
  if (!scopes) {
    r.why_not = "Landlock ABI " + std::to_string(abi) + " has no scopes (needs 6, Linux 6.12)";
  }
  return r;
}

} // namespace ws
