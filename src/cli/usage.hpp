#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace ws {

/// ws's help layout on top of CLI11's: the usage line names the program and the global
/// options ("Usage: ws [-C DIR] [-w WORKSPACE] run [OPTIONS] [--] COMMAND [ARGS...]"), and
/// every command's help ends by recalling the global options it also takes.
class HelpFormatter : public CLI::Formatter {
public:
  std::string make_usage(const CLI::App* app, std::string name) const override;
  std::string make_footer(const CLI::App* app) const override;
};

/// Reports a usage error as ws reports errors: "ws: error: <what>", a "hint:" with the
/// closest commands or options when the person mistyped one, then the usage of the command
/// concerned; all on stderr. `app` is the root, after the failed parse. Returns the exit
/// status (2). Help and version requests print to stdout and return 0.
int report_usage_error(CLI::App& app, const CLI::ParseError& e);

/// `ws help [COMMAND [SUBCOMMAND]]`: the help of COMMAND (of ws without one) on stdout; an
/// unknown one is a usage error, with the closest ones suggested.
int print_command_help(const CLI::App& app, const std::vector<std::string>& words);

/// The entries of `candidates` closest to `word` (a mistyping: few edits, or a prefix),
/// best first; empty when none is close.
std::vector<std::string> closest(const std::string& word,
                                 const std::vector<std::string>& candidates);

} // namespace ws
