// `--network=on|off|host|allow:LIST` (network_option.hpp).
#include "src/network/network_option.hpp"

#include "src/cli/error.hpp"

namespace ws::network {

std::string NetworkChoice::flag() const {
  switch (mode) {
  case NetworkMode::On:
    return "--network=on";
  case NetworkMode::Off:
    return "--network=off";
  case NetworkMode::Host:
    return "--network=host";
  case NetworkMode::Allow:
    return "--network=allow:" + allow.text();
  }
  return "";
}

NetworkChoice parse_network_option(const std::string& value) {
  NetworkChoice c;
  if (value == "on" || value.empty()) { // "": not given (a profile may choose instead)
    c.mode = NetworkMode::On;
  } else if (value == "off") {
    c.mode = NetworkMode::Off;
  } else if (value == "host") {
    c.mode = NetworkMode::Host;
  } else if (value.starts_with("allow:")) {
    c.mode = NetworkMode::Allow;
    c.allow = Allowlist::parse(std::string_view(value).substr(6));
  } else {
    throw Error("--network=" + value + ": not a network mode",
                "use --network=on, off, host, or allow:HOST,... (e.g. "
                "--network=allow:api.anthropic.com,*.npmjs.org)");
  }
  return c;
}

} // namespace ws::network
