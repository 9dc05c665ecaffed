// Verdicts for an agent's config layer (agent_config.hpp). What Claude Code, Codex CLI and
// Gemini CLI run or obey from their config directories, by file and by settings key.
#include "filters/agent_config.hpp"

#include "filters/pattern.hpp"

#include <sys/stat.h>

#include <optional>

namespace ws::filters {

namespace {

struct KeyRule {
  const char* key; ///< matched against every component of a changed key's path, any case
  Verdict verdict;
  const char* reason;
};

constexpr const char* k_runs_cmd = "runs a command: ";

/// Settings keys, most dangerous first.
constexpr KeyRule k_keys[] = {
    {"hooks", Verdict::Withheld, "hooks: the CLI runs these commands on its events"},
    {"mcpServers", Verdict::Withheld, "MCP servers: the CLI starts these commands"},
    {"mcp_servers", Verdict::Withheld, "MCP servers: the CLI starts these commands"},
    {"apiKeyHelper", Verdict::Withheld, k_runs_cmd},
    {"awsAuthRefresh", Verdict::Withheld, k_runs_cmd},
    {"awsCredentialExport", Verdict::Withheld, k_runs_cmd},
    {"otelHeadersHelper", Verdict::Withheld, k_runs_cmd},
    {"statusLine", Verdict::Withheld, k_runs_cmd},
    {"notify", Verdict::Withheld, k_runs_cmd},
    {"env", Verdict::Withheld,
     "environment for every command the CLI runs (NODE_OPTIONS, PATH "
     "run code)"},
    {"enabledPlugins", Verdict::Withheld, "plugins: the CLI loads and runs them"},
    {"extraKnownMarketplaces", Verdict::Withheld, "plugins: the CLI loads and runs them"},
    {"plugins", Verdict::Withheld, "plugins: the CLI loads and runs them"},
    {"permissions", Verdict::Flagged, "permission settings: what the agent may do unasked"},
    {"allowedTools", Verdict::Flagged, "permission settings: what the agent may do unasked"},
    {"hasTrustDialogAccepted", Verdict::Flagged,
     "permission settings: what the agent may do unasked"},
    {"sandbox_mode", Verdict::Flagged, "permission settings: what the agent may do unasked"},
    {"approval_policy", Verdict::Flagged, "permission settings: what the agent may do unasked"},
    {"trust_level", Verdict::Flagged, "permission settings: what the agent may do unasked"},
    {"sandbox_workspace_write", Verdict::Flagged,
     "permission settings: what the agent may do unasked"},
    {"model_providers", Verdict::Flagged, "where the CLI sends your conversations"},
    {"openai_base_url", Verdict::Flagged, "where the CLI sends your conversations"},
    {"chatgpt_base_url", Verdict::Flagged, "where the CLI sends your conversations"},
};

struct PathRule {
  const char* pattern; ///< gitignore-style, anchored at the config directory, any case
  Verdict verdict;
  const char* reason;
};

constexpr PathRule k_paths[] = {
    {"/hooks/", Verdict::Withheld, "hook scripts: the CLI runs them"},
    {"/hooks.json", Verdict::Withheld, "hooks: the CLI runs these commands on its events"},
    {"/plugins/", Verdict::Withheld, "plugin dir: the CLI loads and runs what is there"},
    {"/extensions/", Verdict::Withheld, "plugin dir: the CLI loads and runs what is there"},
    {"/packages/", Verdict::Withheld, "helper programs: the CLI runs them"},
    {"/bin/", Verdict::Withheld, "helper programs: the CLI runs them"},
    {"/local/", Verdict::Withheld, "the CLI's own install: runs as the CLI"},
    {"/.mcp.json", Verdict::Withheld, "MCP servers: the CLI starts these commands"},
    {"/mcp.json", Verdict::Withheld, "MCP servers: the CLI starts these commands"},
    {"/CLAUDE.md", Verdict::Flagged, "instructions to every later session"},
    {"/AGENTS.md", Verdict::Flagged, "instructions to every later session"},
    {"/AGENTS.override.md", Verdict::Flagged, "instructions to every later session"},
    {"/GEMINI.md", Verdict::Flagged, "instructions to every later session"},
    {"/commands/", Verdict::Flagged, "instructions to every later session"},
    {"/agents/", Verdict::Flagged, "instructions to every later session"},
    {"/skills/", Verdict::Flagged, "instructions (and scripts) for every later session"},
    {"/prompts/", Verdict::Flagged, "instructions to every later session"},
    {"/rules/", Verdict::Flagged, "instructions to every later session"},
    {"/output-styles/", Verdict::Flagged, "instructions to every later session"},
};

constexpr MatchOptions k_match{.casefold = true, .file_only = true};

std::string joined(const std::vector<std::string>& key) {
  std::string out;
  for (const auto& k : key) {
    out += (out.empty() ? "" : ".") + k;
  }
  return out;
}

std::optional<Decision> by_key(const ConfigChangeFacts& f, Verdict want) {
  for (const KeyRule& rule : k_keys) {
    if (rule.verdict != want) {
      continue;
    }
    for (const auto& key : f.keys) {
      for (const auto& part : key) {
        if (iequal(part, rule.key)) {
          std::string reason = rule.reason;
          if (reason == k_runs_cmd) {
            reason += joined(key);
          } else {
            reason += " (" + joined(key) + ")";
          }
          return Decision{want, reason};
        }
      }
    }
  }
  return std::nullopt;
}

std::optional<Decision> by_path(const ConfigChangeFacts& f, Verdict want) {
  for (const PathRule& rule : k_paths) {
    if (rule.verdict == want && matches_with(rule.pattern, f.path, k_match)) {
      return Decision{want, rule.reason};
    }
  }
  return std::nullopt;
}

bool exec_bits(mode_t m) {
  return (m & (S_IXUSR | S_IXGRP | S_IXOTH)) != 0;
}

} // namespace

Decision decide_config_change(const ConfigChangeFacts& f) {
  const bool deleted = f.type == ChangeType::Deleted;
  // The CLI's scratch (Codex's PATH aliases in tmp/arg0-linux, locks): remade at every
  // start, never read as config.
  for (const char* scratch : {"tmp/", ".tmp/"}) {
    if (matches_with(scratch, f.path, k_match)) {
      return {Verdict::Transfer, {}};
    }
  }
  if (!deleted) {
    if (S_ISREG(f.mode) && exec_bits(f.mode) && !f.real_exec_same) {
      return {Verdict::Withheld,
              S_ISREG(f.real_mode)
                  ? (exec_bits(f.real_mode) ? "changed executable" : "added exec bit")
                  : "new executable"};
    }
    if (S_ISLNK(f.mode)) {
      return {Verdict::Withheld, "symlink: the CLI would follow it outside its directory"};
    }
    if (auto d = by_path(f, Verdict::Withheld)) {
      return *d;
    }
    if (auto d = by_key(f, Verdict::Withheld)) {
      return *d;
    }
  }
  if (auto d = by_path(f, Verdict::Flagged)) {
    return *d;
  }
  if (auto d = by_key(f, Verdict::Flagged)) {
    return *d;
  }
  if (deleted) {
    if (auto d = by_path(f, Verdict::Withheld)) {
      return {Verdict::Flagged, d->reason + " (deleted)"};
    }
  }
  if (f.unreadable) {
    return {Verdict::Flagged, "settings the CLI reads, but not readable as such"};
  }
  return {Verdict::Transfer, {}};
}

} // namespace ws::filters
