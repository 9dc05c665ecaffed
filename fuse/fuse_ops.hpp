#pragma once

// Private to fuse/: the low-level operation table the session registers.
#include <fuse_lowlevel.h>

namespace ws::fuse {

/// The trampolines of fuse_adapter.cpp behind the write gate (write_gate_ops.cpp); userdata
/// must be the OverlayFs.
const fuse_lowlevel_ops& lowlevel_ops();
/// git's fsmonitor hook's ioctl on the view's root (fsmonitor_ioctl.cpp).
void fsmonitor_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned int cmd, void* arg,
                     fuse_file_info* fi, unsigned flags, const void* in_buf, size_t in_bufsz,
                     size_t out_bufsz);
/// The trampolines of fuse_adapter.cpp alone.
const fuse_lowlevel_ops& ungated_ops();

} // namespace ws::fuse
