#include "src/run/unix_socket_origin.hpp"

#include "src/network/netlink_dump.hpp"

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>

#include <cstring>

namespace ws {

namespace {

/// Whether the socket in `h` (a SOCK_DIAG_BY_FAMILY answer with UDIAG_SHOW_VFS) has its file
/// at (`dev`, `ino`).
bool bound_at(const nlmsghdr& h, dev_t dev, ino_t ino) {
  if (h.nlmsg_type != SOCK_DIAG_BY_FAMILY || h.nlmsg_len < NLMSG_LENGTH(sizeof(unix_diag_msg))) {
    return false;
  }
  const auto* m = static_cast<const unix_diag_msg*>(NLMSG_DATA(&h));
  int attributes = static_cast<int>(h.nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
  for (const auto* a = reinterpret_cast<const rtattr*>(m + 1); RTA_OK(a, attributes);
       a = RTA_NEXT(a, attributes)) {
    if (a->rta_type != UNIX_DIAG_VFS || RTA_PAYLOAD(a) < sizeof(unix_diag_vfs)) {
      continue;
    }
    unix_diag_vfs vfs{};
    std::memcpy(&vfs, RTA_DATA(a), sizeof(vfs));
    // The kernel's own dev_t (major << 20 | minor), not stat's encoding.
    dev_t file_dev = makedev(vfs.udiag_vfs_dev >> 20, vfs.udiag_vfs_dev & 0xfffff);
    if (file_dev == dev && vfs.udiag_vfs_ino == ino) {
      return true;
    }
  }
  return false;
}

} // namespace

int unix_socket_bound_here(dev_t dev, ino_t ino) {
  struct {
    nlmsghdr header;
    unix_diag_req request;
  } message{};
  message.header.nlmsg_len = sizeof(message);
  message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  message.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  message.header.nlmsg_seq = 1;
  message.request.sdiag_family = AF_UNIX;
  message.request.udiag_states = ~0U; // listening or not: a datagram socket is only bound
  message.request.udiag_show = UDIAG_SHOW_VFS;
  bool found = false;
  auto failed = network::netlink_dump(NETLINK_SOCK_DIAG, "SOCK_DIAG_BY_FAMILY", &message,
                                      sizeof(message), [&](const nlmsghdr& h) {
                                        found = bound_at(h, dev, ino);
                                        return !found;
                                      });
  if (failed) {
    return -failed->error;
  }
  return found ? 1 : 0;
}

} // namespace ws
