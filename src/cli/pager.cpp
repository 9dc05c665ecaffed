#include "src/cli/pager.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace ws {

namespace {
std::string pager_command() {
  for (const char* var : {"WS_PAGER", "GIT_PAGER", "PAGER"}) {
    if (const char* v = std::getenv(var)) {
      return v;
    }
  }
  return "less";
}
} // namespace

Output::Output(bool use_pager) {
  if (!use_pager || !::isatty(STDOUT_FILENO)) {
    return;
  }
  std::string cmd = pager_command();
  if (cmd.empty() || cmd == "cat") {
    return;
  }
  ::setenv("LESS", std::getenv("LESS") ? std::getenv("LESS") : "FRX", 0);
  ::setenv("LV", "-c", 0);
  std::fflush(stdout);
  m_pipe = ::popen(cmd.c_str(), "w");
  if (m_pipe) {
    // A pager quit before the end closes the pipe: stop writing, don't die of SIGPIPE.
    ::signal(SIGPIPE, SIG_IGN);
    m_file = m_pipe;
  }
}

Output::~Output() {
  if (m_pipe) {
    std::fflush(m_pipe);
    ::pclose(m_pipe);
  } else {
    std::fflush(stdout);
  }
}

bool use_color(const std::string& option, int fd) {
  if (option == "always") {
    return true;
  }
  if (option == "never") {
    return false;
  }
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  return ::isatty(fd) && !(no_color && *no_color) && !(term && std::strcmp(term, "dumb") == 0);
}

} // namespace ws
