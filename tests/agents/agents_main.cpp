// Main of the real-agent tests: Claude Code and Codex CLI from the npm registry, installed
// once into the build tree (WS_AGENT_CACHE) and kept there, so later runs cost nothing.
// Exits 77 (ctest: skipped) where FUSE cannot be used or the registry cannot be reached.
#define DOCTEST_CONFIG_IMPLEMENT
#include "tests/agents/agent_clis.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <string_view>

int main(int argc, char** argv) {
  // Listing the tests (ctest's discovery, at build time) installs nothing.
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]).find("list-test") != std::string_view::npos) {
      doctest::Context ctx(argc, argv);
      return ctx.run();
    }
  }
  std::string why;
  if (!ws::test::fuse_usable(why)) {
    std::fprintf(stderr, "SKIP: %s\n", why.c_str());
    return 77;
  }
  if (!ws::test::install_agent_clis(why)) {
    std::fprintf(stderr, "SKIP: %s\n", why.c_str());
    return 77;
  }
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
