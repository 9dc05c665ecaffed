#include "src/run/seccomp_filter.hpp"

#include "src/cli/error.hpp"

#include <linux/seccomp.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace ws {

namespace {
struct SeccompCtx {
  scmp_filter_ctx ctx;
  explicit SeccompCtx(scmp_filter_ctx c) : ctx(c) {}
  SeccompCtx(const SeccompCtx&) = delete;
  SeccompCtx& operator=(const SeccompCtx&) = delete;
  ~SeccompCtx() { seccomp_release(ctx); }
};

void check(int rc, const char* what) {
  if (rc < 0) {
    throw Error(std::string("cannot build the sandbox's seccomp filter: ") + what + ": " +
                std::strerror(-rc));
  }
}

SeccompCtx new_filter() {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) {
    throw Error("cannot build the sandbox's seccomp filter: seccomp_init failed");
  }
  return SeccompCtx(ctx);
}

fuse::UniqueFd export_filter(const SeccompCtx& f) {
  fuse::UniqueFd fd(::memfd_create("ws-seccomp", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!fd) {
    throw Error(std::string("cannot build the sandbox's seccomp filter: memfd_create: ") +
                std::strerror(errno));
  }
  check(seccomp_export_bpf(f.ctx, fd.get()), "export");
  ::lseek(fd.get(), 0, SEEK_SET);
  return fd;
}

scmp_arg_cmp arg_cmp(unsigned arg, scmp_compare op, scmp_datum_t a, scmp_datum_t b = 0) {
  // By hand: the SCMP_Ax macros are C99 compound literals, which C++ lacks.
  scmp_arg_cmp cmp{};
  cmp.arg = arg;
  cmp.op = op;
  cmp.datum_a = a;
  cmp.datum_b = b;
  return cmp;
}

/// What socket_supervision_filter refuses outright, on each architecture.
void refuse_bypasses(const SeccompCtx& f) {
  for (int call :
       {SCMP_SYS(io_uring_setup), SCMP_SYS(io_uring_enter), SCMP_SYS(io_uring_register)}) {
    check(seccomp_rule_add(f.ctx, SCMP_ACT_ERRNO(ENOSYS), call, 0), "refuse io_uring");
  }
  scmp_arg_cmp listener[] = {arg_cmp(0, SCMP_CMP_EQ, SECCOMP_SET_MODE_FILTER),
                             arg_cmp(1, SCMP_CMP_MASKED_EQ, SECCOMP_FILTER_FLAG_NEW_LISTENER,
                                     SECCOMP_FILTER_FLAG_NEW_LISTENER)};
  check(seccomp_rule_add_array(f.ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(seccomp), 2, listener),
        "refuse a seccomp listener");
}
} // namespace

fuse::UniqueFd terminal_injection_filter() {
  SeccompCtx f = new_filter();
  // Both native and 32-bit x86 calls: a filter for one architecture alone could be
  // stepped around with the other's system call numbers.
  if (seccomp_arch_exist(f.ctx, SCMP_ARCH_X86) == -EEXIST) {
    check(seccomp_arch_add(f.ctx, SCMP_ARCH_X86), "add the x86 architecture");
  }
  for (unsigned long request :
       {static_cast<unsigned long>(TIOCSTI), static_cast<unsigned long>(TIOCLINUX)}) {
    // The request argument is an int in the kernel: compare its low 32 bits only, so a
    // value with garbage in the high bits cannot slip through.
    scmp_arg_cmp cmp = arg_cmp(1, SCMP_CMP_MASKED_EQ, 0xffffffffu, request);
    check(seccomp_rule_add_array(f.ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1, &cmp),
          "refuse terminal input injection");
  }
  // The kernel's keyrings: the agent would inherit the person's session keyring (Kerberos
  // KEYRING: caches, cached passwords, tokens stored with keyctl) and could read it or plant
  // keys the host later uses. Refused as Docker's default profile refuses them.
  for (int call : {SCMP_SYS(keyctl), SCMP_SYS(add_key), SCMP_SYS(request_key)}) {
    check(seccomp_rule_add(f.ctx, SCMP_ACT_ERRNO(EPERM), call, 0), "refuse the keyrings");
  }
  // Socket families: only those a program in a private network uses. Others go unused there
  // and each is kernel code the agent could reach, or make the kernel load: socket(AF_TIPC)
  // or socketpair(AF_RDS) runs `modprobe net-pf-N` on a host with loadable modules (Flatpak
  // refuses them too). vsock above all is not network-namespaced: the hypervisor's vsock
  // services (CID 2) and the host's vsock listeners would be in reach whatever --network
  // says. EAFNOSUPPORT, as on a kernel without them; families past the headers' AF_MAX too,
  // up to 64. (For 32-bit x86 calls through socketcall(2), whose family lies in memory,
  // libseccomp refuses every socket() there.)
  for (int family = 0; family < 64; ++family) {
    if (family == AF_UNIX || family == AF_INET || family == AF_INET6 || family == AF_NETLINK) {
      continue;
    }
    // The family is an int in the kernel: compare its low 32 bits only.
    scmp_arg_cmp cmp =
        arg_cmp(0, SCMP_CMP_MASKED_EQ, 0xffffffffu, static_cast<scmp_datum_t>(family));
    for (int call : {SCMP_SYS(socket), SCMP_SYS(socketpair)}) {
      check(seccomp_rule_add_array(f.ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), call, 1, &cmp),
            "refuse unused socket families");
    }
  }
  return export_filter(f);
}

fuse::UniqueFd socket_supervision_filter() {
  SeccompCtx native = new_filter();
  for (int call : {SCMP_SYS(connect), SCMP_SYS(sendmsg), SCMP_SYS(sendmmsg)}) {
    check(seccomp_rule_add(native.ctx, SCMP_ACT_NOTIFY, call, 0), "supervise sockets");
  }
  // send() is sendto() without an address: the agent's every write to a socket. Only the
  // calls that carry one wait (the pointer is a register: BPF sees it).
  scmp_arg_cmp with_address = arg_cmp(4, SCMP_CMP_NE, 0);
  check(seccomp_rule_add_array(native.ctx, SCMP_ACT_NOTIFY, SCMP_SYS(sendto), 1, &with_address),
        "supervise sendto");
  refuse_bypasses(native);
  if (seccomp_arch_native() != SCMP_ARCH_X86_64) {
    return export_filter(native);
  }
  // 32-bit x86 calls, in a filter of their own: there socket calls may come through
  // socketcall(2), whose arguments lie in memory, and libseccomp would compare sendto's
  // address with a register that call does not use. Every 32-bit sendto waits.
  SeccompCtx x86 = new_filter();
  check(seccomp_arch_add(x86.ctx, SCMP_ARCH_X86), "add the x86 architecture");
  check(seccomp_arch_remove(x86.ctx, SCMP_ARCH_NATIVE), "remove the native architecture");
  for (int call : {SCMP_SYS(connect), SCMP_SYS(sendto), SCMP_SYS(sendmsg), SCMP_SYS(sendmmsg)}) {
    check(seccomp_rule_add(x86.ctx, SCMP_ACT_NOTIFY, call, 0), "supervise 32-bit sockets");
  }
  refuse_bypasses(x86);
  check(seccomp_merge(native.ctx, x86.ctx), "merge the x86 filter");
  x86.ctx = nullptr; // merged into native, released with it
  return export_filter(native);
}

} // namespace ws
