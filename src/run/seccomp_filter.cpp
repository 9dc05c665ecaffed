#include "src/run/seccomp_filter.hpp"

#include "src/cli/error.hpp"

#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace ws {

namespace {
struct SeccompCtx {
  scmp_filter_ctx ctx;
  ~SeccompCtx() { seccomp_release(ctx); }
};

void check(int rc, const char* what) {
  if (rc < 0) {
    throw Error(std::string("cannot build the sandbox's seccomp filter: ") + what + ": " +
                std::strerror(-rc));
  }
}
} // namespace

fuse::UniqueFd terminal_injection_filter() {
  SeccompCtx f{seccomp_init(SCMP_ACT_ALLOW)};
  if (!f.ctx) {
    throw Error("cannot build the sandbox's seccomp filter: seccomp_init failed");
  }
  // Both native and 32-bit x86 calls: a filter for one architecture alone could be
  // stepped around with the other's system call numbers.
  if (seccomp_arch_exist(f.ctx, SCMP_ARCH_X86) == -EEXIST) {
    check(seccomp_arch_add(f.ctx, SCMP_ARCH_X86), "add the x86 architecture");
  }
  for (unsigned long request :
       {static_cast<unsigned long>(TIOCSTI), static_cast<unsigned long>(TIOCLINUX)}) {
    // The request argument is an int in the kernel: compare its low 32 bits only, so a
    // value with garbage in the high bits cannot slip through.
    // Built by hand: the SCMP_A1 macro is a C99 compound literal, which C++ lacks.
    scmp_arg_cmp cmp{};
    cmp.arg = 1;
    cmp.op = SCMP_CMP_MASKED_EQ;
    cmp.datum_a = 0xffffffffu;
    cmp.datum_b = request;
    check(seccomp_rule_add_array(f.ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1, &cmp),
          "refuse terminal input injection");
  }
  // The kernel's keyrings: the agent would inherit the person's session keyring (Kerberos
  // KEYRING: caches, cached passwords, tokens stored with keyctl) and could read it or plant
  // keys the host later uses. Refused as Docker's default profile refuses them.
  for (int call : {SCMP_SYS(keyctl), SCMP_SYS(add_key), SCMP_SYS(request_key)}) {
    check(seccomp_rule_add(f.ctx, SCMP_ACT_ERRNO(EPERM), call, 0), "refuse the keyrings");
  }
  fuse::UniqueFd fd(::memfd_create("ws-seccomp", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!fd) {
    throw Error(std::string("cannot build the sandbox's seccomp filter: memfd_create: ") +
                std::strerror(errno));
  }
  check(seccomp_export_bpf(f.ctx, fd.get()), "export");
  ::lseek(fd.get(), 0, SEEK_SET);
  return fd;
}

} // namespace ws
