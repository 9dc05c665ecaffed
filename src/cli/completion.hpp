#pragma once

#include "src/cli/cli_spec.hpp"

#include <string>
#include <string_view>

namespace ws {

/// The completion script of `spec` for `shell` ("bash", "zsh" or "fish"); throws Error for
/// another shell. Workspace names come from `PROGRAM __complete workspaces` at completion
/// time, run as the program the person typed.
std::string completion_script(const CliSpec& spec, std::string_view shell);

/// `ws __complete SHELL [FILE]`: completion_script() into FILE, or on stdout.
int write_completion(const CliSpec& spec, std::string_view shell, const std::string& file);

} // namespace ws
