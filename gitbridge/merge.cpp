// Per-file 3-way merge for ws apply, with the conflicting regions parsed for a person.
#include "gitbridge/merge.hpp"

#include "gitbridge/git_handles.hpp"

#include <cstring>

namespace ws::gitbridge {

namespace {

struct MergeFileResult {
  git_merge_file_result r{};
  ~MergeFileResult() { git_merge_file_result_free(&r); }
};

git_merge_file_input input(std::string_view text, const char* label) {
  git_merge_file_input in;
  git_merge_file_input_init(&in, GIT_MERGE_FILE_INPUT_VERSION); // the macro trips -Wextra
  in.ptr = text.data();
  in.size = text.size();
  in.path = label;
  return in;
}

bool looks_binary(std::string_view s) {
  return s.substr(0, 8000).find('\0') != std::string_view::npos;
}

/// Reads the regions between git's markers (default style: <<<<<<< / ======= / >>>>>>>).
std::vector<ConflictHunk> parse_conflicts(const std::string& merged) {
  std::vector<ConflictHunk> out;
  enum { Outside, Yours, Agents } state = Outside;
  size_t line_no = 0, real_line = 0;
  ConflictHunk hunk;
  size_t start = 0;
  while (start < merged.size()) {
    size_t end = merged.find('\n', start);
    size_t len = (end == std::string::npos ? merged.size() : end + 1) - start;
    std::string_view line(merged.data() + start, len);
    ++line_no;
    if (state == Outside && line.starts_with("<<<<<<< ")) {
      state = Yours;
      hunk = ConflictHunk{};
      hunk.line = real_line + 1;
    } else if (state == Yours && (line == "=======\n" || line == "=======")) {
      // Exactly git's separator: a heading underline of '=' is text.
      state = Agents;
    } else if (state == Agents && line.starts_with(">>>>>>> ")) {
      out.push_back(std::move(hunk));
      state = Outside;
    } else if (state == Yours) {
      hunk.yours.append(line);
      ++real_line;
    } else if (state == Agents) {
      hunk.agents.append(line);
    } else {
      ++real_line;
    }
    start += len;
  }
  return out;
}

} // namespace

MergeResult merge_file(std::string_view base, std::string_view yours, std::string_view agents,
                       const std::string& path) {
  MergeResult out;
  if (looks_binary(base) || looks_binary(yours) || looks_binary(agents)) {
    return out;
  }
  git_merge_file_input a = input(base, "base");
  git_merge_file_input o = input(yours, "real tree (yours)");
  git_merge_file_input t = input(agents, "workspace (agent)");
  git_merge_file_options opts;
  git_merge_file_options_init(&opts, GIT_MERGE_FILE_OPTIONS_VERSION);
  opts.ancestor_label = "base (when the agent started)";
  opts.our_label = "real tree (yours)";
  opts.their_label = "workspace (agent)";
  MergeFileResult r;
  git_check(git_merge_file(&r.r, &a, &o, &t, &opts), "merge '" + path + "'");
  out.clean = r.r.automergeable != 0;
  out.content.assign(r.r.ptr ? r.r.ptr : "", r.r.len);
  if (!out.clean) {
    out.conflicts = parse_conflicts(out.content);
  }
  return out;
}

} // namespace ws::gitbridge
