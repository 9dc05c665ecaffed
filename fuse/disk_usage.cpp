#include "fuse/disk_usage.hpp"

#include "fuse/log.hpp"
#include "fuse/system_error.hpp"
#include "fuse/unique_fd.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_set>
#include <vector>

namespace ws::fuse {

namespace {

[[noreturn]] void refuse(uint64_t used, uint64_t limit, const char* what) {
  SPDLOG_LOGGER_DEBUG(&logger(), "{}: disk limit reached ({} of {} bytes)", what, used, limit);
  throw SystemError(ENOSPC, std::string(what) + ": the workspace's disk limit (" +
                                std::to_string(limit) + " bytes) is reached");
}

struct InodeKey {
  dev_t dev;
  ino_t ino;
  bool operator==(const InodeKey&) const = default;
};
struct InodeHash {
  size_t operator()(const InodeKey& k) const noexcept {
    return std::hash<uint64_t>()(static_cast<uint64_t>(k.ino) * 31 + static_cast<uint64_t>(k.dev));
  }
};

} // namespace

void DiskUsage::set_limit(uint64_t bytes) {
  std::lock_guard lock(m_count_mutex);
  m_pending_limit.reset(); // said explicitly: wins over a default still waiting for the count
  m_limit.store(bytes, std::memory_order_relaxed);
}

void DiskUsage::set_limit_above_count(uint64_t cap, uint64_t room) {
  std::lock_guard lock(m_count_mutex);
  if (counted()) {
    // At least one byte: 0 would mean no limit at all, on the fullest disk.
    m_limit.store(std::max<uint64_t>(1, std::min(cap, used() + room)));
  } else {
    m_pending_limit.emplace(cap, room);
  }
}

void DiskUsage::begin_count() {
  m_counted.store(false, std::memory_order_release);
}

void DiskUsage::finish_count(uint64_t total) {
  {
    std::lock_guard lock(m_count_mutex);
    m_used.fetch_add(static_cast<int64_t>(total));
    m_counted.store(true, std::memory_order_release);
    if (m_pending_limit) {
      auto [cap, room] = *m_pending_limit;
      m_limit.store(std::max<uint64_t>(1, std::min(cap, used() + room)));
      m_pending_limit.reset();
    }
  }
  m_count_done.notify_all();
}

void DiskUsage::wait_counted() const {
  if (counted()) {
    return;
  }
  std::unique_lock lock(m_count_mutex);
  m_count_done.wait(lock, [&] { return counted(); });
}

void DiskUsage::require(uint64_t bytes, const char* what) const {
  wait_counted();
  uint64_t lim = limit();
  if (lim != 0 && used() + bytes > lim) {
    refuse(used(), lim, what);
  }
}

DiskUsage::Reservation DiskUsage::reserve(uint64_t bytes, const char* what) {
  wait_counted();
  uint64_t lim = limit();
  int64_t before = m_used.fetch_add(static_cast<int64_t>(bytes), std::memory_order_relaxed);
  if (lim != 0 && bytes > 0 && before + static_cast<int64_t>(bytes) > static_cast<int64_t>(lim)) {
    m_used.fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed);
    refuse(before > 0 ? static_cast<uint64_t>(before) : 0, lim, what);
  }
  return Reservation(this, bytes);
}

int64_t allocated_bytes(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 ? static_cast<int64_t>(st.st_blocks) * 512 : -1;
}

AllocationWatch::AllocationWatch(DiskUsage& usage, int fd, uint64_t reserve, const char* what)
    : m_fd(fd), m_before(allocated_bytes(fd)), m_reservation(usage.reserve(reserve, what)) {}

AllocationWatch AllocationWatch::for_write(DiskUsage& usage, int fd, uint64_t offset, uint64_t size,
                                           const char* what) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    return AllocationWatch(fd, -1, usage.reserve(size, what));
  }
  int64_t allocated = static_cast<int64_t>(st.st_blocks) * 512;
  bool extends = offset + size > static_cast<uint64_t>(st.st_size);
  bool sparse = allocated < st.st_size; // a write inside may fill a hole
  if (!extends && !sparse) {
    // Overwriting allocated bytes allocates nothing: no second fstat (most of a rewrite's
    // cost here would be the two).
    return AllocationWatch(-1, -1, usage.reserve(0, what));
  }
  return AllocationWatch(fd, allocated, usage.reserve(size, what));
}

void AllocationWatch::finish() {
  int64_t after = m_fd >= 0 && m_before >= 0 ? allocated_bytes(m_fd) : -1;
  m_reservation.settle(after >= 0 ? after - m_before : 0);
  m_fd = -1;
}

uint64_t measure_allocated(int dir_fd) {
  uint64_t total = 0;
  std::unordered_set<InodeKey, InodeHash> linked; // files with several names: counted once
  std::vector<char> buf(1 << 16);
  // Depth first, one open fd per level (not per directory seen): a wide tree stays far from
  // the fd limit.
  struct Frame {
    UniqueFd fd;
    std::vector<std::string> subdirs;
    size_t next = 0;
  };
  auto enter = [&](UniqueFd fd) {
    Frame f{std::move(fd), {}, 0};
    struct stat st {};
    if (::fstat(f.fd.get(), &st) == 0) {
      total += static_cast<uint64_t>(st.st_blocks) * 512;
    }
    for (;;) {
      // getdents64, not readdir: no DIR allocation and copy per directory of a wide tree.
      ssize_t n = ::getdents64(f.fd.get(), buf.data(), buf.size());
      if (n <= 0) {
        break;
      }
      for (ssize_t off = 0; off < n;) {
        auto* e = reinterpret_cast<const dirent64*>(buf.data() + off);
        off += e->d_reclen;
        const char* name = e->d_name;
        if (std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0) {
          continue;
        }
        if (e->d_type == DT_DIR) {
          f.subdirs.emplace_back(name);
          continue;
        }
        if (::fstatat(f.fd.get(), name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
          continue; // gone meanwhile
        }
        if (S_ISDIR(st.st_mode)) { // a filesystem without d_type
          f.subdirs.emplace_back(name);
        } else if (st.st_nlink <= 1 || linked.insert({st.st_dev, st.st_ino}).second) {
          total += static_cast<uint64_t>(st.st_blocks) * 512;
        }
      }
    }
    return f;
  };
  std::vector<Frame> stack;
  UniqueFd top(::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!top) {
    return 0;
  }
  stack.push_back(enter(std::move(top)));
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next == f.subdirs.size()) {
      stack.pop_back();
      continue;
    }
    const std::string& name = f.subdirs[f.next++];
    UniqueFd sub(
        ::openat(f.fd.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (sub) {
      stack.push_back(enter(std::move(sub))); // invalidates f: not used after this
    }
  }
  return total;
}

} // namespace ws::fuse
