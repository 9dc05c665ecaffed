#include "gitbridge/repository.hpp"
#include "src/cli.hpp"
#include "src/error.hpp"

#include <cstdio>

int main(int argc, char** argv) {
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
