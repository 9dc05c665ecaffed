#pragma once

#include <linux/netlink.h>

#include <cstddef>
#include <functional>
#include <optional>

namespace ws::network {

/// Why a netlink dump ended early: the step that failed ("netlink socket", "send", "recv",
/// "no answer from the kernel", or the request's name when the kernel refused it) and its
/// errno (positive).
struct NetlinkFailure {
  const char* step = "";
  int error = 0;
};

/// Sends `request` (`size` bytes: an nlmsghdr flagged NLM_F_REQUEST | NLM_F_DUMP, then its
/// body) over a fresh socket of netlink `protocol` (NETLINK_ROUTE, NETLINK_SOCK_DIAG), and
/// hands each message of the multipart answer to `each` until NLMSG_DONE, or until `each`
/// returns false. Waits at most 5 s for each part. `name` ("RTM_GETROUTE") names the request
/// when the kernel answers with an error. Only system calls (ws-init runs it from its socket
/// supervisor); nullopt when the dump ended as asked.
std::optional<NetlinkFailure> netlink_dump(int protocol, const char* name, const void* request,
                                           std::size_t size,
                                           const std::function<bool(const nlmsghdr&)>& each);

} // namespace ws::network
