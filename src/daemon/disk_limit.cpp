// The workspace's disk limit: sizes as people write them, the default, and telling a
// running daemon (docs/filesystem.md, "Disk limit").
#include "src/daemon/disk_limit.hpp"

#include "fuse/disk_usage.hpp"
#include "gitbridge/policy_config.hpp"
#include "gitbridge/real_repo.hpp"
#include "src/cli/error.hpp"
#include "src/daemon/control_socket.hpp"

#include <spdlog/spdlog.h>

#include <sys/statvfs.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <optional>

namespace ws {

namespace {
constexpr std::uint64_t k_gib = 1ull << 30;
constexpr std::uint64_t k_default_limit = 20 * k_gib;
} // namespace

std::uint64_t parse_size(const std::string& text) {
  auto junk = [&] {
    return Error("invalid size '" + text + "'",
                 "give bytes, or a number with k, m, g or t (powers of 1024): 4096, 500M, 10G; "
                 "0 means no limit");
  };
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') {
    ++digits;
  }
  if (digits == 0 || text.size() > digits + 1) {
    throw junk();
  }
  unsigned shift = 0;
  if (digits < text.size()) {
    switch (text[digits]) {
    case 'k':
    case 'K':
      shift = 10;
      break;
    case 'm':
    case 'M':
      shift = 20;
      break;
    case 'g':
    case 'G':
      shift = 30;
      break;
    case 't':
    case 'T':
      shift = 40;
      break;
    default:
      throw junk();
    }
  }
  std::uint64_t value = 0;
  constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  for (size_t i = 0; i < digits; ++i) {
    auto d = static_cast<std::uint64_t>(text[i] - '0');
    if (value > (max - d) / 10) {
      throw Error("size '" + text + "' is too large");
    }
    value = value * 10 + d;
  }
  if (value > (max >> shift)) {
    throw Error("size '" + text + "' is too large");
  }
  return value << shift;
}

void set_disk_limit(const Workspace& w, std::uint64_t bytes) {
  if (!control_call(w.layout.dir, {"disk-limit", std::to_string(bytes)})) {
    throw Error("the view of workspace '" + w.name +
                    "' is not mounted: a disk limit is set on "
                    "the daemon serving it",
                "mount it first ('ws mount'), or set ws.maxDisk for the next mount");
  }
}

std::uint64_t default_disk_room(const std::filesystem::path& upper) {
  struct statvfs sv {};
  if (::statvfs(upper.c_str(), &sv) != 0) {
    return k_default_limit;
  }
  std::uint64_t avail = static_cast<std::uint64_t>(sv.f_bavail) * sv.f_frsize;
  std::uint64_t total = static_cast<std::uint64_t>(sv.f_blocks) * sv.f_frsize;
  std::uint64_t margin = std::min(k_gib, total / 10);
  return avail > margin ? avail - margin : 0;
}

void apply_start_disk_limit(const DaemonArgs& args, const std::filesystem::path& upper,
                            fuse::DiskUsage& usage) {
  if (args.max_disk) {
    usage.set_limit(*args.max_disk);
    spdlog::info("disk limit: {} bytes (--max-disk)", *args.max_disk);
    return;
  }
  // A profile's config layer (src/profile) has a plain directory below: no repository.
  std::optional<gitbridge::RealRepo> repo;
  try {
    repo.emplace(args.lower);
  } catch (const gitbridge::GitError&) {
  }
  std::optional<std::uint64_t> configured;
  if (repo) {
    configured = gitbridge::load_config_size(repo->git_dir(), gitbridge::default_user_config_file(),
                                             "ws.maxDisk");
  }
  if (configured) {
    usage.set_limit(*configured);
    spdlog::info("disk limit: {} bytes (ws.maxDisk)", *configured);
    return;
  }
  // What the workspace holds is being counted still: the limit is set when it is known.
  std::uint64_t room = default_disk_room(upper);
  usage.set_limit_above_count(k_default_limit, room);
  spdlog::info("disk limit: the default, {} bytes above what the workspace holds, {} at most", room,
               k_default_limit);
}

} // namespace ws
