// ws version and ws doctor (host_commands.hpp).
#include "src/host/host_commands.hpp"

#include "src/cli/build_info.hpp"
#include "src/cli/text.hpp"
#include "src/host/host_checks.hpp"

#include <unistd.h>

#include <cstdio>

namespace ws {

std::string version_text() {
  std::string out = "ws " + build_identity() + "\n";
  for (const std::string& line : runtime_features()) {
    out += line + "\n";
  }
  return out;
}

int cmd_doctor(bool json) {
  std::vector<HostCheck> checks = check_host();
  size_t failed = 0, warned = 0;
  for (const auto& c : checks) {
    failed += c.status == HostCheck::Status::Fail ? 1 : 0;
    warned += c.status == HostCheck::Status::Warn ? 1 : 0;
  }
  if (json) {
    std::printf("[");
    for (size_t k = 0; k < checks.size(); ++k) {
      const auto& c = checks[k];
      std::printf("%s\n  {\"check\": %s, \"status\": \"%s\", \"needed_by\": %s, \"detail\": %s, "
                  "\"fix\": %s}",
                  k == 0 ? "" : ",", json_string(c.name).c_str(),
                  c.status == HostCheck::Status::Ok     ? "ok"
                  : c.status == HostCheck::Status::Warn ? "warn"
                  : c.status == HostCheck::Status::Fail ? "fail"
                                                        : "not needed",
                  json_string(c.needed_by).c_str(), json_string(c.detail).c_str(),
                  json_string(c.fix).c_str());
    }
    std::printf("\n]\n");
    return failed > 0 ? 1 : 0;
  }
  bool color = ::isatty(STDOUT_FILENO) != 0;
  for (const auto& c : checks) {
    const char* on = !color                                ? ""
                     : c.status == HostCheck::Status::Fail ? "\033[1;31m"
                     : c.status == HostCheck::Status::Warn ? "\033[33m"
                     : c.status == HostCheck::Status::Ok   ? "\033[32m"
                                                           : "";
    std::printf("%s%-4s%s  %-18s %s\n", on, status_name(c.status), color ? "\033[0m" : "",
                c.name.c_str(), visible_text(c.detail).c_str());
    if (!c.fix.empty() && c.status != HostCheck::Status::Ok) {
      std::printf("      %-18s needed by %s; fix: %s\n", "", c.needed_by.c_str(),
                  visible_text(c.fix).c_str());
    }
  }
  if (failed > 0) {
    std::printf("\n%zu check%s failed: run the fix%s above, then 'ws doctor' again\n", failed,
                failed == 1 ? "" : "s", failed == 1 ? "" : "es");
  } else {
    std::printf("\nws has what it needs on this machine%s\n",
                warned > 0 ? " (see the warnings above)" : "");
  }
  return failed > 0 ? 1 : 0;
}

} // namespace ws
