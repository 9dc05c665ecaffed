#pragma once
// What the libfuse trampolines share (fuse_adapter.cpp, fuse_adapter_dirs.cpp): the request's
// filesystem and caller, the one place exceptions become errnos, and entry replies.

#include "fuse/log.hpp"
#include "fuse/overlay_fs.hpp"
#include "fuse/system_error.hpp"

#include <fuse_lowlevel.h>

#include <new>

namespace ws::fuse::adapter {

inline OverlayFs& fs_of(fuse_req_t req) {
  return *static_cast<OverlayFs*>(fuse_req_userdata(req));
}

inline Caller caller_of(fuse_req_t req) {
  const fuse_ctx* ctx = fuse_req_ctx(req);
  return {ctx->uid, ctx->gid, ctx->pid, ctx->umask};
}

/// The node `ino` names, refused (EACCES) to the person's processes when it is the agent's at
/// a git-sensitive path (they reach it only through something the kernel cached).
inline Node* checked_node(fuse_req_t req, fuse_ino_t ino) {
  OverlayFs& fs = fs_of(req);
  Node* n = fs.node(ino);
  fs.check_git_guard(caller_of(req), n);
  return n;
}

/// One fd-backed buffer (FUSE_BUFVEC_INIT is a C compound literal, not C++).
inline fuse_bufvec fd_buffer(size_t size, int fd, off_t pos) {
  fuse_bufvec v{};
  v.count = 1;
  v.buf[0].size = size;
  v.buf[0].flags = static_cast<fuse_buf_flags>(FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK);
  v.buf[0].fd = fd;
  v.buf[0].pos = pos;
  return v;
}

inline FileHandle* fh_of(fuse_file_info* fi) {
  return fi ? reinterpret_cast<FileHandle*>(fi->fh) : nullptr;
}

template <class F> void guarded(fuse_req_t req, const char* op, F&& f) {
  try {
    f();
  } catch (const SystemError& e) {
    SPDLOG_LOGGER_DEBUG(&logger(), "{} -> {}", op, e.what());
    fuse_reply_err(req, e.err() ? e.err() : EIO);
  } catch (const DbError& e) {
    logger().error("{}: {}", op, e.what()); // e.g. the disk filled up under meta.db
    fuse_reply_err(req, e.as_errno());
  } catch (const std::bad_alloc&) {
    fuse_reply_err(req, ENOMEM);
  } catch (const std::exception& e) {
    logger().error("{}: {}", op, e.what());
    fuse_reply_err(req, EIO);
  }
}

inline fuse_entry_param to_param(OverlayFs& fs, const Entry& e) {
  fuse_entry_param p{};
  p.ino = fs.nodeid(e.node);
  p.generation = e.node->generation;
  p.attr = e.attr;
  p.attr_timeout = e.timeout;
  p.entry_timeout = e.timeout;
  return p;
}

inline void reply_entry(fuse_req_t req, const Entry& e) {
  OverlayFs& fs = fs_of(req);
  fuse_entry_param p = to_param(fs, e);
  if (fuse_reply_entry(req, &p) != 0) {
    fs.forget(e.node, 1); // the request was interrupted: the kernel never took the reference
  }
}

// The directory operations (fuse_adapter_dirs.cpp).
void ll_opendir(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi);
void ll_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, fuse_file_info* fi);
void ll_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, fuse_file_info* fi);
void ll_releasedir(fuse_req_t req, fuse_ino_t, fuse_file_info* fi);
void ll_fsyncdir(fuse_req_t req, fuse_ino_t, int, fuse_file_info*);

} // namespace ws::fuse::adapter
