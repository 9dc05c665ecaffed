// Freed memory kept for reuse in one-shot commands (freed_memory.hpp).
#include "src/transfer/freed_memory.hpp"

#include <malloc.h>

namespace ws {

void keep_freed_memory() {
  ::mallopt(M_MMAP_MAX, 0);             // big blocks from the heap, reused once freed
  ::mallopt(M_TRIM_THRESHOLD, 1 << 30); // and the heap's top not given back
  ::mallopt(M_TOP_PAD, 16 << 20);       // grown 16 MB at a time, not 128 KB
}

} // namespace ws
