#pragma once

// The daemon's side of the workspace's disk limit (the client's: daemon.hpp).

#include "src/daemon/daemon.hpp"

#include <cstdint>
#include <filesystem>

namespace ws {

namespace fuse {
class DiskUsage;
}

/// Gives a starting daemon's `usage` its limit: `args.max_disk` when given, else `ws.maxDisk`
/// from the real repository's config or the person's (gitbridge::load_config_size), else the
/// default: 20 GiB, but no more than what the workspace holds plus the free space of the
/// filesystem holding `upper` less a margin (1 GiB, or a tenth of a smaller filesystem), so
/// the agent cannot fill the disk the person works on. 0 means none. Throws on a bad
/// ws.maxDisk.
void apply_start_disk_limit(const DaemonArgs& args, const std::filesystem::path& upper,
                            fuse::DiskUsage& usage);

/// The default's room above what the workspace holds: the free space of the filesystem
/// holding `upper` less the margin above.
std::uint64_t default_disk_room(const std::filesystem::path& upper);

} // namespace ws
