#pragma once

// RAII for libgit2's handles, and one way to turn a libgit2 failure into a GitError.

#include "gitbridge/repository.hpp"

#include <git2.h>

#include <filesystem>
#include <memory>
#include <string>

namespace ws::gitbridge {

template <auto Free> struct GitDeleter {
  template <class T> void operator()(T* p) const noexcept { Free(p); }
};
template <class T, auto Free> using GitPtr = std::unique_ptr<T, GitDeleter<Free>>;

using RepoPtr = GitPtr<git_repository, git_repository_free>;
using OdbPtr = GitPtr<git_odb, git_odb_free>;
using ConfigPtr = GitPtr<git_config, git_config_free>;
using TreePtr = GitPtr<git_tree, git_tree_free>;
using TreeBuilderPtr = GitPtr<git_treebuilder, git_treebuilder_free>;
using DiffPtr = GitPtr<git_diff, git_diff_free>;
using PatchPtr = GitPtr<git_patch, git_patch_free>;
using DiffStatsPtr = GitPtr<git_diff_stats, git_diff_stats_free>;
using IndexPtr = GitPtr<git_index, git_index_free>;
using CommitPtr = GitPtr<git_commit, git_commit_free>;
using BlobPtr = GitPtr<git_blob, git_blob_free>;
using ReferencePtr = GitPtr<git_reference, git_reference_free>;
using SignaturePtr = GitPtr<git_signature, git_signature_free>;
using RevwalkPtr = GitPtr<git_revwalk, git_revwalk_free>;

/// A git_buf that frees itself.
struct GitBuf {
  git_buf buf = GIT_BUF_INIT;
  GitBuf() = default;
  GitBuf(const GitBuf&) = delete;
  GitBuf& operator=(const GitBuf&) = delete;
  ~GitBuf() { git_buf_dispose(&buf); }
  std::string str() const { return buf.ptr ? std::string(buf.ptr, buf.size) : std::string(); }
};

/// libgit2's message for the last failure on this thread.
inline std::string git_last_error() {
  const git_error* e = git_error_last(); // may be NULL in libgit2 1.5
  return e && e->message ? e->message : "unknown libgit2 error";
}

/// Throws GitError("<what>: <libgit2's message>") when `rc` < 0.
inline void git_check(int rc, const std::string& what) {
  if (rc < 0) {
    throw GitError(rc, what + ": " + git_last_error());
  }
}

/// The repository whose working tree or git dir is `path` itself (never one found above it:
/// a workspace's real tree is named exactly, and a parent's repository would be the wrong one).
inline RepoPtr open_repository_at(const std::filesystem::path& path) {
  git_repository* raw = nullptr;
  git_check(git_repository_open_ext(&raw, path.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr),
            "open repository " + path.string());
  return RepoPtr(raw);
}

} // namespace ws::gitbridge
