// The bubblewrap command line of a `ws run` session: every namespace, mount, mask and bind
// of the sandbox, in the order bwrap applies them (sandbox.hpp; threat model in docs/run.md).
#include "src/run/path_set.hpp"
#include "src/run/sandbox.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace ws {

namespace fs = std::filesystem;

namespace {

/// Where pid 1's binary is mounted inside (a read-only bind of the ws binary: the agent
/// cannot change it, and no fd to the host's copy is ever inherited).
fs::path init_mount(const SandboxSpec& spec) {
  return under_any("/run", spec.host.private_dirs) ? "/run/ws/init" : "/tmp/.ws-init";
}

/// Where the sandbox's resolv.conf goes: the real file behind /etc/resolv.conf (often a
/// link into /run, which is private inside).
fs::path resolv_conf_target() {
  std::error_code ec;
  fs::path real = fs::canonical("/etc/resolv.conf", ec);
  return ec ? fs::path("/etc/resolv.conf") : real;
}

/// `--tmpfs DIR`, capped at `size` bytes (0: tmpfs's default, half the RAM).
void add_tmpfs(std::vector<std::string>& a, std::uint64_t size, const fs::path& dir) {
  if (size > 0) {
    a.insert(a.end(), {"--size", std::to_string(size)});
  }
  a.insert(a.end(), {"--tmpfs", dir.string()});
}

/// Every place inside where the agent may write: the view, the private tmpfs, /dev (its
/// null, tty, pts, shm), /proc (its own entries; a magic link there resolves to the path it
/// names, which is checked instead), --writable paths and the profile's binds.
std::vector<fs::path> writable_inside(const SandboxSpec& spec) {
  std::vector<fs::path> out{spec.project, "/dev", "/proc"};
  out.insert(out.end(), spec.host.private_dirs.begin(), spec.host.private_dirs.end());
  out.insert(out.end(), spec.hidden.begin(), spec.hidden.end());
  out.insert(out.end(), spec.writable.begin(), spec.writable.end());
  for (const auto& [source, inside] : spec.binds) {
    out.push_back(inside);
  }
  if (const char* rt = std::getenv("XDG_RUNTIME_DIR"); rt && *rt == '/') {
    out.emplace_back(rt);
  }
  return out;
}

} // namespace

std::uint64_t default_tmp_size() {
  long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  std::uint64_t ram = pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * page : 0;
  return std::max<std::uint64_t>(ram / 8, 256ULL << 20);
}

std::vector<std::string> bwrap_command(const std::string& bwrap, const SandboxSpec& spec,
                                       int seccomp_fd, int info_fd, SyncFds sync, int resolv_fd,
                                       bool probe, const std::vector<int>& generated_fds) {
  std::vector<std::string> a{bwrap};
  auto add = [&](std::initializer_list<std::string> args) { a.insert(a.end(), args); };
  // Always a user namespace, for root too: no capability of the host's, and the mounts
  // below are locked (an agent cannot remount them writable). Always a private network:
  // no host loopback service, no abstract unix socket of the host.
  // (--network=host, explicit and loud, is the one exception: the host's network.)
  add({"--unshare-user", "--disable-userns", "--cap-drop", "ALL", "--unshare-pid",
       "--unshare-ipc"});
  if (!spec.host_network) {
    add({"--unshare-net"});
  }
  add({"--unshare-uts", "--unshare-cgroup-try", "--die-with-parent", "--new-session"});
  if (!probe) {
    add({"--as-pid-1"}); // our own init (sandbox_init.hpp), not bwrap's
  }
  add({"--ro-bind", "/", "/", "--dev", "/dev"});
  // bwrap's /dev is a tmpfs of half the RAM, writable: read-only, and /dev/shm a capped one.
  add({"--remount-ro", "/dev"});
  add_tmpfs(a, spec.tmp_size, "/dev/shm");
  add({"--proc", "/proc"});
  // bwrap leaves /proc/sys writable where it cannot tell it should not: as root that is
  // core_pattern, every sysctl. Read-only, and locked by the user namespace.
  add({"--ro-bind", "/proc/sys", "/proc/sys"});
  if (::access("/proc/sysrq-trigger", F_OK) == 0) {
    add({"--ro-bind", "/proc/sysrq-trigger", "/proc/sysrq-trigger"}); // root-writable, no cap
  }
  // The files of /proc that show the host beyond the sandbox's pid namespace, masked as
  // Docker's default maskedPaths mask them: /proc/keys and /proc/key-users list the names and
  // owners of every key the person's uid may view (their session keyring's Kerberos caches,
  // tokens), seccomp refusing keyctl() notwithstanding; timer_list and sched_debug name the
  // host's processes and their timers.
  for (const char* masked :
       {"/proc/keys", "/proc/key-users", "/proc/timer_list", "/proc/sched_debug"}) {
    if (::access(masked, F_OK) == 0) {
      add({"--ro-bind", "/dev/null", masked});
    }
  }
  std::error_code ec;
  const char* home_env = std::getenv("HOME");
  fs::path real_home = home_env && *home_env ? fs::weakly_canonical(home_env, ec) : fs::path();
  for (const auto& d : spec.host.private_dirs) {
    bool holds_files =
        d == "/tmp" || d == "/var/tmp" || (!real_home.empty() && is_under_or_same(real_home, d));
    add_tmpfs(a, holds_files ? spec.tmp_size : std::min(spec.tmp_size, k_small_tmpfs), d);
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    add({"--perms", "0700", "--dir", home});
  }
  for (const auto& r : spec.host.read_only) {
    add({"--ro-bind", r.string(), r.string()});
  }
  for (size_t i = 0; i < spec.host.generated.size() && i < generated_fds.size(); ++i) {
    add({"--ro-bind-data", std::to_string(generated_fds[i]),
         spec.host.generated[i].first.string()});
  }
  for (const auto& r : spec.readable) {
    add({"--ro-bind", r.string(), r.string()});
  }
  for (const auto& w : spec.writable) {
    add({"--bind", w.string(), w.string()});
  }
  for (const auto& d : spec.guarded.pinned) {
    add({"--bind", d.string(), d.string()}); // cannot be renamed away inside
  }
  for (const auto& g : spec.guarded.existing) {
    add({"--ro-bind", g.string(), g.string()});
  }
  for (const auto& [source, inside] : spec.binds) {
    add({"--bind", source.string(), inside.string()});
  }
  // State and views: an empty tmpfs over them, after the writable paths, so a writable
  // parent can never expose them.
  for (const auto& h : spec.hidden) {
    add_tmpfs(a, std::min(spec.tmp_size, k_small_tmpfs), h);
  }
  // Host secrets and sockets that would show: /dev/null in their place.
  std::vector<fs::path> covered = spec.host.private_dirs;
  covered.insert(covered.end(), spec.hidden.begin(), spec.hidden.end());
  covered.push_back(spec.project);
  auto cover = [&](const fs::path& m) {
    bool shown = !under_any(m, covered) || under_any(m, spec.host.read_only) ||
                 under_any(m, spec.readable) || under_any(m, spec.writable);
    if (shown && !is_under_or_same(m, spec.project)) {
      add({"--ro-bind", "/dev/null", m.string()});
    }
  };
  std::for_each(spec.host.masked.begin(), spec.host.masked.end(), cover);
  if (spec.host_network) {
    for (const auto& s : spec.host.host_sockets) {
      std::error_code gone;
      if (fs::is_socket(s, gone)) { // gone since the scan: bwrap could not make its mountpoint
        cover(s);
      }
    }
  }
  if (const char* rt = std::getenv("XDG_RUNTIME_DIR"); rt && *rt && rt[0] == '/') {
    add({"--perms", "0700", "--dir", rt});
  }
  if (resolv_fd >= 0) {
    add({"--ro-bind-data", std::to_string(resolv_fd), resolv_conf_target().string()});
  }
  // Last: a project under /tmp, the home or a hidden directory still shows.
  add({"--bind", spec.view.string(), spec.project.string()});
  if (!probe) {
    add({"--ro-bind", spec.init.string(), init_mount(spec).string()});
    // Not over the view: an agent rebuilding ws in its own project must find its file there.
    if (!spec.fsmonitor_hook.empty() && !is_under_or_same(spec.fsmonitor_hook, spec.project)) {
      add({"--ro-bind", spec.fsmonitor_hook.string(), spec.fsmonitor_hook.string()});
    }
  }
  add({"--clearenv"});
  for (const auto& [k, v] : spec.env) {
    add({"--setenv", k, v});
  }
  if (info_fd >= 0) {
    add({"--info-fd", std::to_string(info_fd)});
  }
  add({"--chdir", spec.cwd.string(), "--seccomp", std::to_string(seccomp_fd), "--"});
  if (probe) {
    a.emplace_back("/bin/true");
    return a;
  }
  add({init_mount(spec).string(), "__exec"});
  // Where the agent may open files for writing (pid 1's Landlock rules): a host FIFO or
  // device node anywhere else is out of reach, read-only mount or not.
  for (const auto& w : writable_inside(spec)) {
    add({"--write", w.string()});
  }
  if (spec.max_procs > 0) {
    add({"--max-procs", std::to_string(spec.max_procs)});
  }
  if (sync.socket_filter >= 0) {
    add({"--sockets", std::to_string(sync.socket_filter)});
  }
  if (sync.go >= 0 && sync.ready >= 0) {
    add({"--sync", std::to_string(sync.go) + "," + std::to_string(sync.ready)});
  }
  a.emplace_back("--");
  a.insert(a.end(), spec.command.begin(), spec.command.end());
  return a;
}

} // namespace ws
