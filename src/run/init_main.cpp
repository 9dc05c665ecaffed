// ws-init: pid 1 of every `ws run` sandbox (sandbox_init.hpp), a program of its own beside the
// ws binary. It is ws's `__exec` without the rest of ws: static, so the sandbox does not load
// ws's thirty shared libraries (libgit2, OpenSSL, Kerberos...) before the agent starts
// (~20 ms of CPU at every session start; docs/run.md, "Cost"). Same arguments as
// `ws __exec`; ws falls back to that when ws-init is not beside it.
#include "src/run/sandbox_init.hpp"

#include <cstdio>
#include <string_view>

int main(int argc, char** argv) {
  if (argc < 2 || std::string_view(argv[1]) != "__exec") {
    std::fprintf(stderr, "ws-init: the first process of a ws run sandbox; ws runs it\n");
    return 127;
  }
  return ws::run_sandbox_init(argc, argv);
}
