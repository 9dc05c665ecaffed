// libgit2's global init, without the CA bundle (repository.hpp: LibGit2).
//
// Debian's libgit2 uses mbedTLS, and its global init has mbedTLS parse the system's whole CA
// bundle (/etc/ssl/certs/ca-certificates.crt): 8-10 ms of CPU in every ws command, the largest
// single cost in `ws run`'s start-up (docs/benchmarks.md). ws never opens a TLS connection
// through libgit2 (no fetch, no push, no remote of any kind), so the init does not read the
// bundle: the definition of mbedtls_x509_crt_parse_file below takes the place of mbedTLS's for
// libgit2 (the dynamic linker looks in the executable first) and, while libgit2 initialises,
// loads nothing. Were ws ever to talk TLS through libgit2, no certificate would be trusted: it
// would fail closed. Any other call (git_libgit2_opts setting certificate locations) goes to
// mbedTLS's own.
#include "gitbridge/repository.hpp"

#include <git2.h>

#include <dlfcn.h>

#include <atomic>

namespace ws::gitbridge {

namespace {
thread_local bool g_initialising = false;
std::atomic<int> g_skipped{0};
} // namespace

int init_libgit2() {
  g_initialising = true;
  int count = git_libgit2_init();
  g_initialising = false;
  return count;
}

LibGit2::LibGit2() : m_first(init_libgit2() == 1) {}
LibGit2::~LibGit2() {
  git_libgit2_shutdown();
}

int ca_bundle_loads_skipped() {
  return g_skipped.load();
}

} // namespace ws::gitbridge

/// mbedTLS's signature (mbedtls/x509_crt.h), the certificate chain left opaque.
extern "C" int mbedtls_x509_crt_parse_file(void* chain, const char* path) {
  if (ws::gitbridge::g_initialising) {
    ws::gitbridge::g_skipped.fetch_add(1);
    return 0; // an empty chain: nothing trusted
  }
  using Parse = int (*)(void*, const char*);
  static Parse mbedtls = reinterpret_cast<Parse>(::dlsym(RTLD_NEXT, "mbedtls_x509_crt_parse_file"));
  return mbedtls ? mbedtls(chain, path) : -1;
}
