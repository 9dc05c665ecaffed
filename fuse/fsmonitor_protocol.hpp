#pragma once

// The ioctl git's fsmonitor hook (ws-fsmonitor) makes on the view's root directory, served
// by the daemon (fuse/fsmonitor_ioctl.cpp). A restricted FUSE ioctl: one fixed-size buffer,
// read and written (the kernel copies _IOC_SIZE bytes each way). A long answer comes in
// pages: the first fixes `upto`, each names the `cursor` of the next (docs/fsmonitor.md).
// Plain C types only: the static hook includes this and nothing else of ws.
#include <linux/ioctl.h>

#include <cstdint>

namespace ws::fuse {

constexpr uint32_t k_fsmonitor_version = 1;

struct FsmonitorQuery {
  uint32_t version; ///< k_fsmonitor_version
  uint32_t reserved;
  uint64_t upto;   ///< 0 on the first page; then the first answer's upto
  uint64_t cursor; ///< 0 on the first page; then the previous answer's next
  char token[256]; ///< git's token, NUL-terminated (one that does not fit: send "")
};

/// Bits of FsmonitorAnswer::flags.
constexpr uint32_t k_fsmonitor_everything = 1; ///< answer "/"

struct FsmonitorAnswer {
  uint32_t version;
  uint32_t flags;
  uint64_t upto;
  uint64_t next;                ///< cursor of the next page; 0 when this is the last
  uint32_t count;               ///< names in `names`
  uint32_t used;                ///< bytes of `names` used
  char token[64];               ///< the new token, NUL-terminated
  char names[16384 - 3 * 1024]; ///< `count` NUL-terminated names
};

/// The one buffer both ways: the query in, the answer out (under the 16 KiB _IOC_SIZE allows).
union FsmonitorBuffer {
  FsmonitorQuery query;
  FsmonitorAnswer answer;
};
static_assert(sizeof(FsmonitorBuffer) < (1u << 14), "_IOC_SIZE has 14 bits");

/// 'W' 0xF1: no driver's number matters on a FUSE file, but the VFS's own (FIOCLEX, FICLONE,
/// FS_IOC_*) never reach the daemon, so stay clear of them.
constexpr unsigned long k_fsmonitor_ioctl = _IOWR('W', 0xF1, FsmonitorBuffer);

} // namespace ws::fuse
