#pragma once

// The other files a Rust source file compiles in, read from its text: `mod x;` (x.rs or
// x/mod.rs), `#[path = "p.rs"] mod x;` and `include!("gen.rs")`. A build script is withheld
// by its name; cargo compiles (and rust-analyzer, on open, builds and runs) these with it, so
// the collector (config_commands.hpp) follows them. Pure: no I/O. Read roughly, erring
// towards naming more: comments are skipped, an inline `mod a { mod b; }` names b as if it
// stood outside a.

#include <string>
#include <string_view>
#include <vector>

namespace ws {

/// A `mod NAME;` declaration (not an inline `mod NAME { ... }`), with the `#[path = "..."]`
/// attribute before it, if any.
struct RustMod {
  std::string name;
  std::string path; ///< the attribute's string; empty without one
};

struct RustFileRefs {
  std::vector<RustMod> mods;
  std::vector<std::string> includes; ///< the string literal of each `include!("...")`
};

/// The `mod` declarations and `include!` files of the Rust source `text`. An `include!` of
/// anything but one string literal (`concat!(env!("OUT_DIR"), ...)`: a file the build
/// writes) names nothing.
RustFileRefs rust_file_refs(std::string_view text);

/// Where the `mod NAME;` declarations of `file` (repository-relative) look: the file's
/// directory when it is a crate root (`module_root`: a build script, `lib.rs`) or a
/// `mod.rs`; `DIR/STEM` for any other file `DIR/STEM.rs`.
std::string rust_module_dir(const std::string& file, bool module_root);

/// The repository-relative files rustc may open for `m`, declared in a file in `file_dir`
/// whose module directory is `module_dir` (rust_module_dir; the including file's for text an
/// `include!` brings in): with a path attribute, that path relative to `file_dir`; otherwise
/// `module_dir/NAME.rs` and `module_dir/NAME/mod.rs`. Empty when the path leaves the project.
std::vector<std::string> rust_mod_files(const RustMod& m, const std::string& file_dir,
                                        const std::string& module_dir);

} // namespace ws
