#include "tests/agents/agent_clis.hpp"

#include "tests/support/harness.hpp"

namespace ws::test {

namespace fs = std::filesystem;

fs::path claude_cli() {
  return fs::path(WS_AGENT_CACHE) / "node_modules" / ".bin" / "claude";
}

fs::path codex_cli() {
  return fs::path(WS_AGENT_CACHE) / "node_modules" / ".bin" / "codex";
}

bool install_agent_clis(std::string& why) {
  auto work = [] {
    return sh(q(claude_cli().string()) + " --version && " + q(codex_cli().string()) + " --version")
               .status == 0;
  };
  if (work()) {
    return true;
  }
  if (sh("command -v npm").status != 0) {
    why = "npm is not installed";
    return false;
  }
  fs::create_directories(WS_AGENT_CACHE);
  // One install at a time (ctest runs test cases in parallel); the lock's holder installs.
  std::string cache = q(WS_AGENT_CACHE);
  Run r = sh("flock " + cache + "/.lock timeout 600 npm install --prefix " + cache +
             " --no-audit --no-fund --loglevel=error @anthropic-ai/claude-code @openai/codex");
  if (r.status != 0 || !work()) {
    why = "cannot install the agent CLIs from the npm registry: " + r.err.substr(0, 400);
    return false;
  }
  return true;
}

} // namespace ws::test
