// A fork bomb that reports, for the `ws run` tests. WORKERS processes fork, all at once,
// children that each start THREADS waiting threads and wait, until fork fails, CHILDREN
// children in all, or SECONDS pass. As soon as every worker has stopped it prints "forks=N"
// and "error=NAME" (the first fork failure; "none" if no fork failed), then kills the children
// (by pid: never a process group, which may hold the processes around the sandbox).
// Usage: ws_test_forkbomb WORKERS CHILDREN THREADS SECONDS
//
// Why threads: a process limit (RLIMIT_NPROC, the pids cgroup) counts tasks, threads included,
// and a fork takes ~2.5 ms on a small 2-core machine: forks alone would not meet a limit of a
// few thousand within the test's timeout. The caps keep a sandbox without any limit from
// exhausting the host's pids (CHILDREN * (THREADS + 1) tasks at most).
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

struct Result {
  int forks = 0;
  int error = 0;
};

void* wait_forever(void*) {
  for (;;) {
    ::pause();
  }
  return nullptr;
}

/// A child: `threads` threads that wait, then waits itself.
[[noreturn]] void child(int threads) {
  pthread_attr_t attr;
  ::pthread_attr_init(&attr);
  ::pthread_attr_setstacksize(&attr, 64 * 1024);
  for (int i = 0; i < threads; ++i) {
    pthread_t t;
    if (::pthread_create(&t, &attr, wait_forever, nullptr) != 0) {
      break; // the limit is met: the worker's next fork will say so
    }
  }
  for (;;) {
    ::pause();
  }
}

/// Forks children until `cap`, `deadline` or a failure; writes what happened to `report_fd`;
/// kills them.
void bomb(int cap, int threads, std::chrono::steady_clock::time_point deadline, int report_fd) {
  std::vector<pid_t> kids;
  Result r;
  while (static_cast<int>(kids.size()) < cap && std::chrono::steady_clock::now() < deadline) {
    pid_t pid = ::fork();
    if (pid < 0) {
      r.error = errno;
      break;
    }
    if (pid == 0) {
      child(threads);
    }
    kids.push_back(pid);
  }
  r.forks = static_cast<int>(kids.size());
  (void)!::write(report_fd, &r, sizeof r); // before the clean-up, which takes a while
  for (pid_t k : kids) {
    ::kill(k, SIGKILL);
  }
  for (pid_t k : kids) {
    ::waitpid(k, nullptr, 0);
  }
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s WORKERS CHILDREN THREADS SECONDS\n", argv[0]);
    return 2;
  }
  int workers = std::atoi(argv[1]);
  int children = std::atoi(argv[2]);
  int threads = std::atoi(argv[3]);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(std::atoi(argv[4]));
  int report[2];
  if (workers < 1 || children < 1 || threads < 0 || ::pipe(report) != 0) {
    return 2;
  }
  std::vector<pid_t> started;
  Result total;
  for (int i = 0; i < workers; ++i) {
    pid_t pid = ::fork();
    if (pid < 0) {
      total.error = errno;
      break;
    }
    if (pid == 0) {
      ::close(report[0]);
      bomb(children / workers, threads, deadline, report[1]);
      ::_exit(0);
    }
    started.push_back(pid);
  }
  ::close(report[1]);
  Result r;
  for (size_t i = 0;
       i < started.size() && ::read(report[0], &r, sizeof r) == static_cast<ssize_t>(sizeof r);
       ++i) {
    total.forks += r.forks;
    if (r.error != 0) {
      total.error = r.error;
    }
  }
  std::printf("forks=%d\nerror=%s\n", total.forks,
              total.error == 0        ? "none"
              : total.error == EAGAIN ? "EAGAIN"
                                      : std::strerror(total.error));
  std::fflush(stdout);
  for (pid_t w : started) {
    ::waitpid(w, nullptr, 0);
  }
  return 0;
}
