#pragma once

// Private to fuse/: the low-level operation table the session registers.
#include <fuse_lowlevel.h>

namespace ws::fuse {

/// The trampolines of fuse_adapter.cpp behind the write gate (write_gate_ops.cpp); userdata
/// must be the OverlayFs.
const fuse_lowlevel_ops& lowlevel_ops();
/// The trampolines of fuse_adapter.cpp alone.
const fuse_lowlevel_ops& ungated_ops();

} // namespace ws::fuse
