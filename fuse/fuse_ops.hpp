#pragma once

// Private to fuse/: the low-level operation table the session registers.
#include <fuse_lowlevel.h>

namespace ws::fuse {

/// The trampolines of fuse_adapter.cpp; userdata must be the OverlayFs.
const fuse_lowlevel_ops& lowlevel_ops();

} // namespace ws::fuse
