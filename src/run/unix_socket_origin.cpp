#include "src/run/unix_socket_origin.hpp"

#include "fuse/unique_fd.hpp"

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace ws {

int unix_socket_bound_here(dev_t dev, ino_t ino) {
  fuse::UniqueFd nl(::socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG));
  if (!nl) {
    return -errno;
  }
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
  if (::send(nl.get(), &message, sizeof(message), 0) < 0) {
    return -errno;
  }
  std::vector<char> buffer(32 * 1024);
  for (;;) {
    pollfd p{nl.get(), POLLIN, 0};
    if (::poll(&p, 1, 5000) <= 0) {
      return -ETIMEDOUT;
    }
    ssize_t n = ::recv(nl.get(), buffer.data(), buffer.size(), 0);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return -errno;
    }
    int left = static_cast<int>(n);
    // NLMSG_OK compares the unsigned length with the signed `left` (clang warns inside the
    // macro): the same checks, spelled out.
    auto fits = [&left](const nlmsghdr* h) {
      return left >= static_cast<int>(sizeof(nlmsghdr)) && h->nlmsg_len >= sizeof(nlmsghdr) &&
             h->nlmsg_len <= static_cast<unsigned>(left);
    };
    for (auto* h = reinterpret_cast<nlmsghdr*>(buffer.data()); fits(h); h = NLMSG_NEXT(h, left)) {
      if (h->nlmsg_type == NLMSG_DONE) {
        return 0;
      }
      if (h->nlmsg_type == NLMSG_ERROR) {
        const auto* e = static_cast<const nlmsgerr*>(NLMSG_DATA(h));
        return e->error < 0 ? e->error : -EIO;
      }
      if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
          h->nlmsg_len < NLMSG_LENGTH(sizeof(unix_diag_msg))) {
        continue;
      }
      const auto* m = static_cast<const unix_diag_msg*>(NLMSG_DATA(h));
      int attributes = static_cast<int>(h->nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
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
          return 1;
        }
      }
    }
  }
}

} // namespace ws
