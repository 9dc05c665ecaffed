#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace ws {

/// What follows a command like `ws run`'s own options.
struct TrailingCommand {
  std::vector<std::string> words; ///< COMMAND [ARGS...], or a profile's ARGS
  std::string profile;            ///< PROFILE in `PROFILE -- ARGS...`
};

/// For a command that runs another one (`ws run [OPTIONS] [--] COMMAND [ARGS...]`, marked
/// with CLI11's prefix_command): removes COMMAND [ARGS...] from `args` (the arguments after
/// the program name) and returns it. COMMAND is the first word after the command's name
/// that is neither an option of its own or a global one, nor such an option's value; or
/// what follows "--". So `ws run --writable ~/.npm echo hi` runs `echo hi`, and the agent's
/// own options stay its own. A first word followed by "--" (`ws run codex -- exec "fix it"`)
/// names a profile, the words after "--" being its ARGS; after a leading "--" it is the
/// command itself (`ws run -- sh -- x`). Returns nothing for other commands (args unchanged).
TrailingCommand split_trailing_command(const CLI::App& app, std::vector<std::string>& args);

} // namespace ws
