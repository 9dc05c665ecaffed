// git's fsmonitor hook asks through an ioctl on the view's root directory (fsmonitor_protocol.hpp,
// docs/fsmonitor.md): a channel that exists wherever the view is seen, inside `ws run` too,
// and that gives nothing but the names the record holds (no workspace state, no socket).
#include "fuse/fsmonitor_protocol.hpp"
#include "fuse/fuse_ops.hpp"
#include "fuse/log.hpp"
#include "fuse/overlay_fs.hpp"

#include <cstdio>
#include <cstring>
#include <memory>

namespace ws::fuse {

void fsmonitor_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned int cmd, void*, fuse_file_info*,
                     unsigned flags, const void* in_buf, size_t in_bufsz, size_t out_bufsz) {
  if (cmd != static_cast<unsigned int>(k_fsmonitor_ioctl) || (flags & FUSE_IOCTL_COMPAT)) {
    fuse_reply_err(req, ENOTTY);
    return;
  }
  if (ino != FUSE_ROOT_ID) {
    fuse_reply_err(req, ENOTTY); // git asks at its worktree's root: the view's
    return;
  }
  if (in_bufsz < sizeof(FsmonitorQuery) || out_bufsz < sizeof(FsmonitorBuffer)) {
    fuse_reply_err(req, EINVAL);
    return;
  }
  try {
    FsmonitorQuery q;
    std::memcpy(&q, in_buf, sizeof q);
    if (q.version != k_fsmonitor_version) {
      fuse_reply_err(req, EPROTO);
      return;
    }
    q.token[sizeof q.token - 1] = '\0';
    auto* fs = static_cast<OverlayFs*>(fuse_req_userdata(req));
    auto out = std::make_unique<FsmonitorBuffer>();
    FsmonitorAnswer& a = out->answer;
    // The person's edits made before git asked are on record once the watcher caught up.
    bool synced = q.upto != 0 || (fs->sync_watcher() && fs->changes().before_answer());
    ChangeLog::Page page =
        fs->changes().since(synced ? q.token : "", q.upto, q.cursor, sizeof a.names);
    a.version = k_fsmonitor_version;
    a.flags = page.everything ? k_fsmonitor_everything : 0;
    a.upto = page.upto;
    a.next = page.everything ? 0 : page.next;
    std::snprintf(a.token, sizeof a.token, "%s", page.token.c_str());
    if (!page.everything) {
      for (const std::string& name : page.paths) {
        std::memcpy(a.names + a.used, name.c_str(), name.size() + 1);
        a.used += static_cast<uint32_t>(name.size() + 1);
        ++a.count;
      }
    }
    SPDLOG_LOGGER_DEBUG(&logger(), "fsmonitor({}, upto={}, cursor={}) -> {} {} names, next {}",
                        q.token, q.upto, q.cursor, page.everything ? "everything" : page.token,
                        a.count, a.next);
    fuse_reply_ioctl(req, 0, out.get(), sizeof *out);
  } catch (const std::bad_alloc&) {
    fuse_reply_err(req, ENOMEM);
  } catch (const std::exception& e) {
    logger().error("fsmonitor: {}", e.what());
    fuse_reply_err(req, EIO);
  }
}

} // namespace ws::fuse
