// ws diff's patch: two small trees (only the changed paths) in an in-memory object database,
// diffed by libgit2. Only the changed paths are hashed, so the cost follows the change.
#include "gitbridge/patch.hpp"

#include "gitbridge/content_id.hpp"
#include "gitbridge/git_handles.hpp"

#include <git2/sys/mempack.h>
#include <git2/sys/repository.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

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

char status_letter(git_delta_t status) {
  switch (status) {
  case GIT_DELTA_ADDED:
    return 'A';
  case GIT_DELTA_DELETED:
    return 'D';
  case GIT_DELTA_RENAMED:
    return 'R';
  case GIT_DELTA_COPIED:
    return 'C';
  case GIT_DELTA_TYPECHANGE:
    return 'T';
  default:
    return 'M';
  }
}

/// A path as git prints it with core.quotePath (ws's quote_path does the same in src/):
/// plain if it is printable ASCII, else in double quotes with C escapes and octal bytes.
/// An agent names files: a newline, an escape or a bidi control stays visible, on one line.
std::string git_quoted(std::string_view path) {
  auto plain = [](unsigned char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; };
  if (std::all_of(path.begin(), path.end(), [&](char c) { return plain(c); })) {
    return std::string(path);
  }
  std::string out = "\"";
  for (char ch : path) {
    auto c = static_cast<unsigned char>(ch);
    const char* named = c == '\n'   ? "\\n"
                        : c == '\t' ? "\\t"
                        : c == '\r' ? "\\r"
                        : c == '"'  ? "\\\""
                        : c == '\\' ? "\\\\"
                                    : nullptr;
    if (named) {
      out += named;
    } else if (plain(c)) {
      out += ch;
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      out += buf;
    }
  }
  return out + '"';
}

/// "old => new" as git prints a rename in a diffstat (diff.c pprint_rename): a common
/// leading directory and trailing part go outside braces, "src/{a.c => b.c}"; quoted names
/// are printed whole.
std::string rename_name(std::string_view a, std::string_view b) {
  std::string qa = git_quoted(a), qb = git_quoted(b);
  if (qa != a || qb != b) {
    return qa + " => " + qb;
  }
  size_t pfx = 0; // up to and with the last '/' the two share from the start
  for (size_t i = 0; i < a.size() && i < b.size() && a[i] == b[i]; ++i) {
    if (a[i] == '/') {
      pfx = i + 1;
    }
  }
  // From the end, back to the last shared '/', which may be the prefix's own slash.
  size_t sfx = 0;
  size_t floor = pfx > 0 ? pfx - 1 : 0;
  for (size_t k = 1; k <= a.size() && k <= b.size(); ++k) {
    size_t ia = a.size() - k, ib = b.size() - k;
    if (ia < floor || ib < floor || a[ia] != b[ib]) {
      break;
    }
    if (a[ia] == '/') {
      sfx = k;
    }
  }
  if (pfx + sfx == 0) {
    return qa + " => " + qb;
  }
  auto mid = [&](std::string_view s) {
    return s.size() > pfx + sfx ? s.substr(pfx, s.size() - pfx - sfx) : std::string_view();
  };
  return std::string(a.substr(0, pfx)) + "{" + std::string(mid(a)) + " => " + std::string(mid(b)) +
         "}" + std::string(a.substr(a.size() - sfx));
}

/// One line of the diffstat, before layout.
struct StatRow {
  std::string name; ///< quoted; "old => new" for a rename
  size_t added = 0, deleted = 0;
  bool binary = false;
  uint64_t old_size = 0, new_size = 0;
};

size_t digits(size_t n) {
  size_t d = 1;
  for (; n >= 10; n /= 10) {
    ++d;
  }
  return d;
}

/// `git diff --stat --summary` for 80 columns, laid out as git lays it out (diff.c
/// show_stats): names get what the graph leaves, the graph is scaled to fit.
std::string format_stat(const std::vector<StatRow>& rows, const std::string& summary) {
  constexpr size_t k_width = 80;
  size_t name_width = 0, max_change = 0, number_width = 0;
  size_t insertions = 0, deletions = 0;
  for (const auto& r : rows) {
    name_width = std::max(name_width, r.name.size());
    if (r.binary) {
      number_width = std::max<size_t>(number_width, 3); // "Bin"
    } else {
      max_change = std::max(max_change, r.added + r.deleted);
    }
    insertions += r.added;
    deletions += r.deleted;
  }
  number_width = std::max(number_width, digits(max_change));
  size_t graph_width = std::min(max_change, k_width);
  if (name_width + number_width + 6 + graph_width > k_width) {
    size_t graph_max = k_width * 3 / 8 > number_width + 6 ? k_width * 3 / 8 - number_width - 6 : 0;
    if (graph_width > graph_max) {
      graph_width = std::max<size_t>(graph_max, 6);
    }
    size_t rest = k_width - number_width - 6 - graph_width;
    if (name_width > rest) {
      name_width = rest;
    } else {
      graph_width = k_width - number_width - 6 - name_width;
    }
  }
  // git's scale_linear: a change of any size shows at least one mark.
  auto scale = [&](size_t n) { return n == 0 ? 0 : 1 + n * (graph_width - 1) / max_change; };
  std::string out;
  for (const auto& r : rows) {
    std::string name = r.name;
    if (name.size() > name_width) {
      // "..." and the end of the name, from a directory boundary where there is one.
      std::string tail = name.substr(name.size() - (name_width - 3));
      size_t slash = tail.find('/');
      name = "..." + (slash == std::string::npos ? tail : tail.substr(slash));
    }
    out += " " + name + std::string(name_width - name.size(), ' ') + " |";
    if (r.binary) {
      out += " " + std::string(number_width - 3, ' ') + "Bin " + std::to_string(r.old_size) +
             " -> " + std::to_string(r.new_size) + " bytes\n";
      continue;
    }
    std::string n = std::to_string(r.added + r.deleted);
    out += " " + std::string(number_width - n.size(), ' ') + n;
    size_t add = r.added, del = r.deleted;
    if (graph_width <= max_change) {
      size_t total = scale(add + del);
      if (total < 2 && add > 0 && del > 0) {
        total = 2;
      }
      if (add < del) {
        add = scale(add);
        del = total - add;
      } else {
        del = scale(del);
        add = total - del;
      }
    }
    if (r.added + r.deleted > 0) {
      out += " " + std::string(add, '+') + std::string(del, '-');
    }
    out += "\n";
  }
  auto plural = [](size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  out += " " + plural(rows.size(), "file changed", "files changed");
  if (insertions > 0 || deletions == 0) {
    out += ", " + plural(insertions, "insertion(+)", "insertions(+)");
  }
  if (deletions > 0 || insertions == 0) {
    out += ", " + plural(deletions, "deletion(-)", "deletions(-)");
  }
  return out + "\n" + summary;
}

} // namespace

Patch build_patch(const std::vector<FilePair>& pairs) {
  Patch out;
  out.id = change_id(manifest(pairs));
  if (pairs.empty()) {
    return out;
  }
  MemoryRepo repo;
  git_diff_options opts; // the _INIT macros trip clang's -Wmissing-field-initializers
  git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
  // No GIT_DIFF_INCLUDE_TYPECHANGE: a type change prints as a deletion and an addition,
  // as git prints it and as `git apply` needs it.
  opts.flags = GIT_DIFF_SHOW_BINARY;
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
  for (const auto& p : pairs) {
    if (p.old_path != p.new_path && p.before.present() && p.after.present()) {
      renames.push_back(&p);
      continue;
    }
    add_side(repo.get(), before, p.old_path, p.before);
    add_side(repo.get(), after, p.new_path, p.after);
  }
  DiffPtr diff = diff_of(before, after);
  for (const FilePair* p : renames) {
    DirNode b, a;
    add_side(repo.get(), b, p->old_path, p->before);
    add_side(repo.get(), a, p->new_path, p->after);
    DiffPtr one = diff_of(b, a);
    git_diff_find_options find;
    git_diff_find_options_init(&find, GIT_DIFF_FIND_OPTIONS_VERSION);
    find.flags = GIT_DIFF_FIND_RENAMES | GIT_DIFF_FIND_FOR_UNTRACKED;
    find.rename_threshold = 0; // any similarity: the pairing is known, only the score is shown
    git_check(git_diff_find_similar(one.get(), &find), "pair the rename of '" + p->old_path + "'");
    git_check(git_diff_merge(diff.get(), one.get()), "merge the rename of '" + p->old_path + "'");
  }

  GitBuf text;
  git_check(git_diff_to_buf(&text.buf, diff.get(), GIT_DIFF_FORMAT_PATCH), "format the patch");
  out.text = text.str();

  // The diffstat: names quoted here, as git quotes them (libgit2's own stat prints them raw).
  std::vector<StatRow> rows;
  std::string summary;
  size_t n = git_diff_num_deltas(diff.get());
  for (size_t i = 0; i < n; ++i) {
    const git_diff_delta* d = git_diff_get_delta(diff.get(), i);
    FileStat f;
    f.status = status_letter(d->status);
    f.old_path = d->old_file.path ? d->old_file.path : "";
    f.path = d->new_file.path ? d->new_file.path : f.old_path;
    f.binary = (d->flags & GIT_DIFF_FLAG_BINARY) != 0;
    git_patch* p = nullptr;
    git_check(git_patch_from_diff(&p, diff.get(), i), "count lines of '" + f.path + "'");
    PatchPtr patch(p);
    if (patch) {
      size_t context = 0;
      git_check(git_patch_line_stats(&context, &f.added, &f.deleted, patch.get()),
                "count lines of '" + f.path + "'");
    }
    StatRow row{f.status == 'R' ? rename_name(f.old_path, f.path) : git_quoted(f.path),
                f.added,
                f.deleted,
                f.binary,
                d->old_file.size,
                d->new_file.size};
    rows.push_back(std::move(row));
    auto mode = [](uint32_t m) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "%06o", m);
      return std::string(buf);
    };
    if (f.status == 'A') {
      summary += " create mode " + mode(d->new_file.mode) + " " + git_quoted(f.path) + "\n";
    } else if (f.status == 'D') {
      summary += " delete mode " + mode(d->old_file.mode) + " " + git_quoted(f.old_path) + "\n";
    } else if (f.status == 'R') {
      summary += " rename " + rename_name(f.old_path, f.path) + " (" +
                 std::to_string(d->similarity) + "%)\n";
    }
    if ((f.status == 'M' || f.status == 'R') && d->old_file.mode != d->new_file.mode) {
      summary += " mode change " + mode(d->old_file.mode) + " => " + mode(d->new_file.mode) + " " +
                 git_quoted(f.path) + "\n";
    }
    out.files.push_back(std::move(f));
  }
  out.stat = format_stat(rows, summary);
  return out;
}

namespace {
constexpr const char* k_bold = "\033[1m";
constexpr const char* k_cyan = "\033[36m";
constexpr const char* k_red = "\033[31m";
constexpr const char* k_green = "\033[32m";
constexpr const char* k_reset = "\033[m";

template <class F> std::string map_lines(const std::string& text, F&& colour_of) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    std::string_view line(text.data() + start,
                          (end == std::string::npos ? text.size() : end) - start);
    if (const char* c = colour_of(line)) {
      out.append(c).append(line).append(k_reset);
    } else {
      out.append(line);
    }
    if (end == std::string::npos) {
      break;
    }
    out.push_back('\n');
    start = end + 1;
  }
  return out;
}
} // namespace

std::string colorize_patch(const std::string& text) {
  bool in_header = false;
  return map_lines(text, [&](std::string_view line) -> const char* {
    if (line.starts_with("diff --git ")) {
      in_header = true;
      return k_bold;
    }
    if (line.starts_with("@@")) {
      in_header = false;
      return k_cyan;
    }
    if (in_header) {
      return k_bold;
    }
    if (line.starts_with("+")) {
      return k_green;
    }
    if (line.starts_with("-")) {
      return k_red;
    }
    return nullptr;
  });
}

std::string colorize_stat(const std::string& stat) {
  std::string out;
  // The graph follows the LAST '|' of a line: a file name may hold '|', '+' and '-'.
  size_t line_start = 0;
  size_t bar = std::string::npos;
  for (size_t i = 0; i < stat.size(); ++i) {
    char c = stat[i];
    if (i == line_start) {
      size_t end = stat.find('\n', i);
      size_t found = stat.rfind('|', end == std::string::npos ? stat.size() : end);
      bar = found != std::string::npos && found >= line_start ? found : std::string::npos;
      line_start = end == std::string::npos ? stat.size() : end + 1;
    }
    bool graph = bar != std::string::npos && i > bar && i < line_start;
    if (graph && (c == '+' || c == '-')) {
      out.append(c == '+' ? k_green : k_red).push_back(c);
      out.append(k_reset);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

} // namespace ws::gitbridge
