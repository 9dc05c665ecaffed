// ws run / ws shell: start the agent confined, so that the project's own path is its view.
#include "fuse/journal.hpp"
#include "gitbridge/policy_config.hpp"
#include "gitbridge/real_repo.hpp"
#include "src/cli/commands.hpp"
#include "src/cli/error.hpp"
#include "src/cli/text.hpp"
#include "src/daemon/daemon.hpp"
#include "src/fsmonitor/view_git_config.hpp"
#include "src/network/network_option.hpp"
#include "src/network/session_network.hpp"
#include "src/profile/profile_layer.hpp"
#include "src/profile/session_profile.hpp"
#include "src/run/agent_config_guard.hpp"
#include "src/run/git_home_config.hpp"
#include "src/run/host_exposure.hpp"
#include "src/run/path_guard.hpp"
#include "src/run/path_set.hpp"
#include "src/run/sandbox.hpp"
#include "src/run/sandbox_env.hpp"
#include "src/run/session_summary.hpp"
#include "src/run/startup_trace.hpp"
#include "src/run/trusted_program.hpp"
#include "src/run/user_network.hpp"
#include "src/transfer/transfer_plan.hpp"
#include "src/transfer/transfer_report.hpp"
#include "src/workspace/agent_git_state.hpp"
#include "src/workspace/workspace_edit.hpp"

#include <spdlog/spdlog.h>

#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

namespace ws {

namespace fs = std::filesystem;

namespace {

/// `ws.KEY` (multi-valued) from the real repository's config and ~/.config/ws/config.
std::vector<std::string> config_list(const fs::path& git_dir, const char* key) {
  return gitbridge::load_config_list(git_dir, gitbridge::default_user_config_file(), key);
}

/// What the agent must never be able to change, nor any directory above it.
std::vector<ProtectedPath> protected_paths(const Workspace& w, const fs::path& git_dir,
                                           const std::string& bwrap, const std::string& slirp) {
  std::vector<ProtectedPath> p{
      {w.repo, "the project", true},
      {git_dir, "the project's .git", true},
      {data_root(), "the workspace state", true},
      {runtime_root(), "the workspaces' views", true},
  };
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    p.push_back({self, "the ws binary", false});
  }
  if (fs::path init = sandbox_init_program(); init != self) {
    p.push_back({init, "ws-init (the sandbox's first process)", false});
  }
  if (!bwrap.empty()) {
    p.push_back({bwrap, "bubblewrap (run before the sandbox exists)", false});
  }
  if (!slirp.empty()) {
    p.push_back({slirp, "slirp4netns (run outside the sandbox)", false});
  }
  return p;
}

/// The process limit of a session (process_limit.hpp): far above what builds and agents use,
/// far below what takes a machine down.
constexpr long k_max_procs = 1024;

/// `<workspace>-<date>-<time>-<pid>-<random>`: never the same twice, whatever the kernel
/// reuses (pids, pid-namespace ids).
std::string session_id(const Workspace& w) {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::localtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
  unsigned random = 0;
  if (::getrandom(&random, sizeof random, 0) != sizeof random) {
    random = static_cast<unsigned>(std::chrono::steady_clock::now().time_since_epoch().count());
  }
  char tail[16];
  std::snprintf(tail, sizeof tail, "%04x", random & 0xffff);
  return w.name + "-" + buf + "-" + std::to_string(::getpid()) + "-" + tail;
}

std::string join_command(const std::vector<std::string>& cmd) {
  std::string out;
  for (const auto& c : cmd) {
    out += (out.empty() ? "" : " ") + c;
  }
  return out;
}

/// What the summary says of a path the agent could not write (read-only in the sandbox), as
/// its output said it: the agent chooses that path. `--writable DIR` (the nearest directory
/// that exists) is advised only where the person would lose nothing by following it: in their
/// home, outside what the sandbox shows read-only on purpose (toolchains, PATH directories, the
/// agent's git config), and only if ws would accept it (`protect`, the checks of --writable).
/// Never a system directory: an agent that prints "Read-only file system: '/etc/cron.d'" must
/// not get ws to suggest opening it.
std::string read_only_advice(const Workspace& w, const std::string& path,
                             const std::vector<ProtectedPath>& protect, const HostExposure& host) {
  fs::path p = fs::path(path).lexically_normal();
  std::string said = "the agent could not write " + path + " (read-only in the sandbox)";
  const char* home_env = std::getenv("HOME");
  std::error_code ec;
  fs::path home = home_env && *home_env == '/' ? fs::weakly_canonical(home_env, ec) : fs::path();
  if (!p.is_absolute() || is_under_or_same(p, w.repo) || home.empty() ||
      !is_under_or_same(p, home) || p == home) {
    return said;
  }
  fs::path dir = p;
  while (dir.has_relative_path() && !fs::is_directory(dir, ec)) {
    dir = dir.parent_path();
  }
  bool shown_on_purpose = under_any(dir, host.read_only);
  for (const auto& [generated, content] : host.generated) {
    shown_on_purpose = shown_on_purpose || is_under_or_same(generated, dir);
  }
  if (dir == home || !is_under_or_same(dir, home) || shown_on_purpose) {
    return said;
  }
  try {
    checked_sandbox_path("--writable", dir.string(), protect);
  } catch (const Error&) {
    return said;
  }
  return said + ": ws run --writable " + dir.string() + " would allow it";
}

/// The host's resolv.conf as it reads now (`--network=host`): bound at the same path inside,
/// where a link into the private /run would otherwise dangle.
std::string host_resolv_conf() {
  std::ifstream in("/etc/resolv.conf");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace

int cmd_run(const Context& ctx, const RunOptions& o) {
  if (const char* s = std::getenv("WS_SESSION"); s && *s) {
    throw Error(std::string("already inside ws session ") + s,
                "leave it first; sessions do not nest");
  }
  startup_step("ws run starts");
  Workspace w = ctx.ws();
  SandboxSpec spec;
  spec.command = o.command;
  std::optional<Profile> profile = pick_profile(o.profile, o.profile_command, spec.command);
  // Not given: the profile's model API hosts (src/network's allowlist), else on.
  network::NetworkChoice net = network::parse_network_option(!o.network.empty() ? o.network
                                                             : profile ? profile->default_network()
                                                                       : std::string("on"));
  startup_step("profile picked");
  network::ResolveOverride resolve;
  if (const char* r = std::getenv("WS_NETWORK_RESOLVE"); r && *r && net.proxied()) {
    resolve = network::ResolveOverride::parse(r);
  }
  spec.network = net.mode == network::NetworkMode::On;
  spec.host_network = net.mode == network::NetworkMode::Host;
  if (spec.command.empty()) {
    const char* shell = std::getenv("SHELL");
    spec.command = {shell && *shell ? shell : "/bin/sh"};
  }
  std::string bwrap, slirp;
  if (!o.no_confine) {
    // Found (and trusted) before anything else: a missing sandbox fails before any change.
    bwrap = trusted_program("bwrap", "bubblewrap", "WS_BWRAP");
    slirp = spec.network ? UserNetwork::program() : std::string();
  }
  startup_step("bwrap found");
  // Every path the person names is checked before the workspace is touched.
  fs::path git_dir = gitbridge::RealRepo(w.repo).git_dir(); // opened once: config and guard
  std::vector<ProtectedPath> protect = protected_paths(w, git_dir, bwrap, slirp);
  std::vector<std::string> writable = config_list(git_dir, "ws.writable");
  writable.insert(writable.end(), o.writable.begin(), o.writable.end());
  std::vector<ProtectedPath> protect_writes = protect;
  for (auto& p : path_directories()) {
    protect_writes.push_back(std::move(p));
  }
  for (const auto& raw : writable) {
    spec.writable.push_back(checked_sandbox_path("--writable", raw, protect_writes));
    if (profile) {
      check_not_in_layer(*profile, spec.writable.back(), raw);
    }
  }
  std::vector<std::string> readable = config_list(git_dir, "ws.read");
  readable.insert(readable.end(), o.read.begin(), o.read.end());
  for (const auto& raw : readable) {
    spec.readable.push_back(checked_sandbox_path("--read", raw, protect));
  }
  for (const auto& [flag, list] : {std::pair{"--writable", &writable}, {"--read", &readable}}) {
    for (const auto& raw : *list) {
      refuse_links_in_writable(flag, raw, spec.writable);
    }
  }
  std::optional<std::uint64_t> max_disk;
  if (o.max_disk) {
    max_disk = parse_size(*o.max_disk); // a bad size fails before anything happens
  }
  std::vector<std::string> passed;
  if (profile) {
    for (const auto& [k, v] : profile->env) {
      passed.push_back(k + "=" + v); // before the person's: --env and ws.env win
    }
  }
  std::vector<std::string> configured_env = config_list(git_dir, "ws.env");
  passed.insert(passed.end(), configured_env.begin(), configured_env.end());
  passed.insert(passed.end(), o.env.begin(), o.env.end());

  startup_step("config read, paths checked");
  if (!w.exists()) {
    w.create();
    std::fprintf(stderr, "ws: created workspace '%s' for %s\n", w.name.c_str(), w.repo.c_str());
  }
  fs::path view = ensure_mounted(w, false);
  if (max_disk) {
    set_disk_limit(w, *max_disk);
  }

  startup_step("view mounted");
  spec.project = w.repo;
  spec.view = view;
  // The same path inside as outside; started from the view, from the real tree it stands for.
  fs::path rel = ctx.cwd.lexically_relative(w.repo);
  fs::path vrel = ctx.cwd.lexically_relative(view);
  if (!rel.empty() && *rel.begin() != "..") {
    spec.cwd = ctx.cwd;
  } else if (!vrel.empty() && *vrel.begin() != "..") {
    spec.cwd = (w.repo / vrel).lexically_normal();
  } else {
    spec.cwd = w.repo;
  }
  spec.hidden = {data_root(), runtime_root()};
  std::string session = session_id(w);
  EnvList fixed{{"WS_SESSION", session}, {"WS_WORKSPACE", w.name}};
  std::unique_ptr<network::SessionNetwork> proxied;
  if (net.proxied() && !o.no_confine) {
    proxied =
        std::make_unique<network::SessionNetwork>(net, std::move(resolve), w.layout.journal_db());
    auto proxy_env = proxied->environment();
    fixed.insert(fixed.end(), proxy_env.begin(), proxy_env.end());
    spec.resolv_conf = network::SessionNetwork::k_resolv_conf;
  } else if (spec.network) {
    spec.resolv_conf = UserNetwork::k_resolv_conf;
  } else if (spec.host_network) {
    spec.resolv_conf = host_resolv_conf();
  }
  startup_step("network set up");
  spec.env = sandbox_environment(passed, fixed);
  spec.host = plan_host_exposure(spec.command);
  if (const char* home = std::getenv("HOME"); home && *home == '/') {
    try {
      AgentGitConfig git = agent_git_config(w.repo);
      if (!git.text.empty()) {
        spec.host.generated.emplace_back(fs::path(home) / ".gitconfig", std::move(git.text));
      }
      if (!git.dropped.empty()) {
        std::string names;
        for (const auto& d : git.dropped) {
          names += (names.empty() ? "" : ", ") + d;
        }
        spdlog::info("your global git config, not shown to the agent: {}", names);
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ws: warning: the agent gets no global git config: %s\n", e.what());
    }
  }
  spec.guarded = guarded_paths(spec.writable);
  startup_step("host exposure planned");
  // The profile's config layers and caches (src/profile): mounted (if no earlier session
  // left them mounted), bound at the real directories' paths.
  std::optional<ProfileSession> layers;
  std::set<std::string> runs_code_before;
  if (profile && !o.no_confine) {
    layers.emplace(*profile);
    spec.binds = layers->binds();
    startup_step("profile layers mounted");
    if (profile_takes(*profile, spec.command)) {
      spec.command = with_profile_args(*profile, spec.command);
      if (!profile->args.empty() && !profile->note.empty()) {
        std::fprintf(stderr, "ws: profile '%s': %s\n", profile->name.c_str(),
                     profile->note.c_str());
      }
    }
  }
  spec.max_procs = o.max_procs > 0 ? o.max_procs : k_max_procs;
  std::optional<std::uint64_t> max_tmp =
      gitbridge::load_config_size(git_dir, gitbridge::default_user_config_file(), "ws.maxTmp");
  spec.tmp_size = max_tmp ? *max_tmp : default_tmp_size();
  spec.probe_cache = runtime_root() / "sandbox-probe-ok";
  spec.init = sandbox_init_program();
  spec.fsmonitor_hook = fsmonitor_hook_program();
  std::string command = join_command(spec.command);

  int status = 0;
  std::uint64_t pidns = 0; // the sandbox's pid namespace: the journal's key of the session
  std::vector<std::string> read_only;
  if (o.no_confine) {
    std::string net_ignored = net.mode == network::NetworkMode::On
                                  ? ""
                                  : ", and reach any network (" + net.flag() + " does not apply)";
    std::fprintf(stderr,
                 "ws: WARNING: --no-confine: the agent runs UNCONFINED. It starts in the view, "
                 "but can write anywhere you can, your real project included%s.\n",
                 net_ignored.c_str());
    fs::path in_view = view / spec.cwd.lexically_relative(w.repo);
    spec.cwd = in_view.lexically_normal();
    spec.env = {{"WS_SESSION", session}, {"WS_WORKSPACE", w.name}};
    status = run_unconfined(spec);
  } else {
    if (spec.host_network) {
      std::fprintf(stderr,
                   "ws: WARNING: --network=host: the agent shares this machine's network. It "
                   "can reach every service on its loopback and your network, and send "
                   "anything it can read anywhere.\n");
    }
    bool recorded = false;
    auto record = [&](pid_t pid) {
      if (layers) {
        // What the layer held before (the agent waits for the go), while bwrap builds.
        runs_code_before = runs_code(*profile);
      }
      struct stat st {};
      std::string ns = "/proc/" + std::to_string(pid) + "/ns/pid";
      if (::stat(ns.c_str(), &st) != 0) {
        return;
      }
      pidns = st.st_ino;
      try {
        const std::string used = profile && layers ? profile->name : std::string();
        fuse::register_session(w.layout.journal_db(), pidns, session, command, pid, used);
        recorded = true;
        if (layers) {
          for (const auto& l : layers->layers()) {
            fuse::register_session(l.ws.layout.journal_db(), pidns, session, command, pid, used);
          }
        }
      } catch (const std::exception& e) {
        std::fprintf(stderr, "ws: warning: cannot record the session in the journal: %s\n",
                     e.what());
      }
    };
    auto start_network = [&](pid_t pid) {
      if (proxied) {
        proxied->start(pid, pidns); // fails closed: no proxy, no agent
      }
      startup_step("network started");
    };
    auto end_sessions = [&] {
      try {
        fuse::end_session(w.layout.journal_db(), session);
        if (layers) {
          for (const auto& l : layers->layers()) {
            fuse::end_session(l.ws.layout.journal_db(), session);
          }
        }
      } catch (const std::exception&) {
        // the session's writes are still attributed while no later session reuses its ids
      }
    };
    try {
      status = run_confined(spec, record, start_network, &read_only);
    } catch (...) {
      if (recorded) {
        end_sessions(); // the sandbox never ran the agent
      }
      throw;
    }
    if (proxied) {
      proxied->stop();
    }
    end_sessions();
  }
  std::vector<fs::path> planted = quarantine_planted(spec.guarded, session);

  // The view must still be served: if the daemon died, the agent's last writes failed.
  bool daemon_died = probe_view(w).state != ViewState::Mounted;
  std::optional<Checkpoint> cp;
  try {
    cp = create_checkpoint(w, "end of ws run: " + command);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ws: warning: no checkpoint at the end of the session: %s\n", e.what());
  }
  size_t changed = print_session_summary(w, session, status, cp ? &*cp : nullptr);
  if (layers) {
    report_new_config(*profile, runs_code_before);
    layers.reset(); // the layers stay mounted for the next session
  }
  for (const auto& p : planted) {
    std::fprintf(stderr,
                 "ws: WARNING: the agent created %s (it runs code or instructs an agent the next "
                 "time you start it); moved aside to %s.ws-quarantine-%s\n",
                 visible_text(p.string()).c_str(), visible_text(p.string()).c_str(),
                 session.c_str());
  }
  if (proxied) {
    std::vector<std::string> lines = proxied->summary();
    for (const auto& line : lines) {
      // The agent's Host field and names are in them: C1 and bidi controls pass the proxy.
      std::fprintf(stderr, "ws: %s\n", visible_text(line).c_str());
    }
    if (status == 0 && changed == 0 && !lines.empty()) {
      // Codex and others exit 0 when every request failed: "no changes" alone misleads.
      std::fprintf(stderr, "ws: the agent exited 0 and changed nothing, after the network "
                           "refusals above: it may have done nothing for want of them\n");
    }
  }
  for (const auto& p : read_only) {
    std::fprintf(stderr, "ws: %s\n",
                 visible_text(read_only_advice(w, p, protect_writes, spec.host)).c_str());
  }
  if (status == 0 && !changed && !read_only.empty()) {
    std::fprintf(stderr,
                 "ws: the agent exited 0 but changed nothing in the project, after %zu refused "
                 "write%s (above): its work may have failed rather than finished\n",
                 read_only.size(), read_only.size() == 1 ? "" : "s");
  }
  if (daemon_died) {
    std::fprintf(stderr,
                 "ws: ERROR: the workspace's daemon died during the session: writes after that "
                 "failed. Its log: %s\nhint: 'ws status' remounts the view; what was written "
                 "before is kept\n",
                 w.layout.log_file().c_str());
    return status == 0 ? 1 : status;
  }
  return status;
}

} // namespace ws
