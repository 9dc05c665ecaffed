// A netlink dump: one request, a multipart answer (netlink_dump.hpp).
#include "src/network/netlink_dump.hpp"

#include "fuse/unique_fd.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <vector>

namespace ws::network {

std::optional<NetlinkFailure> netlink_dump(int protocol, const char* name, const void* request,
                                           std::size_t size,
                                           const std::function<bool(const nlmsghdr&)>& each) {
  fuse::UniqueFd nl(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, protocol));
  if (!nl) {
    return NetlinkFailure{"netlink socket", errno};
  }
  if (::send(nl.get(), request, size, 0) < 0) {
    return NetlinkFailure{"send", errno};
  }
  // The kernel fills a dump's parts up to what the reader's buffer takes, 32 KiB at most.
  std::vector<char> buffer(64 * 1024);
  for (;;) {
    pollfd p{nl.get(), POLLIN, 0};
    if (::poll(&p, 1, 5000) <= 0) {
      return NetlinkFailure{"no answer from the kernel", ETIMEDOUT};
    }
    ssize_t n = ::recv(nl.get(), buffer.data(), buffer.size(), 0);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return NetlinkFailure{"recv", errno};
    }
    int left = static_cast<int>(n);
    // NLMSG_OK itself compares the header's unsigned length with the signed `left` (clang
    // warns inside the macro): the same checks, spelled out.
    auto fits = [&left](const nlmsghdr* h) {
      return left >= static_cast<int>(sizeof(nlmsghdr)) && h->nlmsg_len >= sizeof(nlmsghdr) &&
             h->nlmsg_len <= static_cast<unsigned>(left);
    };
    for (auto* h = reinterpret_cast<nlmsghdr*>(buffer.data()); fits(h); h = NLMSG_NEXT(h, left)) {
      if (h->nlmsg_type == NLMSG_DONE) {
        return std::nullopt;
      }
      if (h->nlmsg_type == NLMSG_ERROR) {
        const auto* e = static_cast<const nlmsgerr*>(NLMSG_DATA(h));
        return NetlinkFailure{name, e->error < 0 ? -e->error : EIO};
      }
      if (!each(*h)) {
        return std::nullopt;
      }
    }
  }
}

} // namespace ws::network
