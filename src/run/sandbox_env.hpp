#pragma once

#include <string>
#include <utility>
#include <vector>

namespace ws {

using EnvList = std::vector<std::pair<std::string, std::string>>;

/// The agent's environment: an allowlist of the person's variables that carry no secret and
/// no way out (PATH, HOME, TERM, LANG, LC_*, editor and colour settings...), then each of
/// `passed` (`NAME` copies the person's value, `NAME=VALUE` sets one), then `fixed`.
/// SSH_AUTH_SOCK, DBUS_SESSION_BUS_ADDRESS, DOCKER_HOST, tokens and keys never pass unless
/// named. Throws Error for a malformed `passed` entry.
EnvList sandbox_environment(const std::vector<std::string>& passed, const EnvList& fixed);

} // namespace ws
