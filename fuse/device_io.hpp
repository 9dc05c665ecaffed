#pragma once

#include <cstdint>

struct fuse_session;

namespace ws::fuse {

/// FUSE_DIRECT_IO_ALLOW_MMAP (protocol 7.39, kernel 6.6): shared mappings of a file opened
/// with FOPEN_DIRECT_IO. A bit of the INIT reply's flags2; Debian's libfuse 3.14 speaks 7.31
/// and cannot name it, nor do the kernel headers of Debian 12 (7.38).
constexpr uint64_t k_direct_io_allow_mmap = 1ULL << 36;
/// The first protocol minor of a kernel that knows k_direct_io_allow_mmap.
constexpr unsigned k_direct_io_allow_mmap_minor = 39;

/// Serves the session's /dev/fuse reads and writes (libfuse's custom io: the same read()
/// and writev() libfuse would make) to add two things libfuse 3.14 drops:
/// - the INIT reply asks for k_direct_io_allow_mmap (when the kernel offered the extended
///   flags at all: it ignores a bit it does not know), so the view can answer CREATE with
///   FOPEN_DIRECT_IO and a creator's mmap(MAP_SHARED) still works (fuse_adapter.cpp);
/// - the write_flags of the WRITE being answered (request_write_flags): the kernel sets
///   FUSE_WRITE_KILL_SUIDGID on a direct write by a caller without CAP_FSETID, where the
///   server, not the kernel, clears the setuid and setgid bits.
/// Call after fuse_session_mount. Throws if libfuse refuses.
void use_device_io(fuse_session* se);

/// The write_flags of the WRITE request this thread read last (0 for any other request).
uint32_t request_write_flags();

} // namespace ws::fuse
