#pragma once

namespace ws {

/// For a command that ends in a second or so and handles plans, caches and patch texts of
/// tens of MB (`ws diff`, `ws status`, `ws apply`, `ws review`): memory it frees is kept in
/// its heap and used again, instead of handed back to the kernel and asked for again.
/// glibc serves each block past its mmap threshold (128 KB up to 32 MB) with fresh pages,
/// each faulted in and zeroed on first touch, and unmaps it when freed: after one edit among
/// 200,000 new files that was a third of `ws diff`'s time (docs/benchmarks.md). Not for the
/// daemon, which lives for days. The heap is asked for in transparent huge pages where the
/// kernel offers them on request.
void keep_freed_memory();

} // namespace ws
