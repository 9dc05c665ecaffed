#pragma once

#include "src/cli/cli_spec.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ws {

/// The man pages of `spec` in roff: ws(1) (every command, the global options, environment,
/// files, exit status) and ws-COMMAND(1) for each command, as (file name, text) pairs.
std::vector<std::pair<std::string, std::string>> man_pages(const CliSpec& spec,
                                                           std::string_view version);

/// `ws __man DIR`: writes man_pages() of `spec` into DIR (created if needed).
int write_man_pages(const CliSpec& spec, const std::string& dir);

} // namespace ws
