#include "gitbridge/repository.hpp"
#include "src/cli/cli.hpp"
#include "src/cli/error.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>

int main(int argc, char** argv) {
  // `ws __exec -- CMD...`: the first process of a `ws run` sandbox. bwrap runs with SIGINT
  // and SIGQUIT ignored (so a Ctrl-C meant for the agent does not kill the sandbox around
  // it); here they get their default back, so the agent decides what Ctrl-C means.
  if (argc >= 3 && std::string_view(argv[1]) == "__exec" && std::string_view(argv[2]) == "--") {
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGQUIT, SIG_DFL);
    if (argc == 3) {
      return 127;
    }
    ::execvp(argv[3], argv + 3);
    std::fprintf(stderr, "ws: cannot run %s: %s\n", argv[3], std::strerror(errno));
    return errno == ENOENT ? 127 : 126;
  }
  ws::gitbridge::LibGit2 libgit2;
  try {
    return ws::run_cli(argc, argv);
  } catch (const ws::Error& e) {
    std::fprintf(stderr, "ws: error: %s\n", e.what());
    if (!e.hint().empty()) {
      std::fprintf(stderr, "hint: %s\n", e.hint().c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ws: error: %s\n", e.what());
  }
  return 1;
}
