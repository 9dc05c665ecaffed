// Reading the start of many files at once, on the machine's cores.
#include "src/transfer/content_probe.hpp"

#include "filters/coding_line.hpp"
#include "fuse/changes.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <thread>

namespace ws {

namespace {

constexpr size_t k_binary_window = 8000; // what git looks at (buffer_is_binary)
constexpr size_t k_whole_read = 64 * 1024;
constexpr size_t k_block = 256;       // files a thread takes at a time: siblings stay together
constexpr size_t k_one_thread = 2000; // below this, a second thread costs more than it saves

void probe_range(int upper, const std::vector<const std::string*>& paths, bool keep,
                 std::vector<ContentProbe>& out, std::atomic<size_t>& next) {
  fuse::BeneathOpener files(upper);
  const size_t want = keep ? k_whole_read : k_binary_window;
  auto buf = std::make_unique<char[]>(want);
  for (;;) {
    size_t begin = next.fetch_add(k_block);
    if (begin >= paths.size()) {
      return;
    }
    for (size_t i = begin; i < std::min(begin + k_block, paths.size()); ++i) {
      fuse::UniqueFd fd(files.open(*paths[i], O_RDONLY));
      if (!fd) {
        continue;
      }
      struct stat st {};
      if (::fstat(fd.get(), &st) != 0) {
        continue;
      }
      ssize_t n;
      do {
        n = ::pread(fd.get(), buf.get(), want, 0);
      } while (n < 0 && errno == EINTR);
      if (n < 0) {
        continue;
      }
      auto got = static_cast<size_t>(n);
      ContentProbe& p = out[i];
      p.stamp = {st.st_ino, fuse::nanoseconds(st.st_ctim), fuse::nanoseconds(st.st_mtim),
                 static_cast<uint64_t>(st.st_size)};
      p.binary = std::memchr(buf.get(), 0, std::min(got, k_binary_window)) != nullptr;
      p.recoded =
          !p.binary && filters::recoding_declaration({buf.get(), std::min(got, k_binary_window)});
      // A short read of a regular file is its end.
      p.whole = keep && got < want;
      if (p.whole) {
        p.content.assign(buf.get(), got);
      }
    }
  }
}

} // namespace

std::vector<ContentProbe> probe_contents(int upper, const std::vector<const std::string*>& paths,
                                         bool keep) {
  std::vector<ContentProbe> out(paths.size());
  std::atomic<size_t> next{0};
  std::unique_ptr<std::thread> helper;
  if (paths.size() >= k_one_thread && std::thread::hardware_concurrency() > 1) {
    try {
      helper = std::make_unique<std::thread>([&] { probe_range(upper, paths, keep, out, next); });
    } catch (const std::system_error&) {
      // No thread to be had: this one does it all.
    }
  }
  probe_range(upper, paths, keep, out, next);
  if (helper) {
    helper->join();
  }
  return out;
}

} // namespace ws
