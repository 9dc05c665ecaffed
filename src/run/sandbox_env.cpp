// The agent's environment is an allowlist (sandbox_env.hpp): whatever the person's shell
// holds (tokens, agent sockets, cloud credentials) stays out unless named with --env.
#include "src/run/sandbox_env.hpp"

#include "src/cli/error.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>

extern char** environ;

namespace ws {

namespace {

constexpr std::string_view k_allowed[] = {
    "PATH",         "HOME",     "USER",        "LOGNAME",  "SHELL",   "TERM",   "COLORTERM",
    "TERM_PROGRAM", "LANG",     "LANGUAGE",    "TZ",       "EDITOR",  "VISUAL", "PAGER",
    "LESS",         "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "COLUMNS", "LINES",  "XDG_RUNTIME_DIR",
};

bool allowed(std::string_view name) {
  return name.starts_with("LC_") ||
         std::find(std::begin(k_allowed), std::end(k_allowed), name) != std::end(k_allowed);
}

void set(EnvList& env, const std::string& name, const std::string& value) {
  auto it = std::find_if(env.begin(), env.end(), [&](const auto& kv) { return kv.first == name; });
  if (it != env.end()) {
    it->second = value;
  } else {
    env.emplace_back(name, value);
  }
}

} // namespace

EnvList sandbox_environment(const std::vector<std::string>& passed, const EnvList& fixed) {
  EnvList env;
  for (char** e = environ; e && *e; ++e) {
    std::string_view kv(*e);
    size_t eq = kv.find('=');
    if (eq != std::string_view::npos && allowed(kv.substr(0, eq))) {
      set(env, std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
    }
  }
  for (const auto& p : passed) {
    size_t eq = p.find('=');
    std::string name = p.substr(0, eq);
    if (name.empty() || name.find_first_of(" \t\n") != std::string::npos) {
      throw Error("--env " + p + ": not a variable name", "use --env NAME or --env NAME=VALUE");
    }
    if (eq != std::string::npos) {
      set(env, name, p.substr(eq + 1));
    } else if (const char* v = std::getenv(name.c_str())) {
      set(env, name, v);
    }
  }
  for (const auto& [k, v] : fixed) {
    set(env, k, v);
  }
  return env;
}

} // namespace ws
