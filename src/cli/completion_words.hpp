#pragma once

// What the completion generators share (completion.cpp: bash and zsh; completion_fish.cpp).

#include "src/cli/cli_spec.hpp"

#include <string>
#include <utility>
#include <vector>

namespace ws::completion {

inline std::string join(const std::vector<std::string>& words, const std::string& sep = " ") {
  std::string out;
  for (const auto& w : words) {
    out += (out.empty() ? "" : sep) + w;
  }
  return out;
}

inline std::vector<std::string> dashed_names(const OptionSpec& o) {
  std::vector<std::string> out;
  for (const auto& s : o.short_names) {
    out.push_back("-" + s);
  }
  for (const auto& l : o.long_names) {
    out.push_back("--" + l);
  }
  return out;
}

/// The first line of a description, as a shell's menu shows it.
inline std::string summary(const std::string& description) {
  return description.substr(0, description.find('\n'));
}

/// Every command and subcommand with its key: "status", "profile", "profile/diff".
inline std::vector<std::pair<std::string, const CommandSpec*>> all_commands(const CliSpec& spec) {
  std::vector<std::pair<std::string, const CommandSpec*>> out;
  for (const auto& c : spec.commands) {
    out.emplace_back(c.name, &c);
    for (const auto& sub : c.subcommands) {
      out.emplace_back(c.name + "/" + sub.name, &sub);
    }
  }
  return out;
}

inline std::vector<std::string> names_of(const std::vector<CommandSpec>& commands) {
  std::vector<std::string> out;
  for (const auto& c : commands) {
    out.push_back(c.name);
  }
  return out;
}

/// The fish script (completion_fish.cpp).
std::string fish_script(const CliSpec& spec);

} // namespace ws::completion
