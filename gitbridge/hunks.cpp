// Per-file hunks for the review session: libgit2's diff of two buffers, as plain values.
#include "gitbridge/hunks.hpp"

#include "gitbridge/diff_setup.hpp"
#include "gitbridge/git_handles.hpp"

#include <algorithm>

namespace ws::gitbridge {

namespace {

bool looks_binary(std::string_view s) {
  return s.substr(0, std::min<size_t>(s.size(), 8000)).find('\0') != std::string_view::npos;
}

} // namespace

std::optional<std::vector<TextHunk>> text_hunks(std::string_view before, std::string_view after) {
  if (looks_binary(before) || looks_binary(after)) {
    return std::nullopt;
  }
  // Decided above: libgit2 must not second-guess (it would with a diff driver or attributes).
  git_diff_options opts = diff_options(GIT_DIFF_FORCE_TEXT);
  opts.context_lines = 3;
  git_patch* raw = nullptr;
  git_check(git_patch_from_buffers(&raw, before.data(), before.size(), nullptr, after.data(),
                                   after.size(), nullptr, &opts),
            "diff two versions of a file");
  PatchPtr patch(raw);
  std::vector<TextHunk> out;
  if (!patch) {
    return out;
  }
  size_t n = git_patch_num_hunks(patch.get());
  for (size_t h = 0; h < n; ++h) {
    const git_diff_hunk* hunk = nullptr;
    size_t lines = 0;
    git_check(git_patch_get_hunk(&hunk, &lines, patch.get(), h), "read a hunk");
    TextHunk t;
    // git writes "-N,0" for an insertion after line N; with lines, N is the first line.
    t.old_begin = hunk->old_lines > 0 ? hunk->old_start - 1 : hunk->old_start;
    t.new_begin = hunk->new_lines > 0 ? hunk->new_start - 1 : hunk->new_start;
    for (size_t l = 0; l < lines; ++l) {
      const git_diff_line* line = nullptr;
      git_check(git_patch_get_line_in_hunk(&line, patch.get(), h, l), "read a line");
      char origin = line->origin;
      if (origin != ' ' && origin != '+' && origin != '-') {
        continue; // "\ No newline at end of file": the missing '\n' in `text` says it
      }
      t.lines.push_back({origin, std::string(line->content, line->content_len)});
    }
    out.push_back(std::move(t));
  }
  return out;
}

} // namespace ws::gitbridge
