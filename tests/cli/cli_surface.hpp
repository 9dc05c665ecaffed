#pragma once

// The command line as `ws --help` shows it, for checking what is generated from it.

#include <string>
#include <vector>

namespace ws::test {

struct HelpCommand {
  std::string name;
  std::vector<std::string> options;     ///< "--json", "-f", ... as its --help lists them
  std::vector<HelpCommand> subcommands; ///< `ws profile`'s list, show, ...
};

/// The global options and every command with its options (and subcommands), read from
/// `ws --help`, `ws COMMAND --help` and `ws COMMAND SUB --help` (the parser's own help, not
/// the generator's view of it).
struct HelpSurface {
  std::vector<std::string> global;
  std::vector<HelpCommand> commands;
};
HelpSurface help_surface();

/// A private tmux server running `command` in a terminal of 100x30; dies with the object.
class Terminal {
public:
  explicit Terminal(const std::string& command);
  ~Terminal();
  Terminal(const Terminal&) = delete;
  Terminal& operator=(const Terminal&) = delete;
  std::string screen() const;
  /// Sends tmux key names ("ws stau" Tab) and waits up to 10 s for `then` on the screen;
  /// fails the test with the screen if it never shows.
  void keys(const std::string& keys, const std::string& then) const;

private:
  std::string m_dir;
  std::string m_socket;
};

} // namespace ws::test
