#pragma once

#include <filesystem>
#include <string>

namespace ws::fuse {

/// What a trial mount learned about FUSE on this machine.
struct FuseProbe {
  std::string libfuse;      ///< the libfuse ws runs with ("3.14.0")
  unsigned proto_major = 0; ///< the kernel's FUSE protocol ("7.41"); 0: no mount
  unsigned proto_minor = 0;
  std::string error; ///< why the trial mount failed, in libfuse's and fusermount3's words
  bool mounted() const { return proto_major != 0; }
};

/// The libfuse version ws runs with.
std::string libfuse_version();

/// Mounts an empty FUSE filesystem on `dir` (an empty directory of the caller's, where it
/// may mount), answers the kernel's INIT (which carries the kernel's protocol version),
/// and unmounts it again: the same path `ws mount` takes, through fusermount3 for a normal
/// user, without allow_other. Gives up after `timeout_ms`. Never throws.
FuseProbe probe_fuse(const std::filesystem::path& dir, int timeout_ms = 3000);

} // namespace ws::fuse
