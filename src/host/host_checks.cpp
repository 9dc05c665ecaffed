// What this machine offers ws, checked (host_checks.hpp).
#include "src/host/host_checks.hpp"

#include "fuse/fuse_probe.hpp"
#include "src/cli/error.hpp"
#include "src/run/landlock.hpp"
#include "src/run/trusted_program.hpp"
#include "src/workspace/workspace.hpp"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <optional>

namespace ws {

namespace fs = std::filesystem;
using Status = HostCheck::Status;

namespace {

constexpr std::uint64_t k_gib = 1024ULL * 1024 * 1024;

struct Output {
  int status = -1; ///< exit status; -1: did not run or did not finish
  std::string text;
};

/// Runs `argv` (argv[0] a path) with stdin from /dev/null and stdout and stderr captured;
/// kills it after `timeout_ms`.
Output capture(const std::vector<std::string>& argv, int timeout_ms = 5000) {
  Output out;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    out.text = std::string("pipe: ") + std::strerror(errno);
    return out;
  }
  std::vector<char*> args;
  for (const auto& a : argv) {
    args.push_back(const_cast<char*>(a.c_str()));
  }
  args.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    int null = ::open("/dev/null", O_RDONLY);
    ::dup2(null, 0);
    ::dup2(fds[1], 1);
    ::dup2(fds[1], 2);
    ::execv(args[0], args.data());
    std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
    ::_exit(127);
  }
  ::close(fds[1]);
  if (pid < 0) {
    ::close(fds[0]);
    out.text = std::string("fork: ") + std::strerror(errno);
    return out;
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    pollfd p{fds[0], POLLIN, 0};
    if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) <= 0) {
      ::kill(pid, SIGKILL);
      out.text += "(no answer within " + std::to_string(timeout_ms / 1000) + " s)";
      break;
    }
    char buf[512];
    ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n <= 0) {
      break;
    }
    out.text.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status) && out.text.find("(no answer") == std::string::npos) {
    out.status = WEXITSTATUS(status);
  }
  while (!out.text.empty() && (out.text.back() == '\n' || out.text.back() == ' ')) {
    out.text.pop_back();
  }
  return out;
}

std::string first_line(const std::string& s) {
  return s.substr(0, s.find('\n'));
}

std::optional<long> read_sysctl(const char* path) {
  std::ifstream in(path);
  long v = 0;
  if (in >> v) {
    return v;
  }
  return std::nullopt;
}

std::string octal_mode(mode_t m) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(m & 07777));
  return buf;
}

/// The directory itself or, when it does not exist yet, the closest ancestor that does.
fs::path existing_ancestor(fs::path p) {
  std::error_code ec;
  while (!p.empty() && !fs::exists(p, ec) && p != p.parent_path()) {
    p = p.parent_path();
  }
  return p;
}

/// "55.9 GiB", or "16.0 MiB" below a GiB (not "0.0 GiB" on a nearly full disk).
std::string gib(std::uint64_t bytes) {
  char buf[32];
  if (bytes < k_gib) {
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1024 * 1024));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / k_gib);
  }
  return buf;
}

HostCheck fuse_device() {
  HostCheck c{"FUSE device", "ws mount", Status::Ok, "", ""};
  struct stat st {};
  if (::stat("/dev/fuse", &st) != 0) {
    c.status = Status::Fail;
    c.detail = std::string("/dev/fuse: ") + std::strerror(errno);
    c.fix = "sudo modprobe fuse   (in a container: give it the device, e.g. docker run "
            "--device /dev/fuse)";
    return c;
  }
  if (!S_ISCHR(st.st_mode)) {
    c.status = Status::Fail;
    c.detail = "/dev/fuse is not a character device";
    c.fix = "sudo rm /dev/fuse && sudo modprobe fuse";
    return c;
  }
  c.detail = "/dev/fuse mode " + octal_mode(st.st_mode);
  if (::access("/dev/fuse", R_OK | W_OK) != 0) {
    c.status = Status::Fail;
    c.detail += ": " + std::string(std::strerror(errno));
    c.fix = "sudo chmod 0666 /dev/fuse   (its usual mode; scripts/setup does it)";
  } else if ((st.st_mode & 0666) != 0666) {
    c.status = Status::Warn;
    c.detail += ": only root can use it";
    c.fix = "sudo chmod 0666 /dev/fuse   (its usual mode, for other users' ws mount)";
  }
  return c;
}

std::string find_fusermount() {
  for (const char* p : {"/usr/bin/fusermount3", "/bin/fusermount3", "/usr/local/bin/fusermount3"}) {
    if (::access(p, F_OK) == 0) {
      return p;
    }
  }
  return {};
}

HostCheck fusermount() {
  HostCheck c{"fusermount3", "ws mount (as a normal user)", Status::Ok, "", ""};
  std::string path = find_fusermount();
  struct stat st {};
  bool setuid_root =
      !path.empty() && ::stat(path.c_str(), &st) == 0 && st.st_uid == 0 && (st.st_mode & S_ISUID);
  if (::geteuid() == 0) {
    c.status = Status::NotNeeded;
    c.detail =
        "root mounts by itself" + (path.empty() ? std::string() : " (" + path + " is there)");
    return c;
  }
  if (path.empty()) {
    c.status = Status::Fail;
    c.detail = "not installed: a normal user cannot mount FUSE without it";
    c.fix = "sudo apt-get install fuse3";
  } else if (!setuid_root) {
    c.status = Status::Fail;
    c.detail = path + " is not setuid root (mode " + octal_mode(st.st_mode) + ")";
    c.fix = "sudo chown root:root " + path + " && sudo chmod 4755 " + path;
  } else {
    c.detail = path + ", setuid root";
  }
  return c;
}

HostCheck allow_other() {
  HostCheck c{"user_allow_other", "-", Status::NotNeeded, "", ""};
  bool set = false;
  std::ifstream in("/etc/fuse.conf");
  for (std::string line; std::getline(in, line);) {
    size_t at = line.find_first_not_of(" \t");
    if (at != std::string::npos && line.compare(at, 16, "user_allow_other") == 0) {
      set = true;
    }
  }
  c.detail = std::string(::geteuid() == 0
                             ? "root mounts with allow_other by itself (other users enter its "
                               "views as on ext4)"
                             : "a normal user's views are mounted without allow_other (only you "
                               "enter them)") +
             "; /etc/fuse.conf " + (set ? "has" : "does not have") + " it";
  return c;
}

HostCheck trial_mount(const fuse::FuseProbe& probe) {
  HostCheck c{"FUSE mount", "ws mount", Status::Ok, "", ""};
  if (probe.mounted()) {
    c.detail = "a test view mounted and unmounted: kernel FUSE protocol " +
               std::to_string(probe.proto_major) + "." + std::to_string(probe.proto_minor) +
               ", libfuse " + probe.libfuse;
    return c;
  }
  c.status = Status::Fail;
  c.detail = probe.error;
  c.fix = "fix the FUSE lines above first; in a container, also allow mounting (e.g. docker "
          "run --device /dev/fuse --cap-add SYS_ADMIN)";
  return c;
}

fuse::FuseProbe run_fuse_probe() {
  std::string dir = (fs::temp_directory_path() / "ws-probe-XXXXXX").string();
  if (!::mkdtemp(dir.data())) {
    fuse::FuseProbe p;
    p.libfuse = fuse::libfuse_version();
    p.error = "cannot make a directory to mount on: " + std::string(std::strerror(errno));
    return p;
  }
  fuse::FuseProbe p = fuse::probe_fuse(dir);
  ::rmdir(dir.c_str());
  return p;
}

/// Whether an unprivileged process may make a user namespace (as root: tried as nobody,
/// which is what bwrap needs for other users, and what an agent's session is anyway).
struct UsernsProbe {
  bool works = false;
  std::string why; ///< when it does not: errno and the sysctls that explain it
  std::string fix;
};

UsernsProbe probe_userns() {
  UsernsProbe r;
  pid_t pid = ::fork();
  if (pid == 0) {
    if (::geteuid() == 0) {
      ::setgroups(0, nullptr);
      if (::setresgid(65534, 65534, 65534) != 0 || ::setresuid(65534, 65534, 65534) != 0) {
        ::_exit(100);
      }
    }
    ::_exit(::unshare(CLONE_NEWUSER) == 0 ? 0 : (errno & 0x7f));
  }
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
    r.why = "cannot test (fork failed)";
    return r;
  }
  int code = WEXITSTATUS(status);
  if (code == 0) {
    r.works = true;
    return r;
  }
  r.why = code == 100 ? "cannot drop to nobody to test"
                      : std::string("unshare(CLONE_NEWUSER): ") + std::strerror(code);
  std::string fixes;
  auto add = [&](const std::string& why, const std::string& setting) {
    r.why += "; " + why;
    fixes += (fixes.empty() ? "" : " && ") + ("sudo sysctl -w " + setting);
  };
  if (auto v = read_sysctl("/proc/sys/kernel/unprivileged_userns_clone"); v && *v == 0) {
    add("kernel.unprivileged_userns_clone = 0", "kernel.unprivileged_userns_clone=1");
  }
  if (auto v = read_sysctl("/proc/sys/user/max_user_namespaces"); v && *v == 0) {
    add("user.max_user_namespaces = 0", "user.max_user_namespaces=15000");
  }
  if (auto v = read_sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"); v && *v) {
    add("kernel.apparmor_restrict_unprivileged_userns = 1",
        "kernel.apparmor_restrict_unprivileged_userns=0");
  }
  r.fix = fixes.empty() ? "allow unprivileged user namespaces (in a container: run it with "
                          "--security-opt seccomp=unconfined, or use ws run --no-confine)"
                        : fixes + "   (to keep it after a reboot, put the same setting in "
                                  "/etc/sysctl.d/50-ws.conf)";
  return r;
}

HostCheck user_namespaces(const UsernsProbe& p) {
  HostCheck c{"user namespaces", "ws run", Status::Ok, "", ""};
  if (p.works) {
    c.detail = "unprivileged user namespaces work";
    return c;
  }
  // Root's own sandboxes still work; other users' do not.
  c.status = ::geteuid() == 0 ? Status::Warn : Status::Fail;
  c.detail = p.why + (::geteuid() == 0 ? " (root's ws run works; other users' would not)" : "");
  c.fix = p.fix;
  return c;
}

/// A program ws runs outside the sandbox: found where it is trusted, and its version.
struct Trusted {
  std::string path;
  std::string version;
  std::string why_not; ///< when not usable
  std::string fix;
};

Trusted find_trusted(const std::string& name, const std::string& package) {
  Trusted t;
  try {
    t.path = trusted_program(name, package);
  } catch (const Error& e) {
    std::string what = e.what();
    const std::string prefix = "cannot confine the agent: ";
    t.why_not = what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what;
    t.fix = e.hint();
    // doctor is where the person already is
    if (size_t at = t.fix.find(std::string("; ") + HostError::k_doctor); at != std::string::npos) {
      t.fix.resize(at);
    }
    return t;
  }
  // "bubblewrap 0.8.0", "slirp4netns version 1.2.0": the version is the line's last word
  std::string line = first_line(capture({t.path, "--version"}, 3000).text);
  t.version = line.substr(line.find_last_of(' ') + 1);
  return t;
}

HostCheck trusted_check(const std::string& name, const std::string& needed_by, const Trusted& t) {
  HostCheck c{name, needed_by, Status::Ok, "", ""};
  if (t.path.empty()) {
    c.status = Status::Fail;
    c.detail = t.why_not;
    c.fix = t.fix;
    return c;
  }
  c.detail = t.path + " " + t.version + ", root-owned (trusted)";
  return c;
}

HostCheck trial_sandbox(const Trusted& bwrap, const UsernsProbe& userns) {
  HostCheck c{"sandbox", "ws run", Status::Ok, "", ""};
  if (bwrap.path.empty()) {
    c.status = Status::Fail;
    c.detail = "not tried: no trusted bubblewrap";
    c.fix = "see bubblewrap above";
    return c;
  }
  // The namespaces `ws run` asks bwrap for (src/run/sandbox.cpp), around /bin/true.
  Output o =
      capture({bwrap.path, "--unshare-user", "--disable-userns", "--unshare-pid", "--unshare-ipc",
               "--unshare-net", "--unshare-uts", "--unshare-cgroup-try", "--die-with-parent",
               "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--", "/bin/true"});
  if (o.status == 0) {
    c.detail = "bubblewrap built a test sandbox (user, pid, ipc, network namespaces)";
    return c;
  }
  c.status = Status::Fail;
  c.detail = "bubblewrap could not build a test sandbox: " + first_line(o.text);
  c.fix = userns.works ? "see bubblewrap's message; or run unconfined on purpose: ws run "
                         "--no-confine"
                       : userns.fix;
  return c;
}

HostCheck tun_device() {
  HostCheck c{"/dev/net/tun", "ws run --network=on (the default)", Status::Ok, "", ""};
  struct stat st {};
  if (::stat("/dev/net/tun", &st) != 0) {
    c.status = Status::Fail;
    c.detail = std::string("/dev/net/tun: ") + std::strerror(errno);
    c.fix = "sudo modprobe tun   (in a container: --device /dev/net/tun), or use ws run "
            "--network=off";
    return c;
  }
  c.detail = "mode " + octal_mode(st.st_mode);
  if (::access("/dev/net/tun", R_OK | W_OK) != 0) {
    c.status = Status::Fail;
    c.detail += ": " + std::string(std::strerror(errno));
    c.fix = "sudo chmod 0666 /dev/net/tun   (its usual mode; scripts/setup does it), or use ws "
            "run --network=off";
  }
  return c;
}

HostCheck landlock_check(int abi) {
  HostCheck c{"Landlock", "ws run (a second wall)", Status::Ok, "", ""};
  if (abi >= k_landlock_abi_with_scopes) {
    c.detail = "ABI " + std::to_string(abi) +
               ": abstract unix sockets and signals are scoped to the sandbox" +
               (abi >= k_landlock_abi_with_resolve_unix
                    ? ", and every host unix socket by path"
                    : "; host unix sockets by a relative path or in another netns stay "
                      "reachable until ABI 9 (Linux 7.1)");
    return c;
  }
  c.status = Status::Warn;
  c.detail = (abi > 0 ? "ABI " + std::to_string(abi) + " has no scopes"
                      : std::string("unavailable: ") + std::strerror(-abi)) +
             ": the namespaces alone keep the agent from the host's abstract sockets and "
             "processes";
  c.fix = abi > 0 ? "a kernel >= 6.12 adds the scopes"
                  : "boot with Landlock enabled (lsm=landlock,... on the kernel command line), "
                    "kernel >= 6.12";
  return c;
}

HostCheck directories() {
  HostCheck c{"state directories", "every command", Status::Ok, "", ""};
  fs::path data, run;
  try {
    data = data_root();
    run = runtime_root();
  } catch (const Error& e) {
    c.status = Status::Fail;
    c.detail = e.what();
    c.fix = e.hint();
    return c;
  }
  for (const fs::path& dir : {data, run}) {
    fs::path at = existing_ancestor(dir);
    if (::access(at.c_str(), W_OK | X_OK) != 0) {
      c.status = Status::Fail;
      c.detail = at.string() + " is not writable: " + std::strerror(errno);
      c.fix = dir == data ? "sudo mkdir -p " + dir.string() + " && sudo chown " +
                                std::to_string(::getuid()) + " " + dir.string() +
                                "   (or set XDG_DATA_HOME to a writable directory)"
                          : "set XDG_RUNTIME_DIR to a writable directory of yours (mode 0700)";
      return c;
    }
  }
  c.detail = "state " + data.string() + ", views " + run.string();
  return c;
}

HostCheck disk_space() {
  HostCheck c{"disk space", "ws run, ws mount (the agent's writes)", Status::Ok, "", ""};
  fs::path at;
  try {
    at = existing_ancestor(data_root());
  } catch (const Error&) {
    c.status = Status::NotNeeded;
    c.detail = "no state directory (see above)";
    return c;
  }
  struct statvfs v {};
  if (::statvfs(at.c_str(), &v) != 0) {
    c.status = Status::Warn;
    c.detail = at.string() + ": " + std::strerror(errno);
    return c;
  }
  std::uint64_t free = static_cast<std::uint64_t>(v.f_bavail) * v.f_frsize;
  c.detail = gib(free) + " free at " + at.string();
  if (free < k_gib || free < 5 * k_gib) {
    c.status = free < k_gib ? Status::Fail : Status::Warn;
    c.detail += free < k_gib ? ": the agent's writes will soon fail with ENOSPC"
                             : ": little room for the agent's writes";
    c.fix = "free space there, or keep workspaces on a larger disk: export "
            "XDG_DATA_HOME=/path/on/larger/disk";
  }
  return c;
}

HostCheck git_program() {
  HostCheck c{"git", "you and the agent, in the view", Status::Ok, "", ""};
  for (const char* p : {"/usr/bin/git", "/bin/git", "/usr/local/bin/git"}) {
    if (::access(p, X_OK) == 0) {
      c.detail = first_line(capture({p, "--version"}, 3000).text);
      return c;
    }
  }
  c.status = Status::Warn;
  c.detail = "not installed (ws itself reads repositories through libgit2)";
  c.fix = "sudo apt-get install git";
  return c;
}

} // namespace

const char* status_name(Status s) {
  switch (s) {
  case Status::Ok:
    return "ok";
  case Status::Warn:
    return "warn";
  case Status::Fail:
    return "FAIL";
  case Status::NotNeeded:
    return "--";
  }
  return "?";
}

std::vector<HostCheck> check_host() {
  std::vector<HostCheck> out;
  out.push_back(fuse_device());
  out.push_back(fusermount());
  out.push_back(allow_other());
  out.push_back(trial_mount(run_fuse_probe()));
  UsernsProbe userns = probe_userns();
  out.push_back(user_namespaces(userns));
  Trusted bwrap = find_trusted("bwrap", "bubblewrap");
  out.push_back(trusted_check("bubblewrap", "ws run", bwrap));
  out.push_back(trial_sandbox(bwrap, userns));
  out.push_back(trusted_check("slirp4netns", "ws run --network=on (the default)",
                              find_trusted("slirp4netns", "slirp4netns")));
  out.push_back(tun_device());
  out.push_back(landlock_check(landlock_abi()));
  out.push_back(directories());
  out.push_back(disk_space());
  out.push_back(git_program());
  return out;
}

std::vector<std::string> runtime_features() {
  std::vector<std::string> out;
  fuse::FuseProbe fuse = run_fuse_probe();
  out.push_back("libfuse " + fuse.libfuse + ", kernel FUSE protocol " +
                (fuse.mounted()
                     ? std::to_string(fuse.proto_major) + "." + std::to_string(fuse.proto_minor)
                     : "unknown (a test mount failed: " + fuse.error + ")"));
  int abi = landlock_abi();
  out.push_back(
      abi > 0
          ? "Landlock ABI " + std::to_string(abi) +
                (abi >= k_landlock_abi_with_resolve_unix ? " (scopes, unix sockets by path)"
                 : abi >= k_landlock_abi_with_scopes ? " (scopes; unix sockets by path need ABI 9)"
                                                     : " (no scopes)")
          : std::string("Landlock: unavailable (") + std::strerror(-abi) + ")");
  UsernsProbe userns = probe_userns();
  out.push_back(std::string("unprivileged user namespaces: ") +
                (userns.works ? "yes" : "no (" + userns.why + ")"));
  for (const auto& [name, package] :
       {std::pair{"bwrap", "bubblewrap"}, std::pair{"slirp4netns", "slirp4netns"}}) {
    Trusted t = find_trusted(name, package);
    out.push_back(std::string(package) + (t.path.empty()
                                              ? ": not usable (" + t.why_not + ")"
                                              : " " + t.version + ": " + t.path + " (trusted)"));
  }
  return out;
}

} // namespace ws
