// The session's /dev/fuse I/O: libfuse's own read() and writev(), plus what 3.14 drops (see
// device_io.hpp).
#include "fuse/device_io.hpp"

#include <fuse_lowlevel.h>

#include <linux/fuse.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

namespace ws::fuse {

namespace {

/// The INIT request this thread read and has not answered yet (0: none). libfuse answers
/// INIT on the thread that read it, before any other request is read.
thread_local uint64_t t_init_unique = 0;
thread_local uint32_t t_write_flags = 0;

ssize_t read_request(int fd, void* buf, size_t len, void*) {
  ssize_t n = ::read(fd, buf, len);
  t_write_flags = 0;
  if (n >= static_cast<ssize_t>(sizeof(fuse_in_header))) {
    fuse_in_header in;
    std::memcpy(&in, buf, sizeof in);
    if (in.opcode == FUSE_WRITE &&
        n >= static_cast<ssize_t>(sizeof(fuse_in_header) + sizeof(fuse_write_in))) {
      fuse_write_in w;
      std::memcpy(&w, static_cast<const char*>(buf) + sizeof in, sizeof w);
      t_write_flags = w.write_flags;
    } else if (in.opcode == FUSE_INIT) {
      t_init_unique = in.unique;
    }
  }
  return n;
}

/// INIT's reply, completed: libfuse fills flags2 only with bits it knows (none), and sets
/// FUSE_INIT_EXT when the kernel offered extended flags.
void complete_init_reply(iovec* iov, int count) {
  if (count != 2 || iov[0].iov_len != sizeof(fuse_out_header) ||
      iov[1].iov_len != sizeof(fuse_init_out)) {
    return;
  }
  fuse_out_header out;
  std::memcpy(&out, iov[0].iov_base, sizeof out);
  if (out.unique != t_init_unique || out.error != 0) {
    return;
  }
  fuse_init_out init;
  std::memcpy(&init, iov[1].iov_base, sizeof init);
  if (!(init.flags & FUSE_INIT_EXT)) {
    return;
  }
  init.flags2 |= static_cast<uint32_t>(k_direct_io_allow_mmap >> 32);
  std::memcpy(iov[1].iov_base, &init, sizeof init);
}

ssize_t write_reply(int fd, iovec* iov, int count, void*) {
  if (t_init_unique != 0) {
    complete_init_reply(iov, count);
    t_init_unique = 0;
  }
  return ::writev(fd, iov, count);
}

} // namespace

void use_device_io(fuse_session* se) {
  fuse_custom_io io{};
  io.read = read_request;
  io.writev = write_reply;
  if (fuse_session_custom_io(se, &io, fuse_session_fd(se)) != 0) {
    throw std::runtime_error("cannot set the FUSE session's device I/O");
  }
}

uint32_t request_write_flags() {
  return t_write_flags;
}

} // namespace ws::fuse
