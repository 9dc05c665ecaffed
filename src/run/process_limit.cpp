// Per-session process limit (process_limit.hpp).
#include "src/run/process_limit.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace ws {

namespace {

bool write_file(const std::string& path, const std::string& value) {
  std::ofstream out(path);
  out << value;
  out.flush();
  return static_cast<bool>(out);
}

} // namespace

ProcessLimit::ProcessLimit(long max_procs) {
  if (max_procs <= 0 || ::geteuid() != 0) {
    return;
  }
  std::string name = "ws-run-" + std::to_string(::getpid());
  for (const char* root : {"/sys/fs/cgroup", "/sys/fs/cgroup/pids"}) {
    std::string dir = std::string(root) + "/" + name;
    if (::access((std::string(root) + "/cgroup.procs").c_str(), W_OK) != 0 ||
        ::mkdir(dir.c_str(), 0755) != 0) {
      continue;
    }
    if (write_file(dir + "/pids.max", std::to_string(max_procs))) {
      m_cgroup = dir;
      m_procs = dir + "/cgroup.procs";
      return;
    }
    ::rmdir(dir.c_str()); // v2 without the pids controller enabled here
  }
}

ProcessLimit::~ProcessLimit() {
  if (!m_cgroup.empty()) {
    // Every process of the session is gone by now (the pid namespace ended with pid 1).
    for (int i = 0; i < 50 && ::rmdir(m_cgroup.c_str()) != 0; ++i) {
      ::usleep(10000);
    }
  }
}

void ProcessLimit::join_self() const {
  if (m_procs.empty()) {
    return;
  }
  int fd = ::open(m_procs.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd >= 0) {
    ssize_t n = ::write(fd, "0", 1);
    (void)n;
    ::close(fd);
  }
}

} // namespace ws
