// ws run / ws shell: start the agent confined, so that the project's own path is its view.
#include "fuse/journal.hpp"
#include "gitbridge/policy_config.hpp"
#include "gitbridge/real_repo.hpp"
#include "src/cli/commands.hpp"
#include "src/cli/error.hpp"
#include "src/cli/text.hpp"
#include "src/daemon/daemon.hpp"
#include "src/run/sandbox.hpp"
#include "src/transfer/transfer_plan.hpp"
#include "src/transfer/transfer_report.hpp"
#include "src/workspace/workspace_edit.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace ws {

namespace fs = std::filesystem;

namespace {

fs::path expand_home(const std::string& p) {
  if (p == "~" || p.starts_with("~/")) {
    const char* home = std::getenv("HOME");
    if (!home || !*home) {
      throw Error("cannot expand '" + p + "': HOME is not set");
    }
    return fs::path(home) / p.substr(p.size() > 1 ? 2 : 1);
  }
  return p;
}

/// --writable paths and `[ws] writable` from config: existing, absolute, canonical, and not
/// inside the project (the project is written through the view, nowhere else).
std::vector<fs::path> writable_paths(const Workspace& w, const std::vector<std::string>& flags) {
  std::vector<std::string> all = gitbridge::load_config_list(
      gitbridge::RealRepo(w.repo).git_dir(), gitbridge::default_user_config_file(), "ws.writable");
  all.insert(all.end(), flags.begin(), flags.end());
  std::vector<fs::path> out;
  for (const auto& raw : all) {
    fs::path p = expand_home(raw);
    std::error_code ec;
    fs::path c = fs::canonical(p, ec);
    if (ec) {
      throw Error("--writable " + raw + ": " + ec.message(), "name an existing directory or file");
    }
    auto rel = c.lexically_relative(w.repo);
    if (!rel.empty() && *rel.begin() != "..") {
      throw Error("--writable " + raw + " lies inside the project",
                  "the agent writes the project through its view; name paths outside it");
    }
    out.push_back(c);
  }
  return out;
}

std::string session_id(const Workspace& w) {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::localtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
  return w.name + "-" + buf + "-" + std::to_string(::getpid());
}

std::string join_command(const std::vector<std::string>& cmd) {
  std::string out;
  for (const auto& c : cmd) {
    out += (out.empty() ? "" : " ") + c;
  }
  return out;
}

/// The one-screen summary after a session: what changed, what would not transfer, and how
/// to go on.
void print_summary(const Workspace& w, const std::string& session, int status,
                   const Checkpoint* cp) {
  std::vector<PlannedChange> plan = plan_transfer(w, live_state(w), {});
  size_t transfers = 0, held = 0;
  for (const auto& p : plan) {
    (p.transfers() ? transfers : held) += 1;
  }
  std::fprintf(stderr, "\nws: session %s ended (exit %d)", session.c_str(), status);
  if (cp) {
    std::fprintf(stderr, "; checkpoint %u saved", cp->id);
  }
  std::fprintf(stderr, "\n");
  if (plan.empty()) {
    std::fprintf(stderr, "ws: no changes in workspace '%s'\n", w.name.c_str());
    return;
  }
  std::fprintf(stderr, "ws: %zu changed path%s in workspace '%s': %zu would transfer, %zu not\n",
               plan.size(), plan.size() == 1 ? "" : "s", w.name.c_str(), transfers, held);
  constexpr size_t k_shown = 12;
  size_t shown = 0;
  for (const auto& p : plan) {
    if (p.decision.verdict == filters::Verdict::Transfer && shown++ < k_shown) {
      std::fprintf(stderr, "  %c  %s\n", status_letter(p.change), display_path(p.change).c_str());
    }
  }
  if (shown > k_shown) {
    std::fprintf(stderr, "  ... and %zu more (ws status)\n", shown - k_shown);
  }
  std::string report = verdict_report(plan, false, "  ");
  std::fputs(report.c_str(), stderr);
  std::string wflag = w.name == "default" ? "" : " -w " + w.name;
  std::fprintf(stderr, "review: ws%s diff    apply: ws%s apply    throw away: ws%s reset\n",
               wflag.c_str(), wflag.c_str(), wflag.c_str());
}

} // namespace

int cmd_run(const Context& ctx, const RunOptions& o) {
  if (const char* s = std::getenv("WS_SESSION"); s && *s) {
    throw Error(std::string("already inside ws session ") + s,
                "leave it first; sessions do not nest");
  }
  Workspace w = ctx.ws();
  if (!w.exists()) {
    w.create();
    std::fprintf(stderr, "ws: created workspace '%s' for %s\n", w.name.c_str(), w.repo.c_str());
  }
  fs::path view = ensure_mounted(w, false);

  SandboxSpec spec;
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
  spec.writable = writable_paths(w, o.writable);
  spec.network = o.network != "off";
  std::string session = session_id(w);
  spec.env = {{"WS_SESSION", session}, {"WS_WORKSPACE", w.name}};
  spec.command = o.command;
  if (spec.command.empty()) {
    const char* shell = std::getenv("SHELL");
    spec.command = {shell && *shell ? shell : "/bin/sh"};
  }
  std::string command = join_command(spec.command);

  int status = 0;
  if (o.no_confine) {
    std::fprintf(stderr,
                 "ws: WARNING: --no-confine: the agent runs UNCONFINED. It starts in the view, "
                 "but can write anywhere you can, your real project included.\n");
    fs::path in_view = view / spec.cwd.lexically_relative(w.repo);
    spec.cwd = in_view.lexically_normal();
    status = run_unconfined(spec);
  } else {
    status = run_confined(spec, [&](pid_t pid) {
      struct stat st {};
      std::string ns = "/proc/" + std::to_string(pid) + "/ns/pid";
      if (::stat(ns.c_str(), &st) == 0) {
        try {
          fuse::register_session(w.layout.journal_db(), st.st_ino, session, command, pid);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "ws: warning: cannot record the session in the journal: %s\n",
                       e.what());
        }
      }
    });
  }

  std::optional<Checkpoint> cp;
  try {
    cp = create_checkpoint(w, "end of ws run: " + command);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ws: warning: no checkpoint at the end of the session: %s\n", e.what());
  }
  print_summary(w, session, status, cp ? &*cp : nullptr);
  return status;
}

} // namespace ws
