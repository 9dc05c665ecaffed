#include "tests/cli/cli_surface.hpp"

#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <sstream>
#include <thread>

namespace ws::test {

namespace {

/// The option names in the first column of the "Options:" section of a --help text.
std::vector<std::string> options_in(const std::string& help) {
  std::vector<std::string> out;
  std::istringstream in(help);
  bool options = false;
  for (std::string line; std::getline(in, line);) {
    if (line == "Options:") {
      options = true;
      continue;
    }
    if (line.empty() || line[0] != ' ') {
      options = false;
      continue;
    }
    size_t at = line.find_first_not_of(' ');
    if (!options || at != 2 || line[at] != '-') {
      continue;
    }
    std::string names = line.substr(at, line.find(' ', at) - at);
    std::istringstream parts(names);
    for (std::string name; std::getline(parts, name, ',');) {
      out.push_back(name);
    }
  }
  return out;
}

/// The names listed under `heading` ("Commands:") in a --help text.
std::vector<std::string> commands_in(const std::string& help, const std::string& heading) {
  std::vector<std::string> out;
  std::istringstream in(help);
  bool listed = false;
  for (std::string line; std::getline(in, line);) {
    if (line == heading) {
      listed = true;
      continue;
    }
    if (listed && line.rfind("  ", 0) == 0 && line.size() > 2 && line[2] != ' ') {
      out.push_back(line.substr(2, line.find(' ', 2) - 2));
    } else if (listed && line.empty()) {
      listed = false;
    }
  }
  return out;
}

} // namespace

HelpSurface help_surface() {
  HelpSurface s;
  Run top = sh(q(ws_binary().string()) + " --help");
  REQUIRE(top.status == 0);
  s.global = options_in(top.out);
  for (const std::string& name : commands_in(top.out, "Commands:")) {
    Run r = sh(q(ws_binary().string()) + " " + name + " --help");
    REQUIRE(r.status == 0);
    HelpCommand c{name, options_in(r.out), {}};
    for (const std::string& sub : commands_in(r.out, "Subcommands:")) {
      Run rs = sh(q(ws_binary().string()) + " " + name + " " + sub + " --help");
      REQUIRE(rs.status == 0);
      c.subcommands.push_back({sub, options_in(rs.out), {}});
    }
    s.commands.push_back(std::move(c));
  }
  return s;
}

Terminal::Terminal(const std::string& command) {
  char dir[] = "/tmp/ws-term-XXXXXX";
  REQUIRE(::mkdtemp(dir) != nullptr);
  m_dir = dir;
  m_socket = m_dir + "/tmux.sock";
  Run r = sh("tmux -S " + q(m_socket) + " -f /dev/null new-session -d -x 100 -y 30 " +
             q(command + "; sleep 600"));
  REQUIRE_MESSAGE(r.status == 0, r.err);
}

Terminal::~Terminal() {
  sh("tmux -S " + q(m_socket) + " kill-server; rm -rf " + q(m_dir));
}

std::string Terminal::screen() const {
  return sh("tmux -S " + q(m_socket) + " capture-pane -p").out;
}

void Terminal::keys(const std::string& keys, const std::string& then) const {
  REQUIRE(sh("tmux -S " + q(m_socket) + " send-keys -- " + keys).status == 0);
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::string s;
  while (std::chrono::steady_clock::now() < until) {
    s = screen();
    if (s.find(then) != std::string::npos) {
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  FAIL("'" << then << "' never appeared; the screen:\n" << s);
}

} // namespace ws::test
