#pragma once

#include <filesystem>
#include <string>

namespace ws::test {

/// The installed CLIs (node_modules/.bin under WS_AGENT_CACHE).
std::filesystem::path claude_cli();
std::filesystem::path codex_cli();

/// Installs @anthropic-ai/claude-code and @openai/codex with npm into WS_AGENT_CACHE unless
/// both are there and run; false (with `why`) when npm or the registry is out of reach.
bool install_agent_clis(std::string& why);

} // namespace ws::test
