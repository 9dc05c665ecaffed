#include "gitbridge/repository.hpp"
#include "src/cli/cli.hpp"
#include "src/cli/error.hpp"
#include "src/cli/text.hpp"
#include "src/run/sandbox_init.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>

int main(int argc, char** argv) {
  // `ws __exec ... -- CMD...`: pid 1 of a `ws run` sandbox (src/run/sandbox_init.hpp).
  if (argc >= 2 && std::string_view(argv[1]) == "__exec") {
    return ws::run_sandbox_init(argc, argv);
  }
  ws::gitbridge::LibGit2 libgit2;
  // Messages name paths, targets and text the agent chose: escaped, so none of it acts on
  // the terminal (ws::visible_text).
  try {
    return ws::run_cli(argc, argv);
  } catch (const ws::Error& e) {
    std::fprintf(stderr, "ws: error: %s\n", ws::visible_text(e.what()).c_str());
    if (!e.hint().empty()) {
      std::fprintf(stderr, "hint: %s\n", ws::visible_text(e.hint()).c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ws: error: %s\n", ws::visible_text(e.what()).c_str());
  }
  return 1;
}
