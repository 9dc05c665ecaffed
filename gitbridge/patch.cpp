// ws diff's patch: files added or deleted whole formatted directly (one_sided_patch), the
// rest as two small trees (only the changed paths) in an in-memory object database, diffed by
// libgit2. Only the changed paths are hashed, so the cost follows the change.
#include "gitbridge/patch.hpp"

#include "gitbridge/content_id.hpp"
#include "gitbridge/diff_setup.hpp"
#include "gitbridge/diffstat.hpp"
#include "gitbridge/git_handles.hpp"
#include "gitbridge/one_sided_patch.hpp"

#include <git2/sys/mempack.h>
#include <git2/sys/repository.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <string_view>
#include <unordered_set>

namespace ws::gitbridge {

namespace {

/// A repository that exists only in memory: no path, no config (so no diff drivers, no
/// attributes, no user settings change the patch), objects in a mempack.
class MemoryRepo {
public:
  MemoryRepo() {
    git_repository* repo = nullptr;
    git_check(git_repository_new(&repo), "create in-memory repository");
    m_repo.reset(repo);
    git_odb* odb = nullptr;
    git_check(git_odb_new(&odb), "create in-memory object database");
    m_odb.reset(odb);
    git_odb_backend* mempack = nullptr;
    git_check(git_mempack_new(&mempack), "create in-memory object store");
    // The odb owns the backend from here on.
    git_check(git_odb_add_backend(m_odb.get(), mempack, 1), "attach in-memory object store");
    git_check(git_repository_set_odb(m_repo.get(), m_odb.get()), "attach object database");
    git_config* cfg = nullptr;
    git_check(git_config_new(&cfg), "create empty configuration");
    m_config.reset(cfg);
    git_repository_set_config(m_repo.get(), m_config.get());
  }
  git_repository* get() const { return m_repo.get(); }

private:
  RepoPtr m_repo;
  OdbPtr m_odb;
  ConfigPtr m_config;
};

/// Paths -> blobs, assembled into nested trees.
struct DirNode {
  std::map<std::string, DirNode> dirs;
  std::map<std::string, std::pair<git_oid, git_filemode_t>> files;
};

void insert(DirNode& root, const std::string& path, const git_oid& oid, git_filemode_t mode) {
  DirNode* dir = &root;
  size_t start = 0;
  for (size_t slash; (slash = path.find('/', start)) != std::string::npos; start = slash + 1) {
    dir = &dir->dirs[path.substr(start, slash - start)];
  }
  dir->files[path.substr(start)] = {oid, mode};
}

git_oid write_tree(git_repository* repo, const DirNode& dir) {
  git_treebuilder* raw = nullptr;
  git_check(git_treebuilder_new(&raw, repo, nullptr), "create tree");
  TreeBuilderPtr tb(raw);
  for (const auto& [name, sub] : dir.dirs) {
    git_oid oid = write_tree(repo, sub);
    git_check(git_treebuilder_insert(nullptr, tb.get(), name.c_str(), &oid, GIT_FILEMODE_TREE),
              "add directory '" + name + "' to tree");
  }
  for (const auto& [name, file] : dir.files) {
    git_check(git_treebuilder_insert(nullptr, tb.get(), name.c_str(), &file.first, file.second),
              "add '" + name + "' to tree");
  }
  git_oid oid;
  git_check(git_treebuilder_write(&oid, tb.get()), "write tree");
  return oid;
}

TreePtr make_tree(git_repository* repo, const DirNode& root) {
  git_oid oid = write_tree(repo, root);
  git_tree* tree = nullptr;
  git_check(git_tree_lookup(&tree, repo, &oid), "look up tree");
  return TreePtr(tree);
}

void add_side(git_repository* repo, DirNode& root, const std::string& path, const BlobSide& side) {
  if (!side.present()) {
    return;
  }
  git_oid oid;
  git_check(git_blob_create_from_buffer(&oid, repo, side.content.data(), side.content.size()),
            "hash '" + path + "'");
  insert(root, path, oid, static_cast<git_filemode_t>(side.mode));
}

} // namespace

namespace {

/// One file of the patch: its text, numbers and summary, and where it goes in the patch.
struct PatchFile {
  std::string_view key; ///< libgit2 orders files by their old path (git_diff_merge too)
  std::string text;
  FileStat stat;
  StatRow row;
  std::string summary;
};

/// The files of `pairs` as libgit2 formats them, in libgit2's order.
std::vector<PatchFile> libgit2_files(const std::vector<const FilePair*>& pairs) {
  std::vector<PatchFile> out;
  if (pairs.empty()) {
    return out;
  }
  MemoryRepo repo;
  // No GIT_DIFF_INCLUDE_TYPECHANGE: a type change prints as a deletion and an addition,
  // as git prints it and as `git apply` needs it.
  git_diff_options opts = diff_options(GIT_DIFF_SHOW_BINARY);
  auto diff_of = [&](const DirNode& before, const DirNode& after) {
    TreePtr old_tree = make_tree(repo.get(), before);
    TreePtr new_tree = make_tree(repo.get(), after);
    git_diff* raw = nullptr;
    git_check(git_diff_tree_to_tree(&raw, repo.get(), old_tree.get(), new_tree.get(), &opts),
              "diff the workspace's changes");
    return DiffPtr(raw);
  };

  // The renames are the plan's, decided once (by the view, which saw each rename happen):
  // libgit2 never pairs files by itself here. Everything else is one diff without rename
  // detection; each rename is a diff of its own two files, where the only possible pair is
  // the planned one, merged in.
  DirNode before, after;
  std::vector<const FilePair*> renames;
  for (const FilePair* p : pairs) {
    if (p->old_path != p->new_path && p->before.present() && p->after.present()) {
      renames.push_back(p);
      continue;
    }
    add_side(repo.get(), before, p->old_path, p->before);
    add_side(repo.get(), after, p->new_path, p->after);
  }
  DiffPtr diff = diff_of(before, after);
  for (const FilePair* p : renames) {
    DirNode b, a;
    add_side(repo.get(), b, p->old_path, p->before);
    add_side(repo.get(), a, p->new_path, p->after);
    DiffPtr one = diff_of(b, a);
    // Threshold 0: any similarity: the pairing is known, only the score is shown.
    find_renames(one.get(), GIT_DIFF_FIND_RENAMES | GIT_DIFF_FIND_FOR_UNTRACKED,
                 "pair the rename of '" + p->old_path + "'", 0);
    git_check(git_diff_merge(diff.get(), one.get()), "merge the rename of '" + p->old_path + "'");
  }

  // One patch object per file gives both its text and its line counts.
  size_t n = git_diff_num_deltas(diff.get());
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    git_patch* raw = nullptr;
    git_check(git_patch_from_diff(&raw, diff.get(), i), "format a file of the patch");
    PatchPtr patch(raw);
    // Read after the patch is made: loading the content decides the binary flag and sizes.
    const git_diff_delta* d = git_diff_get_delta(diff.get(), i);
    PatchFile file;
    FileStat& f = file.stat;
    f.status = delta_letter(d->status);
    f.old_path = d->old_file.path ? d->old_file.path : "";
    f.path = d->new_file.path ? d->new_file.path : f.old_path;
    f.binary = (d->flags & GIT_DIFF_FLAG_BINARY) != 0;
    if (patch) {
      size_t context = 0;
      git_check(git_patch_line_stats(&context, &f.added, &f.deleted, patch.get()),
                "count lines of '" + f.path + "'");
      GitBuf text;
      git_check(git_patch_to_buf(&text.buf, patch.get()), "format the patch of '" + f.path + "'");
      file.text = text.str();
    }
    file.row = StatRow{f.status == 'R' ? rename_name(f.old_path, f.path) : git_quoted(f.path),
                       f.added,
                       f.deleted,
                       f.binary,
                       d->old_file.size,
                       d->new_file.size};
    file.summary = summary_lines(f.status, d->old_file.mode, d->new_file.mode, f.old_path, f.path,
                                 d->similarity);
    out.push_back(std::move(file));
  }
  for (auto& file : out) {
    file.key = file.stat.old_path; // each string in its final place now
  }
  return out;
}

PatchFile one_sided_file(const FilePair& p, bool stat) {
  PatchFile file;
  size_t lines = 0;
  file.text = one_sided_patch(p, lines);
  const bool added = p.after.present();
  FileStat& f = file.stat;
  f.status = added ? 'A' : 'D';
  f.old_path = f.path = p.new_path;
  file.key = p.new_path;
  (added ? f.added : f.deleted) = lines;
  if (stat) {
    file.row = StatRow{git_quoted(f.path),    f.added, f.deleted, false, p.before.content.size(),
                       p.after.content.size()};
    file.summary = summary_lines(f.status, static_cast<uint32_t>(p.before.mode),
                                 static_cast<uint32_t>(p.after.mode), f.path, f.path, 0);
  }
  return file;
}

} // namespace

Patch build_patch(const std::vector<FilePair>& pairs, const PatchParts& parts) {
  Patch out;
  out.manifest = manifest(pairs);
  out.id = change_id(out.manifest);
  if (pairs.empty() || !parts.text) {
    return out;
  }
  // Files added or deleted whole are formatted here (most of a large change: an agent's new
  // files), the rest by libgit2; a path both touch goes to libgit2 whole, so the two lists
  // never tie when merged in libgit2's order.
  std::vector<const FilePair*> direct, by_libgit2;
  if (parts.engine == PatchEngine::Auto) {
    std::vector<bool> own(pairs.size());
    std::unordered_set<std::string_view> libgit2_paths;
    for (size_t i = 0; i < pairs.size(); ++i) {
      own[i] = formats_one_sided(pairs[i]);
      if (!own[i]) {
        libgit2_paths.insert(pairs[i].old_path);
        libgit2_paths.insert(pairs[i].new_path);
      }
    }
    for (size_t i = 0; i < pairs.size(); ++i) {
      bool here = own[i] && !libgit2_paths.count(pairs[i].new_path);
      (here ? direct : by_libgit2).push_back(&pairs[i]);
    }
  } else {
    for (const auto& p : pairs) {
      by_libgit2.push_back(&p);
    }
  }
  const std::vector<PatchFile> theirs = libgit2_files(by_libgit2);
  std::vector<PatchFile> ours;
  ours.reserve(direct.size());
  for (const FilePair* p : direct) {
    ours.push_back(one_sided_file(*p, parts.stat));
  }
  // In libgit2's order; moved by pointer, so the keys (views into the files) stay valid.
  auto by_key = [](const PatchFile* a, const PatchFile* b) { return a->key < b->key; };
  std::vector<const PatchFile*> a, b, all;
  for (const auto& f : theirs) {
    a.push_back(&f);
  }
  for (const auto& f : ours) {
    b.push_back(&f);
  }
  std::stable_sort(b.begin(), b.end(), by_key); // a plan comes sorted already: cheap
  all.reserve(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(all), by_key);

  size_t size = 0;
  for (const PatchFile* f : all) {
    size += f->text.size();
  }
  out.text.reserve(size);
  out.files.reserve(all.size());
  std::vector<StatRow> rows;
  std::string summary;
  for (const PatchFile* f : all) {
    out.text += f->text;
    out.files.push_back(f->stat);
    out.files.back().text_size = f->text.size();
    if (parts.stat) {
      summary += f->summary;
      rows.push_back(f->row);
    }
  }
  if (parts.stat) {
    out.stat = format_stat(rows, summary);
  }
  return out;
}

} // namespace ws::gitbridge
