// The write gate in front of the trampolines (fuse_adapter.cpp): every request that changes
// the view passes OverlayFs::writes(), which holds it back while `ws apply` reads a
// consistent snapshot (write_gate.hpp). A held request keeps copies of its arguments, not a
// worker thread.
#include "fuse/fuse_ops.hpp"
#include "fuse/log.hpp"
#include "fuse/overlay_fs.hpp"

#include <fcntl.h>

#include <optional>
#include <string>
#include <vector>

namespace ws::fuse {

namespace {

const fuse_lowlevel_ops& inner() {
  return ungated_ops();
}

WriteGate& gate_of(fuse_req_t req) {
  return static_cast<OverlayFs*>(fuse_req_userdata(req))->writes();
}

/// Runs `now` or holds `later()`'s operation; a request that cannot even be held (no
/// memory for its copy) fails instead of vanishing.
template <class Now, class Later> void gated(fuse_req_t req, Now&& now, Later&& later) {
  try {
    gate_of(req).run(std::forward<Now>(now), std::forward<Later>(later));
  } catch (const std::exception& e) {
    logger().error("holding a request while writers are paused: {}", e.what());
    fuse_reply_err(req, ENOMEM);
  }
}

/// A held request's copy of its fuse_file_info (the original lives in the worker's buffer).
struct FileInfo {
  std::optional<fuse_file_info> fi;
  explicit FileInfo(const fuse_file_info* p) {
    if (p) {
      fi = *p;
    }
  }
  fuse_file_info* get() { return fi ? &*fi : nullptr; }
};

void g_setattr(fuse_req_t req, fuse_ino_t ino, struct stat* attr, int to_set, fuse_file_info* fi) {
  gated(
      req, [&] { inner().setattr(req, ino, attr, to_set, fi); },
      [&] {
        return [req, ino, a = *attr, to_set, f = FileInfo(fi)]() mutable {
          inner().setattr(req, ino, &a, to_set, f.get());
        };
      });
}

void g_mknod(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode, dev_t rdev) {
  gated(
      req, [&] { inner().mknod(req, parent, name, mode, rdev); },
      [&] {
        return [req, parent, n = std::string(name), mode, rdev] {
          inner().mknod(req, parent, n.c_str(), mode, rdev);
        };
      });
}

void g_mkdir(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode) {
  gated(
      req, [&] { inner().mkdir(req, parent, name, mode); },
      [&] {
        return [req, parent, n = std::string(name), mode] {
          inner().mkdir(req, parent, n.c_str(), mode);
        };
      });
}

void g_symlink(fuse_req_t req, const char* target, fuse_ino_t parent, const char* name) {
  gated(
      req, [&] { inner().symlink(req, target, parent, name); },
      [&] {
        return [req, t = std::string(target), parent, n = std::string(name)] {
          inner().symlink(req, t.c_str(), parent, n.c_str());
        };
      });
}

void g_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char* newname) {
  gated(
      req, [&] { inner().link(req, ino, newparent, newname); },
      [&] {
        return [req, ino, newparent, n = std::string(newname)] {
          inner().link(req, ino, newparent, n.c_str());
        };
      });
}

void g_unlink(fuse_req_t req, fuse_ino_t parent, const char* name) {
  gated(
      req, [&] { inner().unlink(req, parent, name); },
      [&] {
        return [req, parent, n = std::string(name)] { inner().unlink(req, parent, n.c_str()); };
      });
}

void g_rmdir(fuse_req_t req, fuse_ino_t parent, const char* name) {
  gated(
      req, [&] { inner().rmdir(req, parent, name); },
      [&] {
        return [req, parent, n = std::string(name)] { inner().rmdir(req, parent, n.c_str()); };
      });
}

void g_rename(fuse_req_t req, fuse_ino_t parent, const char* name, fuse_ino_t newparent,
              const char* newname, unsigned int flags) {
  gated(
      req, [&] { inner().rename(req, parent, name, newparent, newname, flags); },
      [&] {
        return [req, parent, n = std::string(name), newparent, nn = std::string(newname), flags] {
          inner().rename(req, parent, n.c_str(), newparent, nn.c_str(), flags);
        };
      });
}

void g_open(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  // Only where the kernel sends OPEN: one for writing copies the file up.
  if ((fi->flags & O_ACCMODE) == O_RDONLY && !(fi->flags & O_TRUNC)) {
    inner().open(req, ino, fi);
    return;
  }
  gated(
      req, [&] { inner().open(req, ino, fi); },
      [&] { return [req, ino, f = *fi]() mutable { inner().open(req, ino, &f); }; });
}

void g_create(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode,
              fuse_file_info* fi) {
  gated(
      req, [&] { inner().create(req, parent, name, mode, fi); },
      [&] {
        return [req, parent, n = std::string(name), mode, f = *fi]() mutable {
          inner().create(req, parent, n.c_str(), mode, &f);
        };
      });
}

void g_write_buf(fuse_req_t req, fuse_ino_t ino, fuse_bufvec* in, off_t off, fuse_file_info* fi) {
  gated(
      req, [&] { inner().write_buf(req, ino, in, off, fi); },
      [&] {
        // The data lives in the worker's buffer (or a pipe): copy it out.
        std::vector<char> data(fuse_buf_size(in));
        fuse_bufvec mem{};
        mem.count = 1;
        mem.buf[0].size = data.size();
        mem.buf[0].mem = data.data();
        ssize_t got = fuse_buf_copy(&mem, in, static_cast<fuse_buf_copy_flags>(0));
        int err = got < 0 ? static_cast<int>(-got) : 0;
        data.resize(got > 0 ? static_cast<size_t>(got) : 0);
        return [req, ino, d = std::move(data), err, off, f = FileInfo(fi)]() mutable {
          if (err != 0) {
            fuse_reply_err(req, err); // the data could not be read from the request
            return;
          }
          fuse_bufvec v{};
          v.count = 1;
          v.buf[0].size = d.size();
          v.buf[0].mem = d.data();
          inner().write_buf(req, ino, &v, off, f.get());
        };
      });
}

void g_setxattr(fuse_req_t req, fuse_ino_t ino, const char* name, const char* value, size_t size,
                int flags) {
  gated(
      req, [&] { inner().setxattr(req, ino, name, value, size, flags); },
      [&] {
        return [req, ino, n = std::string(name), v = std::string(value, size), flags] {
          inner().setxattr(req, ino, n.c_str(), v.data(), v.size(), flags);
        };
      });
}

void g_removexattr(fuse_req_t req, fuse_ino_t ino, const char* name) {
  gated(
      req, [&] { inner().removexattr(req, ino, name); },
      [&] {
        return [req, ino, n = std::string(name)] { inner().removexattr(req, ino, n.c_str()); };
      });
}

void g_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset, off_t length,
                 fuse_file_info* fi) {
  gated(
      req, [&] { inner().fallocate(req, ino, mode, offset, length, fi); },
      [&] {
        return [req, ino, mode, offset, length, f = FileInfo(fi)]() mutable {
          inner().fallocate(req, ino, mode, offset, length, f.get());
        };
      });
}

fuse_lowlevel_ops make_gated() {
  fuse_lowlevel_ops ops = inner();
  ops.setattr = g_setattr;
  ops.mknod = g_mknod;
  ops.mkdir = g_mkdir;
  ops.symlink = g_symlink;
  ops.link = g_link;
  ops.unlink = g_unlink;
  ops.rmdir = g_rmdir;
  ops.rename = g_rename;
  ops.open = g_open;
  ops.create = g_create;
  ops.write_buf = g_write_buf;
  ops.setxattr = g_setxattr;
  ops.removexattr = g_removexattr;
  ops.fallocate = g_fallocate;
  // copy_file_range is not served (the kernel falls back to READ and WRITE, gated above);
  // anything added to the table that changes the view must be gated here too.
  return ops;
}

} // namespace

const fuse_lowlevel_ops& lowlevel_ops() {
  static const fuse_lowlevel_ops ops = make_gated();
  return ops;
}

} // namespace ws::fuse
