// ws apply --index: the result goes into the real index so the person's own commit runs
// their hooks; libgit2 writes the blobs from our bytes (no clean/smudge filters).
#include "gitbridge/index_stage.hpp"

#include "gitbridge/git_handles.hpp"

#include <sys/stat.h>

#include <cstring>

namespace ws::gitbridge {

namespace {
void fill_stat(git_index_entry& e, const std::filesystem::path& file) {
  struct stat st {};
  if (::lstat(file.c_str(), &st) != 0) {
    return; // git re-hashes an entry without stat data; still correct
  }
  e.ctime.seconds = static_cast<int32_t>(st.st_ctim.tv_sec);
  e.ctime.nanoseconds = static_cast<uint32_t>(st.st_ctim.tv_nsec);
  e.mtime.seconds = static_cast<int32_t>(st.st_mtim.tv_sec);
  e.mtime.nanoseconds = static_cast<uint32_t>(st.st_mtim.tv_nsec);
  e.dev = static_cast<uint32_t>(st.st_dev);
  e.ino = static_cast<uint32_t>(st.st_ino);
  e.uid = st.st_uid;
  e.gid = st.st_gid;
  e.file_size = static_cast<uint32_t>(st.st_size);
}

/// The repository at `worktree` (no search upward) and its index, freed together.
struct RealIndex {
  RepoPtr repo;
  IndexPtr index;
};

RealIndex open_real_index(const std::filesystem::path& worktree) {
  RealIndex out;
  out.repo = open_repository_at(worktree);
  git_index* index_raw = nullptr;
  git_check(git_repository_index(&index_raw, out.repo.get()),
            "read the index of " + worktree.string());
  out.index.reset(index_raw);
  return out;
}
} // namespace

std::vector<std::optional<BlobSide>> index_entries(const std::filesystem::path& worktree,
                                                   const std::vector<std::string>& paths) {
  RealIndex real = open_real_index(worktree);
  git_index* index = real.index.get();
  std::vector<std::optional<BlobSide>> out;
  for (const auto& path : paths) {
    const git_index_entry* e = git_index_get_bypath(index, path.c_str(), 0);
    if (!e || (e->mode != GIT_FILEMODE_BLOB && e->mode != GIT_FILEMODE_BLOB_EXECUTABLE &&
               e->mode != GIT_FILEMODE_LINK)) {
      out.emplace_back();
      continue;
    }
    git_blob* raw_blob = nullptr;
    git_check(git_blob_lookup(&raw_blob, real.repo.get(), &e->id),
              "read the staged '" + path + "'");
    BlobPtr blob(raw_blob);
    BlobSide side;
    side.mode = static_cast<GitMode>(e->mode);
    side.content.assign(static_cast<const char*>(git_blob_rawcontent(blob.get())),
                        static_cast<size_t>(git_blob_rawsize(blob.get())));
    out.push_back(std::move(side));
  }
  return out;
}

void stage_paths(const std::filesystem::path& worktree, const std::vector<StagedPath>& paths) {
  RealIndex real = open_real_index(worktree);
  git_index* index = real.index.get();
  for (const auto& p : paths) {
    if (!p.content.present()) {
      git_check(git_index_remove_bypath(index, p.path.c_str()),
                "remove '" + p.path + "' from the index");
      continue;
    }
    git_index_entry e;
    std::memset(&e, 0, sizeof e);
    e.path = p.path.c_str();
    e.mode = static_cast<uint32_t>(p.content.mode);
    if (p.matches_worktree) {
      fill_stat(e, worktree / p.path);
    }
    git_check(
        git_index_add_from_buffer(index, &e, p.content.content.data(), p.content.content.size()),
        "stage '" + p.path + "'");
  }
  git_check(git_index_write(index), "write the index of " + worktree.string());
}

} // namespace ws::gitbridge
