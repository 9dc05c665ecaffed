// A trial FUSE mount (fuse_probe.hpp).
#include "fuse/fuse_probe.hpp"

#include <fuse_lowlevel.h>

#include <poll.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace ws::fuse {

namespace {

struct Protocol {
  unsigned major = 0;
  unsigned minor = 0;
};

void on_init(void* userdata, fuse_conn_info* conn) {
  auto* p = static_cast<Protocol*>(userdata);
  p->major = conn->proto_major;
  p->minor = conn->proto_minor;
}

/// Captures what libfuse and fusermount3 (a child that inherits fd 2) write to stderr
/// while it lives, to report it instead of letting it reach the terminal.
class StderrCapture {
public:
  StderrCapture() {
    m_file = std::tmpfile();
    m_saved = m_file ? ::dup(STDERR_FILENO) : -1;
    if (m_saved >= 0) {
      std::fflush(stderr);
      ::dup2(::fileno(m_file), STDERR_FILENO);
    }
  }
  ~StderrCapture() {
    restore();
    if (m_file) {
      std::fclose(m_file);
    }
  }
  StderrCapture(const StderrCapture&) = delete;
  StderrCapture& operator=(const StderrCapture&) = delete;
  /// Puts stderr back and returns what was written meanwhile, one line.
  std::string text() {
    restore();
    std::string out;
    if (m_file) {
      std::rewind(m_file);
      char buf[512];
      size_t n;
      while ((n = std::fread(buf, 1, sizeof buf, m_file)) > 0) {
        out.append(buf, n);
      }
    }
    for (char& c : out) {
      c = c == '\n' ? ' ' : c;
    }
    while (!out.empty() && out.back() == ' ') {
      out.pop_back();
    }
    return out;
  }

private:
  void restore() {
    if (m_saved >= 0) {
      std::fflush(stderr);
      ::dup2(m_saved, STDERR_FILENO);
      ::close(m_saved);
      m_saved = -1;
    }
  }
  std::FILE* m_file = nullptr;
  int m_saved = -1;
};

} // namespace

std::string libfuse_version() {
  return fuse_pkgversion();
}

FuseProbe probe_fuse(const std::filesystem::path& dir, int timeout_ms) {
  FuseProbe out;
  out.libfuse = libfuse_version();
  Protocol protocol;
  fuse_lowlevel_ops ops{};
  ops.init = on_init;
  std::vector<std::string> strings = {"ws-probe", "-o", "fsname=ws-probe,subtype=ws-probe"};
  std::vector<char*> argv;
  for (auto& s : strings) {
    argv.push_back(s.data());
  }
  fuse_args args = FUSE_ARGS_INIT(static_cast<int>(argv.size()), argv.data());
  StderrCapture capture;
  fuse_session* se = fuse_session_new(&args, &ops, sizeof ops, &protocol);
  if (!se) {
    out.error = "cannot create a FUSE session";
  } else if (fuse_session_mount(se, dir.c_str()) != 0) {
    out.error = "cannot mount";
  } else {
    pollfd p{fuse_session_fd(se), POLLIN, 0};
    fuse_buf buf{};
    if (::poll(&p, 1, timeout_ms) == 1 && fuse_session_receive_buf(se, &buf) > 0) {
      fuse_session_process_buf(se, &buf);
    }
    std::free(buf.mem);
    fuse_session_unmount(se);
    if (protocol.major == 0) {
      out.error = "the kernel sent no INIT within " + std::to_string(timeout_ms) + " ms";
    }
  }
  if (se) {
    fuse_session_destroy(se);
  }
  std::string said = capture.text();
  if (!out.error.empty() && !said.empty()) {
    out.error += ": " + said;
  }
  out.proto_major = protocol.major;
  out.proto_minor = protocol.minor;
  return out;
}

} // namespace ws::fuse
