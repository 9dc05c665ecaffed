// The README's "Using it" section, typed as it stands by a normal user who installed ws into
// ~/.local: every command of it runs, in its order, and the agent's work lands.
#include "tests/integration/run_support.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

using namespace ws::test;
namespace fs = std::filesystem;

namespace {

/// The command lines of the first ```sh block after "## Using it", comments dropped.
std::vector<std::string> using_it_commands() {
  std::ifstream in(fs::path(WS_SOURCE_DIR) / "README.md");
  std::vector<std::string> out;
  bool section = false, block = false;
  for (std::string line; std::getline(in, line);) {
    if (line == "## Using it") {
      section = true;
    } else if (section && !block && line == "```sh") {
      block = true;
    } else if (block && line == "```") {
      break;
    } else if (block) {
      std::string command = std::regex_replace(line, std::regex(R"(\s+#\s.*$)"), "");
      if (!command.empty()) {
        out.push_back(command);
      }
    }
  }
  return out;
}

} // namespace

TEST_CASE("readme: 'Using it' works as typed after cmake --install --prefix ~/.local") {
  std::vector<std::string> commands = using_it_commands();
  REQUIRE(commands.size() >= 10);
  REQUIRE(commands.front().rfind("cd ", 0) == 0);
  Person person(people().back()); // nobody when this process is root
  fs::path prefix = person.home() / ".local";
  Run install = sh(q(WS_CMAKE) + " --install " + q(WS_BUILD_DIR) + " --prefix " +
                   q(prefix.string()) + " >/dev/null");
  REQUIRE_MESSAGE(install.status == 0, install.err);
  // The person's own project where the README says, and an "agent" named as the README's.
  std::string project =
      std::regex_replace(commands.front().substr(3), std::regex("^~"), person.home().string());
  fs::create_directories(project);
  REQUIRE(sh("cp -a " + q(person.project().string()) + "/. " + q(project)).status == 0);
  std::string agent;
  for (const auto& c : commands) {
    if (c.rfind("ws run -- ", 0) == 0) {
      agent = c.substr(10);
    }
  }
  REQUIRE(!agent.empty());
  { std::ofstream(prefix / "bin" / agent) << "#!/bin/sh\necho 'int helper;' > src/helper.c\n"; }
  fs::permissions(prefix / "bin" / agent, fs::perms::owner_all | fs::perms::group_read |
                                              fs::perms::group_exec | fs::perms::others_read |
                                              fs::perms::others_exec);
  person.own(person.home());

  // Typed as written: "[PATH...]" is optional, NAME is the workspace made by 'ws new', the
  // shell gets no input (so it ends at once).
  std::string script = "set -ex\n";
  for (std::string c : commands) {
    c = std::regex_replace(c, std::regex(R"( \[[^\]]*\])"), "");
    c = std::regex_replace(c, std::regex(" NAME$"), " default");
    if (c == "ws shell") {
      c += " </dev/null";
    }
    script += c + "\n";
  }
  script += "git status --porcelain\n";
  std::string env = "env -i HOME=" + q(person.home().string()) +
                    " PATH=" + q((prefix / "bin").string()) + ":/usr/bin:/bin" +
                    " XDG_RUNTIME_DIR=" + q(person.runtime().string()) + " LANG=C.UTF-8 ";
  for (const char* name : {"ASAN_OPTIONS", "UBSAN_OPTIONS"}) { // a sanitizer build's settings
    if (const char* value = std::getenv(name)) {
      env += std::string(name) + "=" + q(value) + " ";
    }
  }
  Run r = sh(person.as(env + "sh -c " + q(script + "\n") + " 2>&1"), project);
  sh(person.as(env + "ws umount --force") + " 2>/dev/null", project); // if it stopped halfway
  INFO(r.out);
  CHECK(r.status == 0);
  CHECK(r.out.find("applied 1 change") != std::string::npos);
  CHECK(r.out.find("?? src/helper.c") != std::string::npos); // landed in the real tree
  CHECK(r.out.find("removed workspace 'default'") != std::string::npos);
}
