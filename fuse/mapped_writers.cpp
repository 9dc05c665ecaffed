#include "fuse/mapped_writers.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <memory>
#include <vector>

namespace ws::fuse {

namespace {

/// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string unescape_mountinfo(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      int v = 0;
      bool octal = true;
      for (size_t k = 1; k <= 3; ++k) {
        if (s[i + k] < '0' || s[i + k] > '7') {
          octal = false;
          break;
        }
        v = v * 8 + (s[i + k] - '0');
      }
      if (octal) {
        out.push_back(static_cast<char>(v));
        i += 3;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

/// Every process but this one (thread group ids, from /proc).
std::vector<pid_t> all_processes() {
  std::vector<pid_t> out;
  std::unique_ptr<DIR, int (*)(DIR*)> proc(::opendir("/proc"), ::closedir);
  if (!proc) {
    return out;
  }
  pid_t self = ::getpid();
  while (dirent* e = ::readdir(proc.get())) {
    char* end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (pid > 0 && *end == '\0' && pid != self) {
      out.push_back(static_cast<pid_t>(pid));
    }
  }
  return out;
}

/// Whether process (or thread) `pid` maps `dev`/`ino` shared and writable now.
bool maps_for_writing(pid_t pid, dev_t dev, uint64_t ino) {
  char file[64];
  std::snprintf(file, sizeof file, "/proc/%d/maps", static_cast<int>(pid));
  std::unique_ptr<FILE, int (*)(FILE*)> maps(std::fopen(file, "re"), std::fclose);
  if (!maps) {
    return false; // gone, or not ours to read
  }
  char* line = nullptr;
  size_t cap = 0;
  bool found = false;
  while (!found && ::getline(&line, &cap, maps.get()) > 0) {
    // "start-end perms offset major:minor inode path": only shared writable lines matter.
    const char* perms = std::strchr(line, ' ');
    if (!perms || std::strlen(perms) < 5 || perms[2] != 'w' || perms[4] != 's') {
      continue;
    }
    unsigned maj = 0, min = 0;
    unsigned long long node = 0;
    found = std::sscanf(perms + 5, " %*x %x:%x %llu", &maj, &min, &node) == 3 &&
            maj == major(dev) && min == minor(dev) && node == ino;
  }
  std::free(line);
  return found;
}

/// Whether process (or thread) `pid` holds `dev`/`ino` open for writing now. statx with
/// AT_STATX_DONT_SYNC: the view's own files answer from the kernel's cache, no request.
bool holds_for_writing(pid_t pid, dev_t dev, uint64_t ino) {
  std::string dir = "/proc/" + std::to_string(pid);
  int dfd = ::open((dir + "/fd").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) {
    return false; // gone, or not ours to look at
  }
  std::unique_ptr<DIR, int (*)(DIR*)> fds(::fdopendir(dfd), ::closedir);
  if (!fds) {
    ::close(dfd);
    return false;
  }
  while (dirent* f = ::readdir(fds.get())) {
    struct statx stx {};
    if (f->d_name[0] == '.' || ::statx(dfd, f->d_name, AT_STATX_DONT_SYNC, STATX_INO, &stx) != 0 ||
        stx.stx_ino != ino || stx.stx_dev_major != major(dev) || stx.stx_dev_minor != minor(dev)) {
      continue;
    }
    std::ifstream in(dir + "/fdinfo/" + f->d_name);
    std::string key;
    unsigned long flags = 0;
    while (in >> key) {
      if (key == "flags:") {
        in >> std::oct >> flags;
        break;
      }
    }
    if ((flags & O_ACCMODE) != O_RDONLY) {
      return true;
    }
  }
  return false;
}

uid_t owner_of(pid_t pid) {
  char dir[32];
  std::snprintf(dir, sizeof dir, "/proc/%d", static_cast<int>(pid));
  struct stat st {};
  return ::stat(dir, &st) == 0 ? st.st_uid : 0;
}

} // namespace

std::optional<dev_t> mount_device(const std::filesystem::path& mountpoint) {
  std::error_code ec;
  // The parent only: resolving the mountpoint itself would ask the view, which may not
  // answer before its session runs.
  std::filesystem::path want =
      std::filesystem::canonical(mountpoint.parent_path(), ec) / mountpoint.filename();
  if (ec) {
    return std::nullopt;
  }
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  std::optional<dev_t> found;
  while (std::getline(in, line)) {
    // "ID PARENT MAJ:MIN ROOT MOUNTPOINT ...": the last mount at the path is the one on top.
    char devs[32], root[16];
    int at = 0;
    if (std::sscanf(line.c_str(), "%*d %*d %31s %15s %n", devs, root, &at) != 2 || at == 0) {
      continue;
    }
    std::string rest = line.substr(static_cast<size_t>(at));
    std::string point = unescape_mountinfo(rest.substr(0, rest.find(' ')));
    unsigned maj = 0, min = 0;
    if (point == want.string() && std::sscanf(devs, "%u:%u", &maj, &min) == 2) {
      found = makedev(maj, min);
    }
  }
  return found;
}

void MappedWriters::set_view_device(dev_t dev) {
  m_dev.store(dev);
  m_have_dev.store(true);
}

namespace {

int64_t boot_ns() {
  timespec ts{};
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

/// When thread `tid` started (CLOCK_BOOTTIME ns, field 22 of /proc/TID/stat); -1 if gone.
int64_t thread_start_ns(pid_t tid) {
  char file[64];
  std::snprintf(file, sizeof file, "/proc/%d/stat", static_cast<int>(tid));
  std::ifstream in(file);
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close = stat.rfind(')');
  if (close == std::string::npos) {
    return -1;
  }
  const char* p = stat.c_str() + close + 1;
  for (int field = 3; field < 22 && p; ++field) {
    p = std::strchr(p + 1, ' ');
  }
  if (!p) {
    return -1;
  }
  long ticks = ::sysconf(_SC_CLK_TCK);
  return static_cast<int64_t>(std::strtoull(p + 1, nullptr, 10)) * (1'000'000'000 / ticks);
}

} // namespace

void MappedWriters::remember(uint64_t ino, pid_t tid, uid_t uid, const ProcessInfo& info) {
  if (tid <= 0) {
    return;
  }
  int64_t now = boot_ns();
  std::lock_guard lock(m_mutex);
  if (m_last.size() > 8192) {
    m_last.clear(); // forgets only whom to name for a later writeback
  }
  Last& l = m_last[ino];
  l.writer = Writer{tid, uid, info, "last-writer"};
  l.written_boot_ns = now;
}

void MappedWriters::remember_reader(uint64_t ino, pid_t tid) {
  if (tid <= 0) {
    return;
  }
  int64_t now = boot_ns();
  std::unique_lock lock(m_mutex, std::try_to_lock);
  if (!lock.owns_lock()) {
    return; // a hint, never a wait on the read path
  }
  if (m_last.size() > 8192) {
    m_last.clear();
  }
  m_last[ino].reader = Reader{tid, now};
}

std::optional<MappedWriters::Last> MappedWriters::last_of(uint64_t ino) {
  std::lock_guard lock(m_mutex);
  if (auto it = m_last.find(ino); it != m_last.end()) {
    return it->second;
  }
  return std::nullopt;
}

std::vector<pid_t> MappedWriters::candidates(const std::optional<Last>& last) {
  std::vector<pid_t> out;
  if (last && last->reader.tid > 0) {
    out.push_back(last->reader.tid); // a page fault of the mapping reads: the likeliest
  }
  if (last && last->writer.tid > 0 && last->writer.tid != last->reader.tid) {
    out.push_back(last->writer.tid);
  }
  return out;
}

MappedWriters::Writer MappedWriters::named(pid_t pid, ProcessNames& names, const char* via) {
  ProcessInfo info = names.info(pid);
  return {pid, owner_of(info.tgid > 0 ? info.tgid : pid), info, via};
}

MappedWriters::Writer MappedWriters::holder(uint64_t ino, ProcessNames& names) {
  try {
    if (m_have_dev.load()) {
      // Only the processes that last read or wrote the file: a scan of every process's fds
      // (thousands of them) would hold up the writer's msync() for tens of milliseconds.
      for (pid_t pid : candidates(last_of(ino))) {
        if (holds_for_writing(pid, m_dev.load(), ino)) {
          return named(pid, names, "open");
        }
      }
    }
  } catch (const std::exception&) {
    // nobody found: the caller asks attribute() next
  }
  return {};
}

MappedWriters::Writer MappedWriters::attribute(uint64_t ino, ProcessNames& names) {
  try {
    std::optional<Last> last = last_of(ino);
    bool wrote = last && last->writer.tid > 0;
    if (m_have_dev.load()) {
      dev_t dev = m_dev.load();
      for (pid_t pid : candidates(last)) {
        if (maps_for_writing(pid, dev, ino)) {
          return named(pid, names, "mapped");
        }
      }
      for (pid_t pid : all_processes()) { // after the reply: it holds up no one
        if (maps_for_writing(pid, dev, ino)) {
          return named(pid, names, "mapped");
        }
      }
    }
    // The reader counts if it read after the last write, and its tid is still the thread
    // that read (it started before the read: a tid is not reused while its thread lives).
    if (last && last->reader.tid > 0 && (!wrote || last->reader.boot_ns > last->written_boot_ns)) {
      int64_t started = thread_start_ns(last->reader.tid);
      if (started >= 0 && started <= last->reader.boot_ns) {
        Writer w = named(last->reader.tid, names, "last-reader");
        if (wrote && w.info.tgid > 0 && w.info.tgid == last->writer.info.tgid) {
          return last->writer; // its own page faults after it sized the file: it wrote it
        }
        if (w.info.tgid > 0) {
          return w;
        }
      }
    }
    if (wrote) {
      return last->writer;
    }
  } catch (const std::exception&) {
    // Naming the writer must never fail the write: fall through to "unknown".
  }
  return {0, 0, ProcessInfo{"?", 0, 0, {}}, "unknown"};
}

} // namespace ws::fuse
