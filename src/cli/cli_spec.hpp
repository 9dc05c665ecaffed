#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace ws {

/// One option as the parser defines it.
struct OptionSpec {
  std::vector<std::string> short_names; ///< without the dash: "C", "w"
  std::vector<std::string> long_names;  ///< without the dashes: "workspace"
  std::string value;                    ///< what it takes ("DIR", "PATH"); empty for a flag
  std::vector<std::string> choices;     ///< the only values it accepts, if restricted
  std::string description;
  std::string env;         ///< the environment variable it falls back to, if any
  bool repeatable = false; ///< may be given more than once, each time with one value
  /// "-w, --workspace": every name, short ones first.
  std::string names() const;
};

/// A positional argument ("paths", "name").
struct PositionalSpec {
  std::string name;                 ///< as the person reads it: "PATHS", "NAME"
  std::string value;                ///< its kind, as for OptionSpec::value ("PATH", "WORKSPACE")
  std::vector<std::string> choices; ///< the words it completes with, if a fixed set
  std::string description;
  bool required = false;
  bool many = false;
};

struct CommandSpec {
  std::string name;
  std::string description;
  std::string footer; ///< more text the command's help shows after its options
  std::vector<OptionSpec> options;
  std::vector<PositionalSpec> positionals;
  bool trailing_command = false;        ///< takes a COMMAND [ARGS...] of its own (ws run)
  std::vector<CommandSpec> subcommands; ///< `ws profile diff`: the commands of a command
  /// "ws status [OPTIONS] [PATHS...]", after `prefix` ("ws", or "ws profile" for a
  /// subcommand); "ws profile COMMAND [ARGS...]" for a command of commands.
  std::string synopsis(const std::string& prefix) const;
};

/// The whole command line as plain values, read from the very CLI11 definition the parser
/// uses: the man pages and shell completions are made from it, so they cannot drift from
/// what ws accepts. Hidden (internal) subcommands and options are left out.
struct CliSpec {
  std::string program;
  std::string description;
  std::vector<OptionSpec> global; ///< options taken before or after any subcommand
  std::vector<CommandSpec> commands;
};

CliSpec describe_cli(const CLI::App& app);

/// What a shell completes a value with, from its placeholder.
enum class ValueKind { None, File, Directory, Workspace, Profile, EnvName, Command };
ValueKind value_kind(const std::string& value);

} // namespace ws
