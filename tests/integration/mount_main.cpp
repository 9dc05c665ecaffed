// Main of the real-mount tests: exits 77 (ctest: skipped) where FUSE cannot be used.
#define DOCTEST_CONFIG_IMPLEMENT
#include "gitbridge/repository.hpp"
#include "tests/support/harness.hpp"

#include <doctest/doctest.h>

#include <cstdio>

int main(int argc, char** argv) {
  std::string why;
  if (!ws::test::fuse_usable(why)) {
    std::fprintf(stderr, "SKIP: %s\n", why.c_str());
    return 77;
  }
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
