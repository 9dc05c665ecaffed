// Red team (round 22) against `ws run`'s sandbox: kernel interfaces that a network, pid or
// mount namespace does not fence. Each case tries the attack for real, through the real
// binary and bubblewrap, as root and as an unprivileged user; every case here was a hole when
// written (it failed on the code of its day) and is closed now.
#include "tests/integration/run_escapes_common.hpp"

#include <doctest/doctest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <string>

using namespace ws::test;

namespace {

/// Makes a vsock socket of each type (never connects: CID 2 is the hypervisor's, whatever
/// listens there is not ours to touch): vsock_TYPE=OK or the errno's name.
const std::string k_vsock = "import errno, socket\n"
                            "for name, kind in (('stream', socket.SOCK_STREAM),\n"
                            "                   ('seqpacket', socket.SOCK_SEQPACKET)):\n"
                            "    try:\n"
                            "        socket.socket(socket.AF_VSOCK, kind).close()\n"
                            "        print('vsock_' + name + '=OK')\n"
                            "    except OSError as e:\n"
                            "        print('vsock_' + name + '=' + errno.errorcode.get(e.errno, "
                            "'?'))\n";

bool host_has_vsock() {
  int fd = ::socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return false;
  }
  ::close(fd);
  return true;
}

void check_vsock(const std::string& user) {
  Person p(user);
  for (const std::string network : {"off", "on"}) {
    Run r = p.ws("run --network=" + network + " -- " + py() + " -c " + q(k_vsock));
    INFO("as " << p.label() << ", --network=" << network << ": ws run " << r.status << "\n"
               << r.out << r.err);
    CHECK(r.status == 0);
    CHECK(field(r.out, "vsock_stream") != "<missing>");
    CHECK_MESSAGE(field(r.out, "vsock_stream") == "EAFNOSUPPORT",
                  "the agent made a vsock socket: the hypervisor's services and the host's "
                  "vsock listeners are within its reach, whatever --network says");
    CHECK(field(r.out, "vsock_seqpacket") == "EAFNOSUPPORT");
  }
}

} // namespace

// Closed hole: vsock (AF_VSOCK, the channel between a virtual machine and its hypervisor) is
// not network-namespaced on this kernel (no net.vsock sysctl): a private network namespace
// leaves it as the host has it. On a VM (a Firecracker or QEMU guest, a cloud instance) the
// agent reaches every vsock service of the hypervisor side at CID 2 (guest agents, the
// orchestrator's channels) and, with vsock_loopback or vhost_vsock, the host's own vsock
// listeners and its VMs, with --network=off as with any other mode: a way out no proxy sees.
TEST_CASE("redteam sandbox: the agent gets no vsock socket, whatever --network says") {
  if (!host_has_vsock()) {
    MESSAGE("this kernel has no vsock: nothing to reach, nothing to refuse");
    return;
  }
  as_each(check_vsock);
}
