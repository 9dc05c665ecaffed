// Verdicts for what an agent changed in its own config layer (filters/agent_config.hpp): each
// row is what `ws profile diff` says about one change.
#include "filters/agent_config.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>

using namespace ws::filters;

namespace {

ConfigChangeFacts change(std::string path, std::vector<std::vector<std::string>> keys = {},
                         mode_t mode = S_IFREG | 0644, ChangeType type = ChangeType::Modified) {
  ConfigChangeFacts f;
  f.type = type;
  f.path = std::move(path);
  f.mode = type == ChangeType::Deleted ? 0 : mode;
  f.real_mode = type == ChangeType::Added ? 0 : S_IFREG | 0644;
  f.keys = std::move(keys);
  return f;
}

} // namespace

TEST_CASE("filters::decide_config_change withholds what runs code, flags what loosens") {
  struct Row {
    ConfigChangeFacts facts;
    Verdict verdict;
    std::string reason;
  };
  const std::vector<Row> rows{
      {change("settings.json", {{"hooks", "SessionStart"}}), Verdict::Withheld,
       "hooks: the CLI runs these commands on its events (hooks.SessionStart)"},
      {change(".claude.json", {{"projects", "/p", "mcpServers", "x", "command"}}),
       Verdict::Withheld,
       "MCP servers: the CLI starts these commands "
       "(projects./p.mcpServers.x.command)"},
      {change("config.toml", {{"mcp_servers", "evil"}}), Verdict::Withheld,
       "MCP servers: the CLI starts these commands (mcp_servers.evil)"},
      {change("settings.json", {{"statusLine", "command"}}), Verdict::Withheld,
       "runs a command: statusLine.command"},
      {change("settings.json", {{"env", "NODE_OPTIONS"}}), Verdict::Withheld,
       "environment for every command the CLI runs (NODE_OPTIONS, PATH run code) "
       "(env.NODE_OPTIONS)"},
      {change("settings.json", {{"permissions", "allow"}}), Verdict::Flagged,
       "permission settings: what the agent may do unasked (permissions.allow)"},
      {change("config.toml", {{"approval_policy"}}), Verdict::Flagged,
       "permission settings: what the agent may do unasked (approval_policy)"},
      {change("packages/helper", {}, S_IFREG | 0755), Verdict::Withheld, "added exec bit"},
      {change("bin/new", {}, S_IFREG | 0755, ChangeType::Added), Verdict::Withheld,
       "new executable"},
      {change("hooks/x.sh", {}, S_IFREG | 0644, ChangeType::Added), Verdict::Withheld,
       "hook scripts: the CLI runs them"},
      {change("plugins/p/index.js"), Verdict::Withheld,
       "plugin dir: the CLI loads and runs what is there"},
      {change("CLAUDE.md"), Verdict::Flagged, "instructions to every later session"},
      {change("skills/x/agents/a.yaml"), Verdict::Flagged,
       "instructions (and scripts) for every later session"},
      {change("hooks/x.sh", {}, 0, ChangeType::Deleted), Verdict::Flagged,
       "hook scripts: the CLI runs them (deleted)"},
      {change("projects/-p/t.jsonl"), Verdict::Transfer, ""},
      {change(".credentials.json"), Verdict::Transfer, ""},
      {change("settings.json", {{"theme"}}), Verdict::Transfer, ""},
      {change("tmp/arg0/apply_patch", {}, S_IFLNK | 0777), Verdict::Transfer, ""},
      {change("projects/p/hooks/x"), Verdict::Transfer, ""}, // hooks/ only at the top
  };
  for (const auto& row : rows) {
    CAPTURE(row.facts.path);
    Decision d = decide_config_change(row.facts);
    CHECK(std::string(verdict_name(d.verdict)) == verdict_name(row.verdict));
    CHECK(d.reason == row.reason);
  }
}
