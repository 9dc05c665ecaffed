// Agent profiles in ws run without the real CLIs (those are tests/agents/): a stand-in
// program named like the agent, its config through the profile's layer, as root and nobody.
// And the summary's explanations of a failed session.
#include "tests/integration/run_support.hpp"

#include <doctest/doctest.h>

#include <fstream>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

constexpr auto npos = std::string::npos;

/// A stand-in `claude` in the person's bin directory (on PATH inside): prints what it sees of
/// its config, then runs `script`.
void stand_in(const Person& p, const std::string& script) {
  fs::path bin = p.base() / "bin";
  fs::create_directories(bin);
  std::ofstream(bin / "claude") << "#!/bin/sh\n"
                                << "echo \"CLAUDE_CONFIG_DIR=$CLAUDE_CONFIG_DIR\"\n"
                                << "echo \"seed=$(cat ~/.claude/.claude.json)\"\n"
                                << "echo \"settings=$(cat ~/.claude/settings.json)\"\n"
                                << "echo \"kept=$(cat ~/.claude/kept.txt 2>/dev/null)\"\n"
                                << "echo \"cache=$(cat ~/.npm/kept 2>/dev/null)\"\n"
                                << script << "\n";
  fs::permissions(bin / "claude", fs::perms(0755));
  p.own(bin);
}

Run run_in(const Person& p, const std::string& args) {
  return p.ws("run --network=off " + args, "PATH=" + q((p.base() / "bin").string()) + ":$PATH");
}

/// The real home (but ws's state and runtime directories): names, types, modes, sizes, times.
std::string home_state(const Person& p) {
  return sh("find . \\( -path ./.local/share -o -path ./.run \\) -prune -o -printf '%p %y %m "
            "%s %T@\\n' | sort",
            p.home())
      .out;
}

} // namespace

TEST_CASE("profiles: the agent's config is its layer: kept across sessions, never the real one") {
  for (const auto& user : people()) {
    Person p(user);
    INFO("as " << p.label());
    fs::create_directories(p.home() / ".claude");
    std::ofstream(p.home() / ".claude" / "settings.json") << "{\"theme\": \"dark\"}";
    std::ofstream(p.home() / ".claude.json") << "{\"hasCompletedOnboarding\": true}";
    p.own(p.home());
    stand_in(p,
             "echo '{\"theme\": \"dark\", \"hooks\": {\"Stop\": []}}' > ~/.claude/settings.json\n"
             "echo login > ~/.claude/kept.txt\n"
             "mkdir -p ~/.npm && echo cached > ~/.npm/kept\n");
    const std::string before = home_state(p);

    Run first = run_in(p, "-- claude -p x");
    INFO(first.out << first.err);
    REQUIRE(first.status == 0);
    CHECK(field(first.out, "CLAUDE_CONFIG_DIR") == (p.home() / ".claude").string());
    CHECK(field(first.out, "seed") == "{\"hasCompletedOnboarding\": true}");
    CHECK(field(first.out, "settings") == "{\"theme\": \"dark\"}");
    CHECK(first.err.find("New there, and it runs code") != npos);
    CHECK(first.err.find("settings.json: hooks: the CLI runs these commands") != npos);
    CHECK(home_state(p) == before);
    // The layer stays mounted for the next session's start.
    CHECK(p.ws("profile show claude").out.find("(mounted)") != npos);

    // The second session sees what the first wrote: settings, login, cache.
    Run second = run_in(p, "claude -- -p again");
    INFO(second.out << second.err);
    CHECK(second.status == 0);
    CHECK(field(second.out, "settings").find("hooks") != npos);
    CHECK(field(second.out, "kept") == "login");
    CHECK(field(second.out, "cache") == "cached");
    CHECK(second.err.find("New there, and it runs code") == npos); // not new any more
    CHECK(home_state(p) == before);

    // ws profile diff and reset.
    Run diff = p.ws("profile diff claude --all");
    CHECK(diff.out.find("M  ~/.claude/settings.json\n       WITHHELD: hooks: ") != npos);
    CHECK(diff.out.find("A  ~/.claude/kept.txt") != npos);
    CHECK(diff.out.find("A  ~/.claude/.claude.json") != npos);
    CHECK(p.ws("profile reset claude " + q((p.home() / ".claude/settings.json").string())).status ==
          0);
    Run after = run_in(p, "-- claude");
    CHECK(field(after.out, "settings") == "{\"theme\": \"dark\"}");
    CHECK(field(after.out, "kept") == "login");
    CHECK(p.ws("profile reset claude").status == 0);
    CHECK(p.ws("profile diff claude").out.find("no changes") != npos);
    // Not while a session uses them; then they go.
    pid_t job = start_job(p.as(p.ws_line("run --network=off --profile claude -- sh -c 'touch "
                                         "started; sleep 3'")),
                          p.project(), p.scratch() / "job.err");
    CHECK(p.wait_in_view("started"));
    Run busy = p.ws("profile umount claude");
    CHECK(busy.status == 1);
    CHECK(busy.err.find("profile 'claude' is in use by a ws run session") != npos);
    CHECK(wait_job(job, 30) == 0);
    Run down = p.ws("profile umount claude");
    CHECK(down.out == "profile 'claude': config layer unmounted\n");
    CHECK(p.ws("profile show claude").out.find("(mounted)") == npos);

    // No profile: the private home as before; a writable path in the layer is refused.
    Run none = run_in(p, "--profile=none -- claude");
    CHECK(field(none.out, "CLAUDE_CONFIG_DIR").empty());
    CHECK(field(none.out, "settings").empty());
    Run writable = run_in(p, "--writable " + q((p.home() / ".claude").string()) + " -- claude");
    CHECK(writable.status == 1);
    CHECK(writable.err.find("shows its config layer at") != npos);
    Run unknown = run_in(p, "nosuch -- x");
    CHECK(unknown.status == 1);
    CHECK(unknown.err.find("no profile 'nosuch'") != npos);
    CHECK(home_state(p) == before);
  }
}

TEST_CASE("profiles: a session that exits 0 after refused writes says its work may have failed") {
  if (sh("command -v script").status != 0) {
    MESSAGE("no script(1): skipped");
    return;
  }
  for (const auto& user : people()) {
    Person p(user);
    INFO("as " << p.label());
    // A terminal, so ws run reads the agent's words.
    Run r = p.sh_as("script -qec " +
                    q(p.ws_line("run --network=off -- sh -c 'touch /etc/ws-probe; exit 0'")) +
                    " /dev/null");
    INFO(r.out << r.err);
    CHECK(r.out.find("could not write /etc/ws-probe (read-only in the sandbox)") != npos);
    CHECK(r.out.find("the agent exited 0 but changed nothing in the project, after 1 refused "
                     "write") != npos);
  }
}

TEST_CASE("profiles: without a terminal too, the summary names what the agent could not write") {
  for (const auto& user : people()) {
    Person p(user);
    INFO("as " << p.label());
    // Its stderr a file, as in CI: the shell's own words, unquoted, and mkdir's, quoted.
    Run r = p.ws("run --network=off -- sh -c 'echo x > /etc/ws-probe; mkdir /usr/ws-probe-dir; "
                 "echo done; exit 0'");
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    CHECK(r.out == "done\n");
    CHECK(r.err.find("cannot create /etc/ws-probe: Read-only file system") != npos);
    // System directories: named, never advised (run path guard tests: the advice).
    CHECK(r.err.find("ws: the agent could not write /etc/ws-probe (read-only in the sandbox)\n") !=
          npos);
    CHECK(r.err.find("ws: the agent could not write /usr/ws-probe-dir (read-only in the "
                     "sandbox)\n") != npos);
    CHECK(r.err.find("the agent exited 0 but changed nothing in the project, after 2 refused "
                     "writes") != npos);
    // stdout and stderr into one file: they arrive in the order the agent wrote them.
    Run merged = p.sh_as(p.ws_line("run --network=off -- sh -c 'echo one; echo two >&2; echo "
                                   "three; touch /etc/ws-probe; echo four'") +
                         " >" + q((p.scratch() / "merged").string()) + " 2>&1");
    std::string text = sh("cat " + q((p.scratch() / "merged").string())).out;
    INFO(text);
    CHECK(merged.status == 0);
    CHECK(text.find("one\ntwo\nthree\n") != npos);
    CHECK(text.find("Read-only file system\nfour\n") != npos);
    CHECK(text.find("could not write /etc/ws-probe") != npos);
  }
}
