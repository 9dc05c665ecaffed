// The libfuse trampolines of directory listings: opendir, readdir(plus), releasedir.
#include "fuse/fuse_adapter_support.hpp"

#include <sys/stat.h>

#include <memory>
#include <mutex>
#include <vector>

namespace ws::fuse::adapter {

void ll_opendir(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  if (fs_of(req).stateless()) {
    fuse_reply_err(req, ENOSYS); // the kernel stops sending OPENDIR (and RELEASEDIR) for good
    return;
  }
  guarded(req, "opendir", [&] {
    auto dh = std::make_unique<DirHandle>();
    fi->fh = reinterpret_cast<uint64_t>(dh.get());
    // The kernel may keep listings it cannot miss a change to: our own changes bump the
    // directory's version, the person's come through the watcher's invalidation.
    if (fs_of(req).node(ino)->stable || ino == FUSE_ROOT_ID) {
      fi->cache_readdir = 1;
      fi->keep_cache = 1;
    }
    if (fuse_reply_open(req, fi) == 0) {
      dh.release();
    }
  });
}

namespace {

void do_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, fuse_file_info* fi,
                bool plus) {
  guarded(req, plus ? "readdirplus" : "readdir", [&] {
    OverlayFs& fs = fs_of(req);
    Node* dir = checked_node(req, ino);
    auto* dh = reinterpret_cast<DirHandle*>(fi->fh);
    std::vector<char> buf(size);
    size_t used = 0;
    // The reply goes out after the lock is released: the kernel may send RELEASEDIR (which
    // frees dh) the moment it has the reply.
    std::unique_lock<std::mutex> lock;
    std::shared_ptr<const std::vector<DirEntry>> shared;
    const std::vector<DirEntry>* entries;
    if (dh) {
      lock = std::unique_lock(dh->mutex);
      if (!dh->loaded || off == 0) {
        dh->entries = fs.list_dir(dir); // a snapshot: stable while the listing proceeds
        dh->loaded = true;
      }
      entries = &dh->entries;
    } else {
      shared = fs.listing(dir, off);
      entries = shared.get();
    }
    for (size_t i = static_cast<size_t>(off); i < entries->size(); ++i) {
      const DirEntry& de = (*entries)[i];
      size_t rem = size - used;
      size_t entsize;
      if (plus) {
        fuse_entry_param p{};
        Node* looked_up = nullptr;
        if (de.name == "." || de.name == "..") {
          p.attr.st_ino = de.ino;
          p.attr.st_mode = static_cast<mode_t>(de.type) << 12;
        } else {
          try {
            Entry e = fs.lookup(caller_of(req), dir, de.name);
            if (!e.node) {
              continue; // gone since the snapshot
            }
            p = to_param(fs, e);
            looked_up = e.node;
          } catch (const SystemError& e) {
            if (e.err() == ENOENT) {
              continue;
            }
            // Listed, but refused to this caller (the git guard): the name without an entry.
            p.attr.st_ino = de.ino;
            p.attr.st_mode = static_cast<mode_t>(de.type) << 12;
          }
        }
        entsize = fuse_add_direntry_plus(req, buf.data() + used, rem, de.name.c_str(), &p,
                                         static_cast<off_t>(i + 1));
        if (entsize > rem) {
          if (looked_up) {
            fs.forget(looked_up, 1);
          }
          break;
        }
      } else {
        struct stat st {};
        st.st_ino = de.ino;
        st.st_mode = static_cast<mode_t>(de.type) << 12;
        entsize = fuse_add_direntry(req, buf.data() + used, rem, de.name.c_str(), &st,
                                    static_cast<off_t>(i + 1));
        if (entsize > rem) {
          break;
        }
      }
      used += entsize;
    }
    if (lock.owns_lock()) {
      lock.unlock();
    }
    fuse_reply_buf(req, buf.data(), used);
  });
}

} // namespace

void ll_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, fuse_file_info* fi) {
  do_readdir(req, ino, size, off, fi, false);
}

void ll_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, fuse_file_info* fi) {
  do_readdir(req, ino, size, off, fi, true);
}

void ll_releasedir(fuse_req_t req, fuse_ino_t, fuse_file_info* fi) {
  delete reinterpret_cast<DirHandle*>(fi->fh); // owned since opendir's reply
  fuse_reply_err(req, 0);
}

void ll_fsyncdir(fuse_req_t req, fuse_ino_t, int, fuse_file_info*) {
  fuse_reply_err(req, 0);
}

} // namespace ws::fuse::adapter
