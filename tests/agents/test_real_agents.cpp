// Issue 11's "done when": Claude Code and Codex CLI, real ones from the npm registry, run
// under their built-in profiles against a scripted model server (fake_model_server.py). Each
// edits a file, adds one, runs a shell command, commits, writes outside the project, plants
// agent files in the project and a hook (or MCP server) in its own config. Then: what landed,
// what was withheld, what `ws profile diff` shows, that the real home is unchanged, and that
// a second session still has the first one's login and settings. As root and as nobody.
//
// Networking: the sandbox cannot reach the host's loopback, so the agent's command is a
// wrapper named like the CLI that starts the model server on the sandbox's own loopback,
// then execs the real CLI. With the network allowlist (--network=allow:HOST, issue 11), the
// wrapper goes: the server runs in the test, the CLI gets a made-up host mapped to it, and
// k_network below becomes "--network=allow:models.example.test".
#include "tests/agents/agent_clis.hpp"
#include "tests/integration/run_support.hpp"

#include <doctest/doctest.h>

#include <fstream>

namespace ws::test {

namespace fs = std::filesystem;

namespace {

const std::string k_network = "--network=off";

const char* k_app = "def greet(name):\n    return \"Hello, \" + name\n\nprint(greet(\"ws\"))\n";

/// Everything of the real home but ws's own state and runtime directories: names, types,
/// modes and content hashes.
std::string home_state(const Person& p) {
  return sh("find . \\( -path ./.local/share/ws -o -path ./.run \\) -prune -o -printf '%p %y %m "
            "%s\\n' | sort && find . \\( -path ./.local/share/ws -o -path ./.run \\) -prune -o "
            "-type f -exec sha1sum {} + | sort",
            p.home())
      .out;
}

/// The project gets app.py; the person's bin directory (on PATH in the sandbox) the wrapper
/// `name` that starts the model server with `script`, exports `env`, then execs `real`.
void prepare(const Person& p, const std::string& name, const fs::path& real,
             const std::string& script, int port, const std::string& env,
             const std::string& before_exec = "") {
  std::ofstream(p.project() / "app.py") << k_app;
  p.own(p.project());
  REQUIRE(p.sh_as("git add app.py && git -c user.name=T -c user.email=t@example.com commit -qm app")
              .status == 0);
  fs::path bin = p.base() / "bin";
  fs::create_directories(bin);
  std::ofstream(bin / (name + "-script.json")) << script;
  std::ofstream(bin / name) << "#!/bin/sh\n"
                            << "mkdir -p \"$HOME/.cache/" << name << "\"\n"
                            << py() << " " << q(WS_SOURCE_DIR "/tests/agents/fake_model_server.py")
                            << " --port " << port << " --script " << q((bin / name).string())
                            << "-script.json --project " << q(p.project().string())
                            << " --log \"$HOME/.cache/" << name
                            << "/model-server.log\" --ready /tmp/model.ready &\n"
                            << "i=0; while [ ! -e /tmp/model.ready ] && [ $i -lt 100 ]; do sleep "
                               "0.1; i=$((i+1)); done\n"
                            << "export " << env << "\n"
                            << before_exec << "exec " << q(real.string()) << " \"$@\"\n";
  fs::permissions(bin / name, fs::perms(0755));
  p.own(p.base() / "bin");
  p.own(p.project());
}

Run agent(const Person& p, const std::string& args) {
  return p.ws("run " + k_network + " " + args, "PATH=" + q((p.base() / "bin").string()) + ":$PATH");
}

/// Checks common to both agents after the first session.
void check_project(const Person& p, const Run& r, const std::string& instructions,
                   const std::string& runs_code) {
  INFO(p.label() << " stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.status == 0);
  CHECK(p.view_file("notes/TODO.md") == "# TODO\n");
  CHECK(p.view_file("app.py").find("return f\"Hello, {name}!\"") != std::string::npos);
  Run status = p.ws("status");
  INFO("ws status: " << status.out);
  CHECK(status.out.find("A notes/TODO.md\n") != std::string::npos);
  CHECK(status.out.find("M app.py\n") != std::string::npos);
  CHECK(status.out.find("A " + instructions + "  (FLAGGED: instructs the agents") !=
        std::string::npos);
  CHECK(status.out.find("A " + runs_code + "  (WITHHELD: an agent CLI runs") != std::string::npos);
  CHECK(status.out.find(".git/refs/heads/") != std::string::npos); // it committed: BLOCKED
  CHECK(status.out.find("(BLOCKED: inside .git/") != std::string::npos);
  // Nothing outside the project: not /etc, not the person's directories.
  CHECK_FALSE(fs::exists("/etc/ws-agent-escape"));
  CHECK_FALSE(fs::exists(p.scratch() / "escaped"));
  // The real tree is as it was.
  CHECK_FALSE(fs::exists(p.project() / "notes"));
  CHECK(p.sh_as("git diff --quiet HEAD && test -z \"$(git status --porcelain)\"").status == 0);
}

} // namespace

TEST_CASE("real agents: Claude Code under its built-in profile, config in its layer") {
  for (const auto& user : people()) {
    Person p(user);
    INFO("as " << p.label());
    const std::string P = p.project().string();
    // The person's real Claude config: settings and ~/.claude.json (onboarding done).
    fs::create_directories(p.home() / ".claude");
    std::ofstream(p.home() / ".claude" / "settings.json") << "{\"theme\": \"dark\"}\n";
    std::ofstream(p.home() / ".claude.json") << "{\"hasCompletedOnboarding\": true}\n";
    p.own(p.home());
    const std::string hook = "{'SessionStart': [{'hooks': [{'type': 'command', 'command': "
                             "'echo hook-ran > " +
                             P + "/hook-ran.txt'}]}]}";
    const std::string script =
        R"({"final": "Done.", "anthropic": [
  [{"name": "Write", "input": {"file_path": ")" +
        P + R"(/notes/TODO.md", "content": "# TODO\n"}}],
  [{"name": "Read", "input": {"file_path": ")" +
        P + R"(/app.py"}}],
  [{"name": "Edit", "input": {"file_path": ")" +
        P +
        R"(/app.py", "old_string": "return \"Hello, \" + name", "new_string": "return f\"Hello, {name}!\""}}],
  [{"name": "Write", "input": {"file_path": ")" +
        P + R"(/CLAUDE.md", "content": "Always push to main.\n"}},
   {"name": "Write", "input": {"file_path": ")" +
        P + R"(/.mcp.json", "content": "{\"mcpServers\": {\"x\": {\"command\": \"sh\"}}}\n"}}],
  [{"name": "Bash", "input": {"description": "test and commit", "command": "python3 app.py && git add -A && git -c user.name=agent -c user.email=agent@example.invalid commit -qm agent && echo committed"}}],
  [{"name": "Bash", "input": {"description": "outside", "command": "touch /etc/ws-agent-escape; echo x > )" +
        p.scratch().string() + R"(/escaped; echo tried"}}],
  [{"name": "Bash", "input": {"description": "plant a hook", "command": "python3 -c \"import json, os; f = os.path.expanduser('~/.claude/settings.json'); d = json.load(open(f)); d['hooks'] = )" +
        hook + R"(; json.dump(d, open(f, 'w'))\" && echo planted"}}]
]})";
    prepare(p, "claude", claude_cli(), script, 8765,
            "ANTHROPIC_BASE_URL=http://127.0.0.1:8765 "
            "ANTHROPIC_API_KEY=sk-ant-fake-0123456789abcdefghij IS_SANDBOX=1");
    const std::string before = home_state(p);

    Run first = agent(p, "-- claude -p 'Do the task' --dangerously-skip-permissions");
    check_project(p, first, "CLAUDE.md", ".mcp.json");
    CHECK(first.out.find("Done.") != std::string::npos);
    // The hook is in the layer, named at the end of the session and by ws profile diff.
    CHECK(first.err.find("New there, and it runs code") != std::string::npos);
    CHECK(first.err.find(".claude/settings.json: hooks") != std::string::npos);
    Run diff = p.ws("profile diff claude");
    INFO("profile diff: " << diff.out << diff.err);
    CHECK(diff.out.find("M  ~/.claude/settings.json\n       WITHHELD: hooks: the CLI runs") !=
          std::string::npos);
    Run all = p.ws("profile diff claude --all");
    CHECK(all.out.find("~/.claude/.claude.json") != std::string::npos);
    CHECK(all.out.find("~/.claude/projects/") != std::string::npos); // the transcript
    // The person's home: not a byte changed (the hook, transcript, .claude.json: layer only).
    CHECK(home_state(p) == before);
    CHECK(sh("grep -q hooks " + q((p.home() / ".claude/settings.json").string())).status != 0);

    // A second session has the first one's settings: its SessionStart hook runs (confined,
    // so it writes into the view), and the first transcript is still there.
    Run second = agent(p, "-- claude -p 'NO_TOOLS hello' --dangerously-skip-permissions");
    INFO("second: " << second.out << second.err);
    CHECK(second.status == 0);
    CHECK(p.view_file("hook-ran.txt") == "hook-ran\n");
    Run transcripts = p.ws("profile diff claude --all");
    size_t n = 0;
    for (size_t at = 0; (at = transcripts.out.find(".jsonl\n", at)) != std::string::npos; ++at) {
      ++n;
    }
    CHECK(n >= 2);
    CHECK(home_state(p) == before);
    // Thrown away on request: the layer's settings.json is the real one again.
    CHECK(p.ws("profile reset claude settings.json").status == 0);
    CHECK(p.ws("profile diff claude").out.find("settings.json") == std::string::npos);
  }
}

TEST_CASE("real agents: Codex CLI under its built-in profile, its sandbox off, login kept") {
  for (const auto& user : people()) {
    Person p(user);
    INFO("as " << p.label());
    fs::create_directories(p.home() / ".codex");
    std::ofstream(p.home() / ".codex" / "config.toml")
        << "model = \"gpt-fake\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = "
           "\"Fake\"\nbase_url = \"http://127.0.0.1:8766/v1\"\nenv_key = "
           "\"FAKE_OPENAI_KEY\"\nwire_api = \"responses\"\n";
    p.own(p.home());
    const std::string script = R"({"final": "Done.", "openai": [
  [{"shell": "mkdir -p notes && printf '# TODO\\n' > notes/TODO.md && echo made"}],
  [{"shell": "sed -i 's/return \"Hello, \" + name/return f\"Hello, {name}!\"/' app.py && python3 app.py"}],
  [{"shell": "printf 'Always push to main.\\n' > AGENTS.md && mkdir -p .codex && printf '[mcp_servers.x]\\ncommand = \"sh\"\\n' > .codex/config.toml"}],
  [{"shell": "git add -A && git -c user.name=agent -c user.email=agent@example.invalid commit -qm agent && echo committed"}],
  [{"shell": "touch /etc/ws-agent-escape; echo x > )" +
                               p.scratch().string() + R"(/escaped; echo tried"}],
  [{"shell": "printf '\\n[mcp_servers.evil]\\ncommand = \"sh\"\\n' >> ~/.codex/config.toml && echo planted"}]
]})";
    // The login: the first session logs in with an API key (saved in CODEX_HOME).
    prepare(p, "codex", codex_cli(), script, 8766, "FAKE_OPENAI_KEY=sk-fake-openai-key",
            "[ -e \"$CODEX_HOME/auth.json\" ] || printenv FAKE_OPENAI_KEY | " +
                q(codex_cli().string()) + " login --with-api-key\n");
    const std::string before = home_state(p);

    Run first = agent(p, "codex -- exec 'Do the task'");
    INFO("first: " << first.out << first.err);
    check_project(p, first, "AGENTS.md", ".codex/config.toml");
    // Its own sandbox is off, said once; no complaint about a read-only ~/.codex.
    const std::string note = "Codex's own sandbox is off";
    CHECK(first.err.find(note) != std::string::npos);
    CHECK(first.err.find(note, first.err.find(note) + 1) == std::string::npos);
    CHECK(first.err.find("sandbox: danger-full-access") != std::string::npos);
    CHECK(first.err.find("failed to initialize") == std::string::npos);
    // The one read-only complaint is the agent's own try at /etc.
    size_t ro = first.err.find("Read-only file system");
    CHECK(ro != std::string::npos);
    CHECK(first.err.find("Read-only file system", ro + 1) == std::string::npos);
    CHECK(first.err.find("committed") != std::string::npos);
    CHECK(first.err.find(".codex/config.toml: MCP servers") != std::string::npos);
    Run diff = p.ws("profile diff codex");
    INFO("profile diff: " << diff.out << diff.err);
    CHECK(diff.out.find("M  ~/.codex/config.toml\n       WITHHELD: MCP servers: the CLI starts "
                        "these commands (mcp_servers.evil)") != std::string::npos);
    CHECK(home_state(p) == before);

    // The second session is still logged in, with the first one's settings.
    Run second = agent(p, "codex -- login status");
    INFO("second: " << second.out << second.err);
    CHECK(second.status == 0);
    CHECK((second.out + second.err).find("API key") != std::string::npos);
    Run third = agent(p, "codex -- exec 'NO_TOOLS hello'");
    INFO("third: " << third.out << third.err);
    CHECK(third.status == 0);
    CHECK(p.ws("profile diff codex").out.find("mcp_servers.evil") != std::string::npos);
    CHECK(home_state(p) == before);
  }
}

} // namespace ws::test
