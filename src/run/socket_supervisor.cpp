#include "src/run/socket_supervisor.hpp"

#include "src/run/agent_socket_call.hpp"

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS // Linux 6.6
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

namespace ws {

namespace {

/// Workers at most; calls past them wait their turn (only the agent's own blocking calls).
constexpr int k_max_workers = 64;
/// Distinct refused paths remembered.
constexpr std::size_t k_max_refused = 64;

struct Job {
  std::uint64_t id = 0;
  std::unique_ptr<AgentSocketCall> call;
};

} // namespace

struct SocketSupervisor::State {
  std::mutex mutex;
  std::condition_variable changed;
  int listener = -1;
  std::deque<Job> jobs;
  int workers = 0;
  int idle = 0;
  std::map<std::string, int> refused;

  void respond(std::uint64_t id, const CallResult& r) const {
    seccomp_notif_resp resp{};
    resp.id = id;
    resp.val = r.value;
    resp.error = r.error != 0 ? -r.error : 0;
    // ENOENT: the agent's thread is gone (killed) and wants no answer.
    seccomp_notify_respond(listener, &resp);
  }

  void note_refused(const std::string& path) {
    std::lock_guard lock(mutex);
    if (refused.size() < k_max_refused || refused.count(path) != 0) {
      ++refused[path];
    }
  }

  void work(const std::shared_ptr<State>& self) {
    std::unique_lock lock(mutex);
    for (;;) {
      ++idle;
      changed.wait(lock, [&] { return !jobs.empty(); });
      --idle;
      Job job = std::move(jobs.front());
      jobs.pop_front();
      lock.unlock();
      self->respond(job.id, job.call->finish());
      job.call.reset();
      lock.lock();
    }
  }

  void hand_to_worker(const std::shared_ptr<State>& self, Job job) {
    std::lock_guard lock(mutex);
    jobs.push_back(std::move(job));
    if (idle < static_cast<int>(jobs.size()) && workers < k_max_workers) {
      ++workers;
      std::thread([self] { self->work(self); }).detach();
    }
    changed.notify_one();
  }

  void receive(const std::shared_ptr<State>& self) {
    {
      std::unique_lock lock(mutex);
      changed.wait(lock, [&] { return listener >= 0; });
    }
    seccomp_notif* request = nullptr;
    seccomp_notif_resp* unused = nullptr;
    if (seccomp_notify_alloc(&request, &unused) != 0) {
      // Without a listener the agent's supervised calls fail (ENOSYS): closed, not hanging.
      std::fprintf(stderr, "ws: cannot supervise the agent's sockets: out of memory\n");
      ::close(listener);
      return;
    }
    auto refused_here = [self](const std::string& path) { self->note_refused(path); };
    // The kernel wants the request zeroed (its size), libseccomp leaves it as it is.
    seccomp_notif_sizes sizes{};
    std::size_t size = ::syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) == 0
                           ? std::min<std::size_t>(sizes.seccomp_notif, sizeof(seccomp_notif))
                           : sizeof(seccomp_notif);
    int failures = 0;
    for (;;) {
      std::memset(request, 0, size);
      if (seccomp_notify_receive(listener, request) != 0) {
        // The caller died before we read it (ENOENT), or a signal: the next. Never a busy loop.
        if (++failures > 100) {
          ::usleep(1000);
        }
        continue;
      }
      failures = 0;
      auto call = std::make_unique<AgentSocketCall>();
      if (std::optional<CallResult> done = call->prepare(*request, listener, refused_here)) {
        respond(request->id, *done);
      } else if (std::optional<CallResult> r = call->attempt()) {
        respond(request->id, *r);
      } else {
        hand_to_worker(self, Job{request->id, std::move(call)});
      }
    }
  }
};

SocketSupervisor::SocketSupervisor() : m_state(std::make_shared<State>()) {
  seccomp_api_get(); // libseccomp learns what the kernel supports (its notify calls check)
  std::shared_ptr<State> state = m_state;
  std::thread([state] { state->receive(state); }).detach();
}

SocketSupervisor::~SocketSupervisor() = default;

std::string SocketSupervisor::supervise_calling_thread(int bpf_fd) {
  struct stat st {};
  if (::fstat(bpf_fd, &st) != 0 || st.st_size <= 0 ||
      st.st_size % static_cast<off_t>(sizeof(sock_filter)) != 0) {
    return "the filter program is unreadable";
  }
  std::vector<sock_filter> program(static_cast<std::size_t>(st.st_size) / sizeof(sock_filter));
  if (::pread(bpf_fd, program.data(), static_cast<std::size_t>(st.st_size), 0) != st.st_size) {
    return std::string("read the filter program: ") + std::strerror(errno);
  }
  sock_fprog fprog{static_cast<unsigned short>(program.size()), program.data()};
  // Once pid 1 has a call, only a fatal signal interrupts it (Linux 5.19): a handled signal
  // must not make the agent retry a send pid 1 already made.
  unsigned long flags = SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
  long fd = ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &fprog);
  if (fd < 0 && errno == EINVAL) {
    fd = ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &fprog);
  }
  if (fd < 0) {
    return std::string("seccomp: ") + std::strerror(errno);
  }
  // The agent's thread and pid 1's hand a call back and forth: switch straight to the
  // other, not through the scheduler's queue (Linux 6.6; a round trip on a busy machine took
  // ten times longer without).
  ::ioctl(static_cast<int>(fd), SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
  std::lock_guard lock(m_state->mutex);
  m_state->listener = static_cast<int>(fd);
  m_state->changed.notify_all();
  return "";
}

std::vector<std::string> SocketSupervisor::refused() const {
  std::lock_guard lock(m_state->mutex);
  std::vector<std::string> lines;
  for (const auto& [path, count] : m_state->refused) {
    lines.push_back(path + " (" + std::to_string(count) + "x)");
  }
  return lines;
}

} // namespace ws
