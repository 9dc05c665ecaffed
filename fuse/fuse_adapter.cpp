// The libfuse low-level trampolines: decode a request, call OverlayFs, reply exactly once.
// No exception crosses into libfuse: SystemError becomes its errno, anything else EIO.
#include "fuse/device_io.hpp"
#include "fuse/fuse_adapter_support.hpp"
#include "fuse/fuse_ops.hpp"
#include "fuse/log.hpp"
#include "fuse/overlay_fs.hpp"
#include "fuse/system_error.hpp"

#include <fuse_lowlevel.h>

#include <dirent.h>
#include <linux/fuse.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

namespace ws::fuse {

namespace {

using namespace adapter;

void ll_init(void* userdata, fuse_conn_info* conn) {
  auto want = [&](unsigned cap) {
    if (conn->capable & cap) {
      conn->want |= cap;
    }
  };
  want(FUSE_CAP_PARALLEL_DIROPS);
  want(FUSE_CAP_AUTO_INVAL_DATA); // the person may edit the real tree under us
  want(FUSE_CAP_CACHE_SYMLINKS);
  want(FUSE_CAP_READDIRPLUS);
  want(FUSE_CAP_READDIRPLUS_AUTO);
  want(FUSE_CAP_ASYNC_READ);
  // Stateless files and directories: no OPEN/RELEASE/OPENDIR/RELEASEDIR round trips. The
  // kernel switches to it when OPEN/OPENDIR answer ENOSYS (overlay_stateless.cpp).
  auto* fs = static_cast<OverlayFs*>(userdata);
  fs->set_stateless((conn->capable & FUSE_CAP_NO_OPEN_SUPPORT) &&
                    (conn->capable & FUSE_CAP_NO_OPENDIR_SUPPORT));
  // Created files are written past the page cache (ll_create) where the kernel still lets
  // them be mapped shared: device_io.cpp asks for that in INIT's reply. WS_FUSE_DIRECT_CREATE=0
  // turns it off, to compare (docs/benchmarks.md).
  const char* direct = std::getenv("WS_FUSE_DIRECT_CREATE");
  fs->set_direct_created(fs->stateless() && conn->proto_minor >= k_direct_io_allow_mmap_minor &&
                         !(direct && std::string_view(direct) == "0"));
  // The kernel clears setuid bits on write itself; we do not handle killpriv.
  conn->want &= ~static_cast<unsigned>(FUSE_CAP_HANDLE_KILLPRIV);
  conn->want &= ~static_cast<unsigned>(FUSE_CAP_WRITEBACK_CACHE);
  // O_TRUNC must reach us as a SETATTR: with stateless opens there is no OPEN to carry it.
  conn->want &= ~static_cast<unsigned>(FUSE_CAP_ATOMIC_O_TRUNC);
  // FUSE_DEFAULT_MAX_BACKGROUND (12) caps parallel async requests (EdenFS's finding).
  conn->max_background = 64;
  conn->congestion_threshold = 48;
}

void ll_destroy(void* userdata) {
  auto* fs = static_cast<OverlayFs*>(userdata);
  fs->flush_pending_writes(0);
  fs->journal().flush();
}

void ll_lookup(fuse_req_t req, fuse_ino_t parent, const char* name) {
  OverlayFs& fs = fs_of(req);
  try {
    Entry e = fs.lookup(caller_of(req), fs.node(parent), name);
    if (!e.node) {
      fuse_entry_param p{}; // a negative entry: the kernel remembers the miss
      p.entry_timeout = e.timeout;
      fuse_reply_entry(req, &p);
      return;
    }
    reply_entry(req, e);
  } catch (const SystemError& e) {
    SPDLOG_LOGGER_DEBUG(&logger(), "lookup(parent={}, name={}) -> {}", parent, name, e.what());
    fuse_reply_err(req, e.err() ? e.err() : EIO);
  } catch (const std::exception& e) {
    logger().error("lookup(parent={}, name={}): {}", parent, name, e.what());
    fuse_reply_err(req, EIO);
  }
}

void ll_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup) {
  OverlayFs& fs = fs_of(req);
  fs.forget(fs.node(ino), nlookup);
  fuse_reply_none(req);
}

void ll_forget_multi(fuse_req_t req, size_t count, fuse_forget_data* forgets) {
  OverlayFs& fs = fs_of(req);
  for (size_t i = 0; i < count; ++i) {
    fs.forget(fs.node(forgets[i].ino), forgets[i].nlookup);
  }
  fuse_reply_none(req);
}

void ll_getattr(fuse_req_t req, fuse_ino_t ino, fuse_file_info*) {
  guarded(req, "getattr", [&] {
    OverlayFs& fs = fs_of(req);
    Node* n = checked_node(req, ino);
    struct stat st = fs.getattr(n);
    fuse_reply_attr(req, &st, fs.timeout_for(n, st));
  });
}

void ll_setattr(fuse_req_t req, fuse_ino_t ino, struct stat* attr, int to_set, fuse_file_info* fi) {
  guarded(req, "setattr", [&] {
    OverlayFs& fs = fs_of(req);
    Node* n = checked_node(req, ino);
    struct stat st = fs.setattr(caller_of(req), n, *attr, to_set, fh_of(fi));
    fuse_reply_attr(req, &st, fs.timeout_for(n, st));
  });
}

void ll_readlink(fuse_req_t req, fuse_ino_t ino) {
  guarded(req, "readlink", [&] {
    OverlayFs& fs = fs_of(req);
    std::string target = fs.readlink(checked_node(req, ino));
    fuse_reply_readlink(req, target.c_str());
  });
}

void ll_mknod(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode, dev_t rdev) {
  guarded(req, "mknod", [&] {
    OverlayFs& fs = fs_of(req);
    reply_entry(req, fs.mknod(caller_of(req), fs.node(parent), name, mode, rdev));
  });
}

void ll_mkdir(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode) {
  guarded(req, "mkdir", [&] {
    OverlayFs& fs = fs_of(req);
    reply_entry(req, fs.mkdir(caller_of(req), fs.node(parent), name, mode));
  });
}

void ll_symlink(fuse_req_t req, const char* target, fuse_ino_t parent, const char* name) {
  guarded(req, "symlink", [&] {
    OverlayFs& fs = fs_of(req);
    reply_entry(req, fs.symlink(caller_of(req), fs.node(parent), name, target));
  });
}

void ll_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char* newname) {
  guarded(req, "link", [&] {
    OverlayFs& fs = fs_of(req);
    reply_entry(req, fs.link(caller_of(req), checked_node(req, ino), fs.node(newparent), newname));
  });
}

void ll_unlink(fuse_req_t req, fuse_ino_t parent, const char* name) {
  guarded(req, "unlink", [&] {
    OverlayFs& fs = fs_of(req);
    fs.unlink(caller_of(req), fs.node(parent), name);
    fuse_reply_err(req, 0);
  });
}

void ll_rmdir(fuse_req_t req, fuse_ino_t parent, const char* name) {
  guarded(req, "rmdir", [&] {
    OverlayFs& fs = fs_of(req);
    fs.rmdir(caller_of(req), fs.node(parent), name);
    fuse_reply_err(req, 0);
  });
}

void ll_rename(fuse_req_t req, fuse_ino_t parent, const char* name, fuse_ino_t newparent,
               const char* newname, unsigned int flags) {
  guarded(req, "rename", [&] {
    OverlayFs& fs = fs_of(req);
    fs.rename(caller_of(req), fs.node(parent), name, fs.node(newparent), newname, flags);
    fuse_reply_err(req, 0);
  });
}

void ll_open(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  if (fs_of(req).stateless()) {
    fuse_reply_err(req, ENOSYS); // the kernel stops sending OPEN (and RELEASE) for good
    return;
  }
  guarded(req, "open", [&] {
    OverlayFs& fs = fs_of(req);
    auto fh = fs.open(caller_of(req), checked_node(req, ino), fi->flags);
    fi->fh = reinterpret_cast<uint64_t>(fh.get());
    // AUTO_INVAL_DATA drops the cache when the file's mtime or size moves. A file with
    // several names has a node per name: another name's writes would not show here.
    fi->keep_cache = !fh->multi_link;
    if (fuse_reply_open(req, fi) == 0) {
      fh.release();
    }
  });
}

void ll_create(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode,
               fuse_file_info* fi) {
  guarded(req, "create", [&] {
    OverlayFs& fs = fs_of(req);
    auto [entry, fh] = fs.create(caller_of(req), fs.node(parent), name, mode, fi->flags);
    fi->fh = reinterpret_cast<uint64_t>(fh.get());
    fi->keep_cache = 1;
    // A creator writes what it made (tar, a compiler, npm): past the page cache, each write()
    // is one WRITE. Through it, the kernel first asks for `security.capability` (a GETXATTR
    // per write(), to clear file capabilities), and splits a write() that starts inside a
    // page: tar's 10 KiB records cost it 2.5 WRITEs and 1.8 GETXATTRs per file, 1.8 and
    // none this way (docs/benchmarks.md, fifth pass). Other opens of the file stay cached.
    fi->direct_io = fs.direct_created();
    fuse_entry_param p = to_param(fs, entry);
    if (fuse_reply_create(req, &p, fi) == 0) {
      fh.release();
    } else {
      fs.forget(entry.node, 1);
    }
  });
}

void ll_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, fuse_file_info* fi) {
  guarded(req, "read", [&] {
    OverlayFs& fs = fs_of(req);
    Node* n = checked_node(req, ino);
    fs.note_read(n, fuse_req_ctx(req)->pid);
    if (FileHandle* fh = fh_of(fi)) {
      fuse_bufvec buf = fd_buffer(size, fs.read_fd(n, *fh), off);
      fuse_reply_data(req, &buf, FUSE_BUF_SPLICE_MOVE);
      return;
    }
    IoFd fd = fs.open_for_read(n); // stays open until the data is sent
    fuse_bufvec buf = fd_buffer(size, fd.get(), off);
    fuse_reply_data(req, &buf, FUSE_BUF_SPLICE_MOVE);
  });
}

void ll_write_buf(fuse_req_t req, fuse_ino_t ino, fuse_bufvec* in, off_t off, fuse_file_info* fi) {
  guarded(req, "write", [&] {
    OverlayFs& fs = fs_of(req);
    bool kill_suid = request_write_flags() & FUSE_WRITE_KILL_SUIDGID;
    if (!fh_of(fi)) {
      Node* n = checked_node(req, ino);
      IoFd fd = fs.open_for_write(n);
      if (kill_suid) {
        fs.kill_suid_on_write(fd.get());
      }
      size_t size = fuse_buf_size(in);
      AllocationWatch room = AllocationWatch::for_write(fs.disk(), fd.get(),
                                                        static_cast<uint64_t>(off), size, "write");
      fuse_bufvec out = fd_buffer(size, fd.get(), off);
      ssize_t written = fuse_buf_copy(&out, in, static_cast<fuse_buf_copy_flags>(0));
      room.finish(); // before the reply (see finish)
      if (written < 0) {
        fuse_reply_err(req, static_cast<int>(-written));
        return;
      }
      if (fi && fi->writepage) {
        // The kernel writing back a shared mapping's pages: no caller. Who holds the file
        // open is looked for before the reply (msync() returns with it); the rest after.
        MappedWriters::Writer holder = fs.writeback_holder(n);
        fuse_reply_write(req, static_cast<size_t>(written));
        fs.note_writeback(n, static_cast<uint64_t>(off), static_cast<uint64_t>(written),
                          std::move(holder));
        return;
      }
      fs.note_write(caller_of(req), n, static_cast<uint64_t>(off), static_cast<uint64_t>(written));
      fuse_reply_write(req, static_cast<size_t>(written));
      return;
    }
    FileHandle& fh = *fh_of(fi);
    if (kill_suid) {
      fs.kill_suid_on_write(fh.fd.get());
    }
    size_t size = fuse_buf_size(in);
    AllocationWatch room = AllocationWatch::for_write(fs.disk(), fh.fd.get(),
                                                      static_cast<uint64_t>(off), size, "write");
    fuse_bufvec out = fd_buffer(size, fh.fd.get(), off);
    ssize_t n = fuse_buf_copy(&out, in, static_cast<fuse_buf_copy_flags>(0));
    room.finish();
    if (n < 0) {
      fuse_reply_err(req, static_cast<int>(-n));
      return;
    }
    if (fi->writepage) { // as above
      MappedWriters::Writer holder = fs.writeback_holder(fs.node(ino));
      fuse_reply_write(req, static_cast<size_t>(n));
      fs.note_writeback(fs.node(ino), static_cast<uint64_t>(off), static_cast<uint64_t>(n),
                        std::move(holder));
      return;
    }
    fs.note_write(caller_of(req), fs.node(ino), static_cast<uint64_t>(off),
                  static_cast<uint64_t>(n));
    fuse_reply_write(req, static_cast<size_t>(n));
  });
}

void ll_flush(fuse_req_t req, fuse_ino_t, fuse_file_info*) {
  // Writes are synchronous (no writeback cache): close() has nothing to report. ENOSYS
  // makes the kernel stop sending FLUSH, saving a round trip per close().
  fuse_reply_err(req, ENOSYS);
}

void ll_release(fuse_req_t req, fuse_ino_t, fuse_file_info* fi) {
  delete fh_of(fi); // owned since open's or create's reply; its writes are journaled already
  fuse_reply_err(req, 0);
}

void ll_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, fuse_file_info* fi) {
  guarded(req, "fsync", [&] {
    IoFd own;
    if (!fh_of(fi)) {
      own = fs_of(req).open_for_read(fs_of(req).node(ino));
    }
    int fd = own ? own.get() : fh_of(fi)->fd.get();
    int rc = datasync ? ::fdatasync(fd) : ::fsync(fd);
    fuse_reply_err(req, rc == 0 ? 0 : errno);
  });
}

void ll_statfs(fuse_req_t req, fuse_ino_t) {
  guarded(req, "statfs", [&] {
    struct statvfs sv = fs_of(req).statfs();
    fuse_reply_statfs(req, &sv);
  });
}

void ll_setxattr(fuse_req_t req, fuse_ino_t ino, const char* name, const char* value, size_t size,
                 int flags) {
  guarded(req, "setxattr", [&] {
    OverlayFs& fs = fs_of(req);
    fs.setxattr(caller_of(req), checked_node(req, ino), name, std::string_view(value, size), flags);
    fuse_reply_err(req, 0);
  });
}

void reply_xattr_value(fuse_req_t req, const std::string& value, size_t size) {
  if (size == 0) {
    fuse_reply_xattr(req, value.size());
  } else if (value.size() > size) {
    fuse_reply_err(req, ERANGE);
  } else {
    fuse_reply_buf(req, value.data(), value.size());
  }
}

void ll_getxattr(fuse_req_t req, fuse_ino_t ino, const char* name, size_t size) {
  if (std::strncmp(name, "user.", 5) != 0) {
    // Only user.* is kept (OverlayFs::getxattr). The kernel asks for security.capability
    // before every write (FUSE 7.31 has no HANDLE_KILLPRIV_V2): answer without a throw.
    fuse_reply_err(req, ENODATA);
    return;
  }
  guarded(req, "getxattr", [&] {
    OverlayFs& fs = fs_of(req);
    reply_xattr_value(req, fs.getxattr(checked_node(req, ino), name), size);
  });
}

void ll_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size) {
  guarded(req, "listxattr", [&] {
    OverlayFs& fs = fs_of(req);
    reply_xattr_value(req, fs.listxattr(checked_node(req, ino)), size);
  });
}

void ll_removexattr(fuse_req_t req, fuse_ino_t ino, const char* name) {
  guarded(req, "removexattr", [&] {
    OverlayFs& fs = fs_of(req);
    fs.removexattr(caller_of(req), checked_node(req, ino), name);
    fuse_reply_err(req, 0);
  });
}

void ll_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset, off_t length,
                  fuse_file_info* fi) {
  guarded(req, "fallocate", [&] {
    OverlayFs& fs = fs_of(req);
    fs.fallocate(caller_of(req), checked_node(req, ino), fh_of(fi), mode, offset, length);
    fuse_reply_err(req, 0);
  });
}

void ll_lseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence, fuse_file_info* fi) {
  guarded(req, "lseek", [&] {
    OverlayFs& fs = fs_of(req);
    Node* n = checked_node(req, ino);
    IoFd own;
    if (!fh_of(fi)) {
      own = fs.open_for_read(n);
    }
    off_t res = ::lseek(own ? own.get() : fs.read_fd(n, *fh_of(fi)), off, whence);
    if (res < 0) {
      fuse_reply_err(req, errno);
    } else {
      fuse_reply_lseek(req, res);
    }
  });
}

fuse_lowlevel_ops make_ops_impl() {
  fuse_lowlevel_ops ops{};
  ops.init = ll_init;
  ops.destroy = ll_destroy;
  ops.lookup = ll_lookup;
  ops.forget = ll_forget;
  ops.forget_multi = ll_forget_multi;
  ops.getattr = ll_getattr;
  ops.setattr = ll_setattr;
  ops.readlink = ll_readlink;
  ops.mknod = ll_mknod;
  ops.mkdir = ll_mkdir;
  ops.symlink = ll_symlink;
  ops.link = ll_link;
  ops.unlink = ll_unlink;
  ops.rmdir = ll_rmdir;
  ops.rename = ll_rename;
  ops.open = ll_open;
  ops.create = ll_create;
  ops.read = ll_read;
  ops.write_buf = ll_write_buf;
  ops.flush = ll_flush;
  ops.release = ll_release;
  ops.fsync = ll_fsync;
  ops.opendir = ll_opendir;
  ops.readdir = ll_readdir;
  ops.readdirplus = ll_readdirplus;
  ops.releasedir = ll_releasedir;
  ops.fsyncdir = ll_fsyncdir;
  ops.statfs = ll_statfs;
  ops.setxattr = ll_setxattr;
  ops.getxattr = ll_getxattr;
  ops.listxattr = ll_listxattr;
  ops.removexattr = ll_removexattr;
  ops.fallocate = ll_fallocate;
  ops.lseek = ll_lseek;
  ops.ioctl = fsmonitor_ioctl;
  return ops;
}

} // namespace

const fuse_lowlevel_ops& ungated_ops() {
  static const fuse_lowlevel_ops ops = make_ops_impl();
  return ops;
}

} // namespace ws::fuse
