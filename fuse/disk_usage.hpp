#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <utility>

namespace ws::fuse {

/// The agent's share of the disk: bytes allocated (st_blocks × 512) in upper/ and bases/,
/// and the limit they may not pass (0: none). Counted by a walk when the view mounts (in the
/// background: see begin_count) and after each state edit, and kept in between by the
/// operations that allocate or free: each reserves what it may take before it runs
/// (Reservation) and settles with what it took. The hot path is lock-free (atomics); the
/// mutex serves only the first count. Thread-safe.
class DiskUsage {
public:
  uint64_t limit() const { return m_limit.load(std::memory_order_relaxed); }
  void set_limit(uint64_t bytes);
  /// The limit is `room` bytes above what the first count finds, `cap` at most: the default,
  /// which depends on what the workspace holds already. Set now if counted already.
  void set_limit_above_count(uint64_t cap, uint64_t room);

  /// The first count runs while the view serves: until finish_count(), operations that
  /// change the usage wait (wait_counted), so none is counted twice or not at all. Reads
  /// and lookups never wait.
  void begin_count();
  /// Adds the walk's `total` to what was counted meanwhile (nothing: they waited).
  void finish_count(uint64_t total);
  /// Returns once the first count is in (an atomic load, after that).
  void wait_counted() const;
  uint64_t used() const {
    int64_t u = m_used.load(std::memory_order_relaxed);
    return u > 0 ? static_cast<uint64_t>(u) : 0;
  }
  void set_used(uint64_t bytes) { m_used.store(static_cast<int64_t>(bytes)); }
  /// An allocation (positive) or a release (negative) that happened without a reservation.
  void add(int64_t bytes) { m_used.fetch_add(bytes, std::memory_order_relaxed); }
  /// Throws SystemError(ENOSPC) when `bytes` more would pass the limit (`what` names the
  /// operation and path for the log).
  void require(uint64_t bytes, const char* what) const;
  bool counted() const { return m_counted.load(std::memory_order_acquire); }

  /// Holds `bytes` of the limit while an operation runs; settle() replaces them by what the
  /// operation took. Released if never settled (the operation failed before allocating).
  class Reservation {
  public:
    Reservation() = default;
    Reservation(Reservation&& other) noexcept : m_usage(other.m_usage), m_bytes(other.m_bytes) {
      other.m_usage = nullptr;
    }
    Reservation& operator=(Reservation&&) = delete;
    ~Reservation() { settle(0); }
    /// The operation took `taken` bytes (negative: freed them).
    void settle(int64_t taken) {
      if (m_usage) {
        m_usage->add(taken - static_cast<int64_t>(m_bytes));
        m_usage = nullptr;
      }
    }

  private:
    friend class DiskUsage;
    Reservation(DiskUsage* usage, uint64_t bytes) : m_usage(usage), m_bytes(bytes) {}
    DiskUsage* m_usage = nullptr;
    uint64_t m_bytes = 0;
  };
  /// Reserves `bytes`; throws SystemError(ENOSPC) (reserving nothing) when they would take
  /// the usage past the limit. Concurrent reservations never pass it together.
  Reservation reserve(uint64_t bytes, const char* what);

private:
  std::atomic<int64_t> m_used{0};
  std::atomic<uint64_t> m_limit{0};
  std::atomic<bool> m_counted{true};
  mutable std::mutex m_count_mutex; ///< guards the pending limit; last in any lock order
  mutable std::condition_variable m_count_done;
  std::optional<std::pair<uint64_t, uint64_t>> m_pending_limit; ///< cap, room
};

/// Keeps the usage right across one operation on the object open at `fd` (O_PATH is fine):
/// measures its allocation (fstat) before and after, holding a reservation meanwhile. What
/// the operation freed counts too (a truncate, a hole punched).
class AllocationWatch {
public:
  /// Reserves `reserve` bytes; throws SystemError(ENOSPC) when they do not fit.
  AllocationWatch(DiskUsage& usage, int fd, uint64_t reserve, const char* what);
  /// A write of `size` bytes at `offset`: reserves them only when the write may allocate
  /// (it extends the file, or the file has holes); overwriting allocated bytes takes nothing.
  static AllocationWatch for_write(DiskUsage& usage, int fd, uint64_t offset, uint64_t size,
                                   const char* what);
  AllocationWatch(AllocationWatch&&) = default;
  AllocationWatch& operator=(AllocationWatch&&) = delete;
  ~AllocationWatch() { finish(); }
  /// Measures again and settles: call it before replying, or the kernel's next request on
  /// the file may run first and have its allocation counted here too.
  void finish();

private:
  AllocationWatch(int fd, int64_t before, DiskUsage::Reservation reservation)
      : m_fd(fd), m_before(before), m_reservation(std::move(reservation)) {}
  int m_fd = -1;
  int64_t m_before = 0; ///< allocated bytes before; -1 when unknown (nothing is settled then)
  DiskUsage::Reservation m_reservation;
};

/// Allocated bytes of the object open at `fd` (st_blocks × 512), -1 if fstat fails.
int64_t allocated_bytes(int fd);

/// Bytes allocated below the directory open at `dir_fd` (O_PATH is fine), each inode once,
/// the directories included; what vanishes during the walk is skipped. One getdents64 per
/// directory and one fstatat per entry.
uint64_t measure_allocated(int dir_fd);

} // namespace ws::fuse
