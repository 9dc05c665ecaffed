#include "fuse/host_callers.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

namespace ws::fuse {

std::optional<uint64_t> pid_namespace_of(pid_t pid) {
  if (pid <= 0) {
    return std::nullopt; // 0: the kernel could not name the caller in our namespace
  }
  char file[64];
  std::snprintf(file, sizeof file, "/proc/%d/ns/pid", static_cast<int>(pid));
  struct stat st {};
  if (::stat(file, &st) != 0) {
    return std::nullopt;
  }
  return static_cast<uint64_t>(st.st_ino);
}

HostCallers::HostCallers() : m_own(pid_namespace_of(::getpid()).value_or(0)) {}

bool HostCallers::is_host(pid_t pid) const {
  std::optional<uint64_t> ns = pid_namespace_of(pid);
  return !ns || *ns == m_own;
}

bool HostCallers::surely_host(pid_t pid) const {
  std::optional<uint64_t> ns = pid_namespace_of(pid);
  return ns && m_own != 0 && *ns == m_own;
}

} // namespace ws::fuse
