// Planted configuration in --writable directories (agent_config_guard.hpp). With
// `--writable ~/.claude` an agent planted a SessionStart hook; with `~/.codex` an MCP server
// and a replaced helper binary: all ran unconfined the next time the person started the CLI.
#include "src/run/agent_config_guard.hpp"

#include <cstdio>

namespace ws {

namespace fs = std::filesystem;

namespace {

struct AgentDir {
  const char* name;
  std::vector<const char*> guarded;
};

/// Per agent config directory: what its CLI reads as code or instructions.
const std::vector<AgentDir>& agent_dirs() {
  static const std::vector<AgentDir> dirs{
      {".claude",
       {"settings.json", "settings.local.json", "hooks", "plugins", "commands", "agents", "skills",
        "output-styles", "CLAUDE.md", ".mcp.json", "local", "bin"}},
      {".codex",
       {"config.toml", "packages", "bin", "AGENTS.md", "AGENTS.override.md", "rules", "prompts",
        "hooks", "skills"}},
      {".gemini", {"settings.json", "extensions", "GEMINI.md", "commands", "bin"}},
      {".cursor", {"mcp.json", "rules", "hooks.json", "bin"}},
  };
  return dirs;
}

/// In any writable directory: shell start-up files and a repository's code-running parts.
constexpr const char* k_everywhere[] = {
    ".bashrc",     ".bash_profile", ".bash_login", ".profile",     ".zshrc",
    ".zprofile",   ".zshenv",       ".zlogin",     ".config/fish", ".git/hooks",
    ".git/config", ".claude.json",  ".envrc",
};

} // namespace

GuardedPaths guarded_paths(const std::vector<fs::path>& writable) {
  GuardedPaths g;
  std::error_code ec;
  auto add = [&](const fs::path& p) {
    if (fs::exists(fs::symlink_status(p, ec))) {
      g.existing.push_back(p);
    } else if (fs::is_directory(p.parent_path(), ec)) {
      g.absent.push_back(p);
    }
  };
  for (const auto& w : writable) {
    if (!fs::is_directory(w, ec)) {
      continue;
    }
    for (const char* e : k_everywhere) {
      add(w / e);
    }
    for (const auto& dir : agent_dirs()) {
      fs::path base;
      if (w.filename() == dir.name) {
        base = w;
      } else if (fs::is_directory(w / dir.name, ec)) {
        base = w / dir.name;
      } else {
        continue;
      }
      for (const char* e : dir.guarded) {
        add(base / e);
      }
    }
  }
  return g;
}

std::vector<fs::path> quarantine_planted(const GuardedPaths& guarded, const std::string& session) {
  std::vector<fs::path> moved;
  for (const auto& p : guarded.absent) {
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(p, ec))) {
      continue;
    }
    fs::path aside = p;
    aside += ".ws-quarantine-" + session;
    fs::rename(p, aside, ec);
    if (ec) {
      std::fprintf(stderr, "ws: WARNING: cannot move the planted %s aside: %s\n", p.c_str(),
                   ec.message().c_str());
    }
    moved.push_back(p);
  }
  return moved;
}

} // namespace ws
