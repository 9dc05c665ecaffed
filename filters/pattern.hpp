#pragma once

// Paths and gitignore-style patterns, as the transfer policy matches them. Pure: no I/O.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ws::filters {

/// The '/'-separated components of `path`; empty components ("a//b", a trailing '/') are
/// dropped, so callers never see them.
std::vector<std::string> split_path(std::string_view path);

/// split_path without a copy: views into `path`, which must outlive them. What the policy
/// uses for every changed path (an agent may change hundreds of thousands).
std::vector<std::string_view> split_path_views(std::string_view path);

/// ASCII case-insensitive equality: what a case-insensitive filesystem folds together.
bool iequal(std::string_view a, std::string_view b);

/// True for a name that is, or that some filesystem treats as, `.git`. Case-insensitive
/// filesystems fold ".GIT" into ".git"; NTFS drops trailing dots and spaces and knows the 8.3
/// name "git~1". git itself refuses all of these (verify_path), so blocking them costs nothing.
bool is_dotgit(std::string_view name);

/// How a built-in rule or a person's pattern is matched.
struct MatchOptions {
  bool casefold = false;  ///< ignore ASCII case (built-in rules: a case-insensitive filesystem
                          ///< opens "MAKEFILE" for "Makefile")
  bool file_only = false; ///< a pattern without a trailing '/' names the path itself, never a
                          ///< directory above it ("BUILD" must not catch "build/x.o")
};

/// `matches()` with options: see policy.hpp for the pattern syntax.
bool matches_with(std::string_view pattern, std::string_view path, MatchOptions options);

/// A pattern compiled once, for tables matched against many paths.
struct CompiledPattern {
  std::vector<std::string> parts; ///< components; "**" spans any number of directories
  std::vector<bool> literal;      ///< per component: no glob characters (compared as text)
  bool dir_only = false;          ///< matches a directory, so only paths strictly below it
  bool all = false;               ///< "**" or "/**" alone: everything
};
/// nullopt for a pattern that matches nothing ("", "/", one holding NUL).
std::optional<CompiledPattern> compile_pattern(std::string_view pattern);
/// `matches_with` for a compiled pattern and a path already split with split_path (which
/// holds no NUL: check before splitting).
bool matches_split(const CompiledPattern& pattern, const std::vector<std::string>& parts,
                   MatchOptions options);
/// The same for a path split with split_path_views.
bool matches_split(const CompiledPattern& pattern, std::span<const std::string_view> parts,
                   MatchOptions options);

/// True when the rules of a `.gitignore` file (`rules`: its text) ignore `rel_path`, a path
/// relative to that file's directory: comments and blank lines skipped, `!` re-includes, the
/// last matching rule wins, patterns as `matches()` takes them (a match of a directory above
/// the path ignores it too). Used for ignore files the agent wrote (policy.md).
bool gitignore_ignores(std::string_view rules, std::string_view rel_path);

/// `path` is `dir` or lies below it, component by component (`casefold` as above).
bool at_or_below(std::string_view path, std::string_view dir, bool casefold);

} // namespace ws::filters
